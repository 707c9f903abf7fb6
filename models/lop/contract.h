// The lop JSON contract, written once: verbsbench writes it, lopfit
// and verbsbench's report read it.
//   {"lop":{"curves":[{"name":..,"kind":"round"|"rtt"|"overhead"|"latency",
//                      "pattern":"1:n"|"n:1","op":"send","inline":true,
//                      "side":"send"|"recv","list":false,"size":8,
//                      "points":[{"p":1,"min_ns":..,"median_ns":..,
//                                 "mean_ns":..,"p99_ns":..,"samples":N,
//                                 "stats":{..},"raw_ns":[..]}]}],
//          "definitions":{..}}}
#ifndef VERBSEMU_MODELS_LOP_CONTRACT_H_
#define VERBSEMU_MODELS_LOP_CONTRACT_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace verbsbench::lop {

// Sections of the run document.
inline constexpr char kSection[] = "lop";
inline constexpr char kCurves[] = "curves";
inline constexpr char kDefinitions[] = "definitions";

// Keys of a curve.
namespace key {
inline constexpr char kName[] = "name";
inline constexpr char kKind[] = "kind";
inline constexpr char kPattern[] = "pattern";
inline constexpr char kOp[] = "op";
inline constexpr char kInline[] = "inline";
inline constexpr char kList[] = "list";
inline constexpr char kSide[] = "side";
inline constexpr char kSize[] = "size";
inline constexpr char kPoints[] = "points";
// Keys of a point.
inline constexpr char kP[] = "p";
inline constexpr char kMinNs[] = "min_ns";
inline constexpr char kMedianNs[] = "median_ns";
inline constexpr char kMedianFallbackNs[] = "p50_ns";  // older files
inline constexpr char kMeanNs[] = "mean_ns";
inline constexpr char kP99Ns[] = "p99_ns";
inline constexpr char kSamples[] = "samples";
inline constexpr char kStats[] = "stats";
inline constexpr char kRawNs[] = "raw_ns";
}  // namespace key

// The statistics the latency derivation applies to.
inline constexpr std::array<const char*, 3> kDerivedStats = {
    key::kMinNs, key::kMedianNs, key::kMeanNs};

// round: one whole 1:n or n:1 round, measured. rtt: LoP's t_rtt(p), the
// round per peer (round/p, derived), as the paper fits it: its send/recv
// minimum falls from 22.8 us at p = 1 to 9.35 us at p = 64 (§4.7).
// overhead: o_s / o_r per WR, measured. latency: L(p), L_list(p), derived.
enum class Kind { kRound, kRtt, kOverhead, kLatency };
const char* KindName(Kind kind);
std::optional<Kind> ParseKind(std::string_view name);

// Round-trip patterns, overhead sides, the op of receive overheads and the
// prefix of send-overhead curve names ("os_..."; receive: "or_...").
inline constexpr char kPattern1n[] = "1:n", kPatternN1[] = "n:1";
inline constexpr char kSideSend[] = "send", kSideRecv[] = "recv";
inline constexpr char kOpRecv[] = "recv", kSendOverheadPrefix[] = "os";

// Curve names: round_<1n|n1>_<op>_<inline|normal>[_list] (list: the p
// messages of a round posted as one list, on one UD QP with p address
// handles), rtt_... the same per peer, os_<op>_<single|list>[_inline],
// or_recv_<single|list>, L_<1n|n1>_<op>_<inline|normal> and Llist_... for
// derived latencies.
std::string RoundCurveName(std::string_view pattern, std::string_view op,
                           bool is_inline, bool list);
std::string RttCurveName(std::string_view pattern, std::string_view op,
                         bool is_inline, bool list);
std::string SendOverheadCurveName(std::string_view op, bool list,
                                  bool is_inline);
std::string RecvOverheadCurveName(bool list);
std::string LatencyCurveName(std::string_view pattern, std::string_view op,
                             bool is_inline, bool list);
// True for a name RoundCurveName, RttCurveName or SendOverheadCurveName made
// with inline.
bool NameSaysInline(std::string_view name);

}  // namespace verbsbench::lop

#endif  // VERBSEMU_MODELS_LOP_CONTRACT_H_
