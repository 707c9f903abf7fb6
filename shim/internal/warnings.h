// Every warning the shim prints, listed once. Printing (stderr, the report
// file) and the JSON report (report_json.h) both take a warning's code,
// severity, text and whether it invalidates emulation from this table, so
// a reader of the JSON never has to match the human text.
#ifndef VERBSEMU_SHIM_INTERNAL_WARNINGS_H_
#define VERBSEMU_SHIM_INTERNAL_WARNINGS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

// W(id, code, severity, invalidates, text): `text` is the one-line human
// text, each {} filled with the next argument. `invalidates`: the process's
// traffic (or some of it) was not emulated, so a run that prints it does
// not measure the emulated network.
#define VERBSEMU_WARNINGS(W)                                                   \
  W(kConfigError, "config-error", kError, true, "{}")                          \
  W(kContextNotRegistered, "context-not-registered", kError, true,             \
    "cannot register a context (out of memory): it is not emulated")           \
  W(kHiddenQps, "hidden-qps", kError, true,                                    \
    "WARNING: {}: {} {} of this process that the shim never saw ({}), says "   \
    "the kernel: their traffic was not emulated (a libibverbs the shim does "  \
    "not reach: static, or in another link namespace; or the device driven "   \
    "directly)")                                                               \
  W(kDirectVerbsObjects, "direct-verbs-objects", kError, true,                 \
    "WARNING {} objects made through mlx5 direct verbs (mlx5dv_create_qp, "    \
    "DEVX) on emulated devices: traffic posted through mlx5dv is NOT "         \
    "emulated")                                                                \
  W(kDirectVerbsAllowed, "direct-verbs-allowed", kError, true,                 \
    "WARNING direct verbs allowed on emulated devices ({} "                    \
    "mlx5dv_is_supported() queries): traffic posted through mlx5dv is NOT "    \
    "emulated")                                                                \
  W(kDirectVerbsKept, "direct-verbs-kept", kError, true,                       \
    "VERBSEMU_DIRECT_VERBS=allow: {} keeps mlx5 direct verbs; traffic "        \
    "posted through them is not emulated")                                     \
  W(kTableFull, "table-full", kWarning, true,                                  \
    "the shim's table of {} is full ({}): later ones are {}")                  \
  W(kDestroyedQpUnrecorded, "destroyed-qp-unrecorded", kWarning, false,        \
    "cannot record a destroyed QP for the report (out of memory)")             \
  W(kBoundaryFault, "boundary-fault", kWarning, false, "{}: {}; {}")           \
  W(kPadCreateFailed, "pad-create-failed", kWarning, true,                     \
    "cannot create the padding QP on {}; bandwidth padding is off there")      \
  W(kPadSendFailed, "pad-send-failed", kWarning, true,                         \
    "padding send failed on {}; bandwidth padding stops for this port")        \
  W(kUnpaddedQpPaced, "unpadded-qp-paced", kNote, false,                       \
    "bandwidth padding needs a connected QP (RC/UC): {} QP {} on {} is paced " \
    "instead (as --bw-mode pace would), as other such QPs will be")            \
  W(kUnpaddedQp, "unpadded-qp", kWarning, true,                                \
    "bandwidth padding needs a connected QP (RC/UC): {} QP {} on {} is not "   \
    "padded nor paced (the port's rate is unknown: give --link-bandwidth), "   \
    "as other such QPs will be")                                               \
  W(kLinkRateUnknown, "link-rate-unknown", kWarning, true,                     \
    "cannot tell the link rate of {} port {}: {}; bandwidth emulation is "     \
    "off there")                                                               \
  W(kSharedLinkPrivate, "shared-link-private", kWarning, false,                \
    "cannot share {} port {}'s link with the node's other processes ({}); "    \
    "this process paces on a link of its own")                                 \
  W(kSharedIngressPrivate, "shared-ingress-private", kWarning, false,          \
    "cannot share the ingress of port {} with the node's other processes "     \
    "({}); this process paces on one of its own")                              \
  W(kIngressUnknown, "ingress-unknown", kWarning, false,                       \
    "VERBSEMU_FABRIC=links: {} QP {} on {} has no connected peer address "     \
    "(UD, SRD, iWARP, DCI): its traffic is limited on its own port only, "     \
    "as other such QPs' will be")                                              \
  W(kSharedFlowsPrivate, "shared-flows-private", kWarning, true,               \
    "VERBSEMU_FABRIC=penalty: cannot share the node's flow table with its "    \
    "other processes ({}); this process sees only its own transfers")          \
  W(kFabricFlowsFull, "fabric-flows-full", kWarning, true,                     \
    "VERBSEMU_FABRIC=penalty: the node's flow table is full ({} flows): "      \
    "later QPs are limited on their own port only")                            \
  W(kPenaltyNeedsDefer, "penalty-needs-defer", kWarning, false,                \
    "VERBSEMU_FABRIC=penalty needs VERBSEMU_LATENCY_MODE=defer (a spinning "   \
    "post has nothing queued to share): this process uses links instead")      \
  W(kBypassCheckOff, "bypass-check-off", kNote, false, "bypass check off: {}") \
  W(kDeferNoThread, "defer-no-progress-thread", kWarning, false,               \
    "cannot start the defer mode's progress thread (thread limit): its QPs "   \
    "wait by spinning instead")                                                \
  W(kDeferRefused, "defer-refused", kWarning, false,                           \
    "defer: the provider refused {} WR(s) after their post had returned "      \
    "({}); they complete with IBV_WC_LOC_QP_OP_ERR, as their post would "      \
    "have failed (counted in the report)")                                     \
  W(kDeferDropped, "defer-dropped", kWarning, false,                           \
    "defer: {} held WR(s) dropped: their QP was destroyed where the shim "     \
    "could not see it (counted in the report)")                                \
  W(kDeferExitRegistryLocked, "defer-exit-registry-locked", kWarning, false,   \
    "defer: at exit the shim's registry stayed locked (a thread was "          \
    "interrupted inside it): held posts were not handed over")                 \
  W(kDeferExitQpsLocked, "defer-exit-qps-locked", kWarning, false,             \
    "defer: at exit {} QP(s) stayed locked (a thread was interrupted inside "  \
    "the shim): their held posts were not handed over")                        \
  W(kReportNotWritten, "report-not-written", kError, false, "{}")              \
  W(kReportSignalUnarmed, "report-signal-unarmed", kWarning, false,            \
    "VERBSEMU_REPORT_SIGNAL: {}; the report is written at exit only")

