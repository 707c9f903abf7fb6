#include "shim/internal/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <string_view>

#include "shim/internal/boundary.h"
#include "shim/internal/cq_ex_poll.h"
#include "shim/internal/defer.h"
#include "shim/internal/device_traffic.h"
#include "shim/internal/hidden_qps.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/registry.h"
#include "shim/internal/report_signal.h"
#include "shim/internal/state.h"
#include "shim/internal/wr_recording.h"

namespace verbsemu::shim::internal {
namespace {

uint64_t MeasureTscReadCost() {
  uint64_t best = ~uint64_t{0};
  for (int i = 0; i < 1000; ++i) {
    const uint64_t a = emulate::ReadTsc();
    const uint64_t b = emulate::ReadTsc();
    best = std::min(best, b - a);
  }
  return best;
}

void ResetStatsLocked() {
  Engine& e = E();
  e.direct.refused.Reset();
  e.direct.allowed.Reset();
  e.direct.objects.Reset();
  e.poll_calls_sampled.Reset();
  e.poll_ovh_ticks.Reset();
  e.poll_ovh_samples.Reset();
  e.lateness.Reset();
  e.latency_law.ResetCounts();
}

// OnQpModified for ibv_modify_qp: the provider did modify the QP, and the
// call says so even when the shim runs out of memory; only the QP's
// emulation may then lag (e.g. no link until its next RTR). False then.
bool OnQpModifiedNoThrow(QpState* q, const ibv_qp_attr& attr,
                         int attr_mask) noexcept {
  try {
    OnQpModified(q, attr, attr_mask);
    return true;
  } catch (...) {
    return false;
  }
}

// The setting that makes the provider take no locks (mlx5 reads it when a
// context is opened; MLNX_OFED's mlx4 read its own), or "".
std::string LockFreeProvider() {
  for (const char* name : {"MLX5_SINGLE_THREADED", "MLX4_SINGLE_THREADED"}) {
    const char* v = getenv(name);
    if (v != nullptr && std::string_view(v) == "1") {
      return std::string(name) + "=1";
    }
  }
  return "";
}

}  // namespace

void BoundaryFault(const char* where, const char* what,
                   const char* effect) noexcept {
  if (!FirstTime(WarningCode::kBoundaryFault)) return;
  // Allocates nothing to print (it may follow an out-of-memory error).
  constexpr std::string_view kPrefix = "verbsemu: ";
  char line[320];
  kPrefix.copy(line, kPrefix.size());
  const size_t n =
      kPrefix.size() +
      WarningTextTo(WarningCode::kBoundaryFault, {where, what, effect},
                    line + kPrefix.size(), sizeof line - kPrefix.size() - 1);
  line[n] = '\n';
  ssize_t ignored = write(2, line, n + 1);
  (void)ignored;
  try {
    (void)RecordWarning(
        WarningCode::kBoundaryFault,
        std::string_view(line + kPrefix.size(), n - kPrefix.size()));
  } catch (...) {  // out of memory: printed, not recorded
  }
}

void ConfigureWithCalibration(const Settings& settings,
                              const emulate::TscCalibration& cal) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  e.configured.store(true, std::memory_order_release);
  e.settings = settings;
  e.config_error.clear();
  e.patching = true;
  e.emulating = settings.emulating();
  e.bw.shaper = settings.bandwidth_enabled()
                    ? std::optional(settings.engine.bw_mode)
                    : std::nullopt;
  e.defer.on = Wrapping::Deferring(settings);
  e.defer.lock_free_provider = e.defer.on ? LockFreeProvider() : "";
  e.classes.qps.assign(
      settings.topology ? settings.topology->latency.size() + 1 : 0, 0);
  e.latency_law.Set(settings.engine.latency,
                    settings.engine.seed.value_or(FreshSeed()), cal);
  e.wrap = Wrapping::For(settings);
  e.note_lateness = !settings.report.empty();
  e.bypass.paths.job = settings.job;
  e.bypass.paths.shm_dir = settings.shm_dir;
  ApplyCalibration(e, cal);
  e.tsc_read_cost = MeasureTscReadCost();
  e.recording = e.emulating ? MeasureRecordingCost() : RecordingCost{};
}

void Configure(const Settings& settings, const std::string& error) {
  Engine& e = E();
  if (!error.empty()) {
    std::lock_guard<std::mutex> lock(e.mu);
    e.configured.store(true, std::memory_order_release);
    e.settings = Settings{};
    PassThroughLocked(e, error + "; running without emulation");
    return;
  }
  // The TSC is calibrated when the first device is opened, so processes that
  // never touch a device (shells, launchers) pay nothing.
  ConfigureWithCalibration(settings, emulate::TscCalibration{});
  std::lock_guard<std::mutex> lock(e.mu);
  e.calibrated = false;
}

void ConfigureFromEnvironment() {
  const SettingsResult r = SettingsFromEnv(
      [](const char* name) -> const char* { return secure_getenv(name); });
  Configure(r.settings, r.error);
}

