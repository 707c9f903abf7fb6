// The validity check from the kernel: every QP this process owns on an
// emulated device (kernel_qps.h, RDMA netlink) must be one the shim saw
// (registered, adopted, created through a provider on a context the shim
// patched, or its own padding QP). A QP it never saw carries traffic the
// shim cannot delay or narrow: the report says so in a WARNING line, which
// makes a sweep run invalid. Unlike port counters, this cannot be fooled by
// symmetric traffic, and other processes' or the kernel's traffic cannot
// raise it.
#ifndef VERBSEMU_SHIM_INTERNAL_HIDDEN_QPS_H_
#define VERBSEMU_SHIM_INTERNAL_HIDDEN_QPS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "shim/internal/kernel_qps.h"

namespace verbsemu::shim::internal {

// The shim saw QP `qpn` on `device`; and, when it is destroyed, forgets it.
void NoteSeenQp(const std::string& device, uint32_t qpn);
void ForgetSeenQp(const std::string& device, uint32_t qpn);

// Starts the periodic look at the kernel's list (a thread that sleeps
// between looks, signals blocked), once per process; false when it could
// not (the report then relies on the look at exit alone, and says so).
bool StartHiddenQpWatch();
// Looks at the kernel's list now.
void CheckHiddenQpsNow();
// The report's lines: a WARNING per device with QPs of this process the
// shim never saw, or a note when the kernel's list could not be read.
std::vector<std::string> HiddenQpReportLines();
// True when some QP of this process was never seen.
bool HaveHiddenQps();

// Tests: where the kernel's list comes from, and a fresh state.
void SetKernelQpSourceForTesting(std::function<KernelQpList()> source);
size_t SeenQpCountForTesting();
void ResetHiddenQpsForTesting();
// pthread_atfork: the state's lock is held across fork; in the child no
// watcher runs, and what the parent found stays the parent's.
void HiddenQpsForkPrepare();
void HiddenQpsForkParent();
void HiddenQpsForkChild();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_HIDDEN_QPS_H_
