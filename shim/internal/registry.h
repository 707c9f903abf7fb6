// Which contexts and QPs the shim emulates: registration (patching the
// ops table and ibv_qp_ex slots before the object reaches the application),
// adoption of QPs first seen at their first post, and retirement.
#ifndef VERBSEMU_SHIM_INTERNAL_REGISTRY_H_
#define VERBSEMU_SHIM_INTERNAL_REGISTRY_H_

#include <infiniband/verbs.h>

#include <memory>
#include <string>

namespace verbsemu::shim::internal {

struct ContextState;
struct Engine;
struct QpState;

// While one lives on a thread, contexts opened there are the shim's own
// (its padding path): RegisterContext leaves them alone.
class OwnContextScope {
 public:
  OwnContextScope();
  ~OwnContextScope();
  OwnContextScope(const OwnContextScope&) = delete;
  OwnContextScope& operator=(const OwnContextScope&) = delete;
  // True on a thread inside one: libibverbs calling back into the shim's
  // hooks (verbs_open_device, verbs_uninit_context) for the shim's own
  // context, possibly while the shim holds its registry lock.
  static bool Active();
};

// Registers and patches `ctx` when its device is emulated; nullptr
// otherwise. Calibrates the TSC on the first device.
ContextState* RegisterContext(ibv_context* ctx);
// `with_send_ops`: the QP has ibv_qp_ex send ops whose slots get wrapped.
// Where a QP was made, and so whether its ibv_wr_* batches may be recorded:
// mlx5dv_create_qp's QPs may take mlx5dv_wr_* calls inside a batch, and a
// QP created with IBV_QP_EX_WITH_FLUSH may take ibv_wr_flush (rdma-core 45
// and later), a slot the shim does not wrap; their batches go straight to
// the provider. kOneWayOps: ibv_create_qp_ex's send ops hold no READ and no
// atomic, so a batch owes one one-way latency, waited before the
// provider's wr_start: with latency alone (spin mode, no bandwidth, no UD
// peer classes) its batches go straight to the provider too.
enum class QpOrigin : uint8_t { kVerbs, kDirectVerbs, kWithFlush, kOneWayOps };
// `cap`: the QP's queue sizes as created (the defer mode's ENOMEM bound);
// `sig_all`: the QP signals every WR (true when not known).
QpState* RegisterQp(ContextState* c, ibv_qp* qp, bool with_send_ops,
                    QpOrigin origin = QpOrigin::kVerbs,
                    const ibv_qp_cap* cap = nullptr, bool sig_all = true);
// As RegisterQp, for callers reached from C (the exported creation calls):
// nullptr, and the QP runs unemulated, when registering fails (out of
// memory) instead of an exception.
QpState* RegisterQpNoThrow(ContextState* c, ibv_qp* qp, bool with_send_ops,
                           QpOrigin origin = QpOrigin::kVerbs,
                           const ibv_qp_cap* cap = nullptr,
                           bool sig_all = true) noexcept;
// A QP the shim did not see being created (e.g. through a privately loaded
// libibverbs, or a provider's own creation call): learnt at its first
// ibv_modify_qp or first post, its ibv_qp_ex slots wrapped when it has
// send ops.
QpState* AdoptQp(ibv_qp* qp);
// As AdoptQp, for callers reached from C: nullptr (the QP unemulated)
// instead of an exception.
QpState* AdoptQpNoThrow(ibv_qp* qp) noexcept;
// The state of the QP at `qp`, or nullptr. A state whose QP number is not
// the QP's (destroyed where the shim could not see it, another QP created at
// the same address) is retired first, so the new QP is adopted fresh.
QpState* LiveQp(ibv_qp* qp);
// After a successful ibv_modify_qp: port, address vector, link at RTR, and
// the ibv_qp_ex slots wrapped again after a state change.
void OnQpModified(QpState* q, const ibv_qp_attr& attr, int attr_mask);
// ibv_destroy_qp in two steps: the shim forgets the QP before the provider
// destroys it (a QP created at the same address meanwhile starts fresh),
// then records it, or puts it back if the provider refused.
std::unique_ptr<QpState> DetachQp(ibv_qp* qp);
void FinishDestroy(std::unique_ptr<QpState> q, bool destroyed);
// `verbs_calls` false: libibverbs itself is tearing the device down, so the
// shim's objects are forgotten, not destroyed.
void TeardownContext(ibv_context* ctx, bool verbs_calls);
// Calibrates the TSC on first use. False when that failed: the process
// then runs without emulation (PassThroughLocked). Caller holds E().mu.
bool EnsureCalibratedLocked() noexcept;
// Emulation off for the whole process (what is patched stays, and forwards
// to the provider): `why` is printed once and kept for the report. Caller
// holds E().mu.
void PassThroughLocked(Engine& e, const std::string& why) noexcept;
// Forgets every context and QP without verbs calls (tests, fork).
void ForgetAllLocked();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REGISTRY_H_