void EnsureConfigured() noexcept {
  Engine& e = E();
  if (e.configured.load(std::memory_order_acquire)) return;
  static std::mutex once;
  std::lock_guard<std::mutex> lock(once);
  if (e.configured.load(std::memory_order_acquire)) return;
  ShimStep("reading the settings", [] { ConfigureFromEnvironment(); });
  if (e.configured.load(std::memory_order_acquire)) return;
  // Configuration itself failed (out of memory): pure pass-through.
  std::lock_guard<std::mutex> engine(e.mu);
  e.configured.store(true, std::memory_order_release);
  PassThroughLocked(e, "cannot read the settings; running without emulation");
}

ibv_context* OpenDevice(ibv_device* device) noexcept {
  EnsureConfigured();
  if (Real().open_device == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_context* ctx = Real().open_device(device);
  ShimStep("ibv_open_device", [ctx] { RegisterContext(ctx); });
  return ctx;
}

ibv_context* VerbsOpenDevice(ibv_device* device, void* private_data) noexcept {
  EnsureConfigured();
  if (Real().verbs_open_device == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_context* ctx = Real().verbs_open_device(device, private_data);
  ShimStep("verbs_open_device", [ctx] { RegisterContext(ctx); });
  return ctx;
}

void VerbsSetOps(verbs_context* context, const void* ops) noexcept {
  if (Real().verbs_set_ops == nullptr) return;
  Real().verbs_set_ops(context, ops);
  if (context == nullptr || OwnContextScope::Active()) return;
  // Inside the provider's context creation (C frames): nothing may escape.
  // Out of memory leaves the context unemulated, as a device never seen.
  try {
    EnsureConfigured();
    RegisterContext(&context->context);
  } catch (...) {
    Warn(WarningCode::kContextNotRegistered);
  }
}

int CmdDestroyQp(ibv_qp* qp) noexcept {
  if (Real().ibv_cmd_destroy_qp == nullptr) return ENOSYS;
  // The shim destroying its own QP (padding), possibly under its registry
  // lock: nothing of the shim's to retire.
  if (OwnContextScope::Active()) return Real().ibv_cmd_destroy_qp(qp);
  // Reached from inside ibv_destroy_qp too, after the shim detached the QP:
  // then there is nothing left here to retire.
  std::unique_ptr<QpState> q = DetachQp(qp);
  try {
    FlushDeferred(q.get(), FlushReason::kDestroy);
  } catch (...) {  // its warning's text: the posts were handed over
  }
  const int rc = Real().ibv_cmd_destroy_qp(qp);
  // Inside the provider's destroy (C frames): recording the QP for the
  // report may run out of memory; the destroy's result stands.
  try {
    FinishDestroy(std::move(q), rc == 0);
  } catch (...) {
    Warn(WarningCode::kDestroyedQpUnrecorded);
  }
  return rc;
}

int CloseDevice(ibv_context* context) noexcept {
  ShimStep("ibv_close_device",
           [context] { TeardownContext(context, /*verbs_calls=*/true); });
  if (Real().close_device == nullptr) return ENOSYS;
  return Real().close_device(context);
}

void VerbsUninitContext(verbs_context* context) noexcept {
  // The shim closing its own context: nothing of the shim's to tear down,
  // and its registry lock may be held by this very thread.
  if (context != nullptr && !OwnContextScope::Active()) {
    ShimStep("verbs_uninit_context", [context] {
      TeardownContext(&context->context, /*verbs_calls=*/false);
    });
  }
  if (Real().verbs_uninit_context != nullptr) {
    Real().verbs_uninit_context(context);
  }
}

ibv_qp* CreateQp(ibv_pd* pd, ibv_qp_init_attr* attr) noexcept {
  if (Real().create_qp == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_qp* qp = Real().create_qp(pd, attr);
  if (qp != nullptr) {
    if (ContextState* c = E().contexts.Find(qp->context)) {
      RegisterQpNoThrow(c, qp, /*with_send_ops=*/false, QpOrigin::kVerbs,
                        &attr->cap, attr->sq_sig_all != 0);
    }
  }
  return qp;
}

int ModifyQp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask) noexcept {
  if (Real().modify_qp == nullptr) return ENOSYS;
  QpState* q = qp != nullptr ? LiveQp(qp) : nullptr;
  // A QP created where the shim did not see it (libefa's and other
  // providers' own creation calls, a privately loaded libibverbs) is
  // adopted here, before its first post, as if registered at creation.
  if (q == nullptr && qp != nullptr) q = AdoptQpNoThrow(qp);
  ShimStep("ibv_modify_qp", [q] { FlushDeferred(q, FlushReason::kModify); });
  const int rc = Real().modify_qp(qp, attr, attr_mask);
  if (rc != 0 || attr == nullptr) return rc;
  if (QpState* now = E().qps.Find(qp)) {
    (void)OnQpModifiedNoThrow(now, *attr, attr_mask);
  }
  return rc;
}

int DestroyQp(ibv_qp* qp) noexcept {
  if (Real().destroy_qp == nullptr) return ENOSYS;
  std::unique_ptr<QpState> q;
  ShimStep("ibv_destroy_qp", [&q, qp] {
    q = DetachQp(qp);
    FlushDeferred(q.get(), FlushReason::kDestroy);
  });
  const int rc = Real().destroy_qp(qp);
  ShimStep("ibv_destroy_qp",
           [&q, rc] { FinishDestroy(std::move(q), rc == 0); });
  return rc;
}

ibv_ah* CreateAh(ibv_pd* pd, ibv_ah_attr* attr) noexcept {
  if (Real().create_ah == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_ah* ah = Real().create_ah(pd, attr);
  if (ah != nullptr && attr != nullptr) {
    ShimStep("ibv_create_ah", [ah, attr] { ClassifyAh(ah, *attr); });
  }
  return ah;
}

int DestroyAh(ibv_ah* ah) noexcept {
  if (Real().destroy_ah == nullptr) return ENOSYS;
  ShimStep("ibv_destroy_ah", [ah] { ForgetAh(ah); });
  return Real().destroy_ah(ah);
}

ibv_cq* CreateCq(ibv_context* context, int cqe, void* cq_context,
                 ibv_comp_channel* channel, int comp_vector) noexcept {
  if (Real().create_cq == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_cq* cq = Real().create_cq(context, cqe, cq_context, channel, comp_vector);
  if (cq != nullptr) {
    if (ContextState* c = E().contexts.Find(context)) c->cqs.Add(1);
  }
  return cq;
}

int DestroyCq(ibv_cq* cq) noexcept {
  if (Real().destroy_cq == nullptr) return ENOSYS;
  DeferForgetCq(cq);
  const bool unwrapped = E().defer.on && ForgetCqEx(cq);
  const int rc = Real().destroy_cq(cq);
  // Refused: the CQ lives on with the provider's polls, which the shim's
  // completions do not reach.
  if (rc != 0 && unwrapped) DeferNoteExtendedCq(cq);
  return rc;
}

int GetCqEvent(ibv_comp_channel* channel, ibv_cq** cq,
               void** cq_context) noexcept {
  if (Real().get_cq_event == nullptr) return ENOSYS;
  // Defer: the application sleeps; what is due goes first.
  DeferBeforeBlock(channel != nullptr ? channel->context : nullptr);
  return Real().get_cq_event(channel, cq, cq_context);
}

void AtForkPrepare() {
  E().mu.lock();
  LockThreadCaches();
  HiddenQpsForkPrepare();
}

void AtForkParent() {
  HiddenQpsForkParent();
  UnlockThreadCaches();
  E().mu.unlock();
}

void AtForkChild() {
  Engine& e = E();
  HiddenQpsForkChild();
  UnlockThreadCaches();
  e.mu.unlock();
  ReportSignalForgetWatcher();
  std::lock_guard<std::mutex> lock(e.mu);
  ClearThreadCaches(/*forget_qps=*/false);
  DeferAfterForkInChild();
  e.retired.clear();
  e.folded.clear();
  for (auto& [key, q] : e.qp_owner) q->stats.Reset();
  ResetStatsLocked();
  RestartDeviceTrafficLocked();
}

void ResetForTesting() {
  Engine& e = E();
  ClearRecordedWarningsForTesting();
  std::lock_guard<std::mutex> lock(e.mu);
  e.configured.store(false, std::memory_order_release);
  ResetDeferLocked();
  ForgetAllLocked();
  e.next_stream = 0;
  e.classes.ah_laws.Clear();
  e.classes.classified_ahs = 0;
  e.loopback_qps = 0;
  e.have_loopback = false;
  ResetStatsLocked();
  {
    std::lock_guard<std::mutex> notes(e.bw.notes_mu);
    e.bw.notes.clear();
  }
  e.bypass.windows.clear();
  e.bypass.paths = TrafficPaths{};
  e.bw.resets = 0;
  // The ingress links a test made (at its rate, on its own segments): the
  // next test's QPs to the same address get links of their own.
  e.bw.ingress.ClearForTesting();
  for (auto& n : e.tables_full) n = 0;
  e.qps_full = false;
  ResetHiddenQpsForTesting();
}

void SetTrafficPathsForTesting(const TrafficPaths& paths) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  e.bypass.paths = paths;
}

bool GetQpCounters(const ibv_qp* qp, QpCounters* out) {
  QpState* q = E().qps.Find(qp);
  if (q == nullptr) return false;
  *out = q->stats.Snapshot();
  return true;
}

bool IsContextPatched(const ibv_context* context) {
  return E().contexts.Find(context) != nullptr;
}

size_t LiveQpCount() {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  return e.qp_owner.size();
}

}  // namespace verbsemu::shim::internal

namespace verbsemu::shim::internal {

size_t RetainedQpStateCount() {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  return e.graveyard.size() + e.retired.size();
}

}  // namespace verbsemu::shim::internal