namespace verbsemu::shim::internal {

enum class Severity : uint8_t { kNote, kWarning, kError };

enum class WarningCode : uint8_t {
#define VERBSEMU_WARNING_ID(id, ...) id,
  VERBSEMU_WARNINGS(VERBSEMU_WARNING_ID)
#undef VERBSEMU_WARNING_ID
};

struct WarningInfo {
  WarningCode id;
  const char* code;  // stable: the JSON report's "code"
  Severity severity;
  bool invalidates;
  const char* text;  // the template
};

inline constexpr WarningInfo kWarnings[] = {
#define VERBSEMU_WARNING_INFO(id, code, severity, invalidates, text) \
  {WarningCode::id, code, Severity::severity, invalidates, text},
    VERBSEMU_WARNINGS(VERBSEMU_WARNING_INFO)
#undef VERBSEMU_WARNING_INFO
};
inline constexpr size_t kWarningCount = std::size(kWarnings);

const WarningInfo& Info(WarningCode code);
const char* SeverityName(Severity s);

using WarningArgs = std::initializer_list<std::string_view>;

// The template of `code` with each {} replaced by the next of `args` (an
// {} past the last argument stays empty).
std::string WarningText(WarningCode code, WarningArgs args = {});
// The same into `buf` (NUL-terminated, cut at `cap`), allocating nothing;
// returns its length.
size_t WarningTextTo(WarningCode code, WarningArgs args, char* buf,
                     size_t cap) noexcept;

// A warning as the JSON report lists it.
struct RecordedWarning {
  WarningCode code;
  std::string text;
};

// Records a warning for the JSON report (once per distinct text; at most
// kMaxRecordedWarnings) and returns its text; prints nothing (the report's
// own WARNING lines are printed with the report).
std::string NoteWarning(WarningCode code, WarningArgs args = {});
inline constexpr size_t kMaxRecordedWarnings = 64;
// Records `text` as a warning `code` (what NoteWarning does once it has
// the text). False when the record is full or its lock stays taken.
bool RecordWarning(WarningCode code, std::string_view text);
// `text` on stderr as "verbsemu: TEXT" (a warning already recorded).
void PrintWarning(std::string_view text);
// NoteWarning, and the text on stderr as "verbsemu: TEXT".
void Warn(WarningCode code, WarningArgs args = {});
// Whether this is the first time `code` is asked about in this process
// (the warnings a process prints once, however often their cause recurs).
// Lock-free and allocation-free: safe where memory ran out.
bool FirstTime(WarningCode code) noexcept;
// Warn, the first time for `code` only (FirstTime).
void WarnOnce(WarningCode code, WarningArgs args = {});
// Every warning recorded in this process so far, in order.
std::vector<RecordedWarning> RecordedWarnings();
// Tests: forgets the recorded warnings and which ones were given once.
void ClearRecordedWarningsForTesting();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_WARNINGS_H_
