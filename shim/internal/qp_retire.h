// How the shim lets a QP's state go: detached from the lookup map and the
// owner table, recorded for the report, and freed once no thread cache names
// it (registry.h has the callers' entry points: LiveQp, DetachQp,
// FinishDestroy).
#ifndef VERBSEMU_SHIM_INTERNAL_QP_RETIRE_H_
#define VERBSEMU_SHIM_INTERNAL_QP_RETIRE_H_

#include <memory>

#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

// Takes `q` out of the lookup map and the owner table. Caller holds e.mu.
std::unique_ptr<QpState> DetachQpLocked(QpState* q);
// Records a detached QP for the report and lets its state go. `verbs_calls`
// false: the device is being torn down by libibverbs itself, so the shim's
// objects are forgotten, not destroyed. Caller holds e.mu.
void RetireDetachedLocked(std::unique_ptr<QpState> q, bool verbs_calls);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_QP_RETIRE_H_
