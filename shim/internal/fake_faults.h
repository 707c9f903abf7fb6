// The fake device's faulty mode: faults injected at random, each with its
// own probability, drawn from one seed, so that a test can show the shim
// survives what a real provider and network do to an application (its
// posts refused, its WRs completing in error, its QPs going to ERR under
// it, slow polls, a provider that starts threads or forks inside its
// calls). The faults are one table: a row per fault, its name,
// and what it does.
//
// Also the fake's completion channel (ibv_req_notify_cq arms a CQ; its next
// completion wakes ibv_get_cq_event) and its error state (a QP in ERR
// completes every WR it is given with IBV_WC_WR_FLUSH_ERR, as a provider
// flushes its send queue).
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_FAULTS_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_FAULTS_H_

#include <infiniband/verbs.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace verbsemu::shim::internal {

// X(enumerator, name, what it does)
#define VERBSEMU_FAKE_FAULTS(X)                                              \
  X(kPostEnomem, "post_enomem",                                              \
    "ibv_post_send refuses the WR with ENOMEM, as a full send queue does")   \
  X(kPostEagain, "post_eagain", "ibv_post_send refuses the WR with EAGAIN")  \
  X(kPostEinval, "post_einval",                                              \
    "ibv_post_send refuses the WR with EINVAL, as a WR the provider cannot " \
    "take")                                                                  \
  X(kWcError, "wc_error",                                                    \
    "the WR completes with IBV_WC_REM_ACCESS_ERR and its QP moves to ERR: "  \
    "later WRs complete with IBV_WC_WR_FLUSH_ERR")                           \
  X(kAsyncErr, "async_err",                                                  \
    "the QP moves to ERR before the WR, as on a broken link: it and later "  \
    "WRs complete with IBV_WC_WR_FLUSH_ERR")                                 \
  X(kSlowPoll, "slow_poll", "ibv_poll_cq spins 20 us before it looks")       \
  X(kThreadInCall, "thread_in_call",                                         \
    "the provider starts a thread inside the call (ibv_post_send, "          \
    "ibv_wr_complete, QP create, modify, destroy) and joins it before it "   \
    "returns, as providers with helper threads do")                          \
  X(kForkInCall, "fork_in_call",                                             \
    "the provider forks inside the call (the same calls); the child exits "  \
    "at once and the parent reaps it, as an MPI library starting a helper "  \
    "does")

enum class FakeFault : uint8_t {
#define VERBSEMU_FAULT_ENUM(e, name, what) e,
  VERBSEMU_FAKE_FAULTS(VERBSEMU_FAULT_ENUM)
#undef VERBSEMU_FAULT_ENUM
};

struct FaultRow {
  FakeFault fault;
  const char* name;
  const char* what;
};

inline constexpr FaultRow kFaultTable[] = {
#define VERBSEMU_FAULT_ROW(e, name, what) {FakeFault::e, name, what},
    VERBSEMU_FAKE_FAULTS(VERBSEMU_FAULT_ROW)
#undef VERBSEMU_FAULT_ROW
};
inline constexpr size_t kFaultCount = std::size(kFaultTable);

class FakeFaults {
 public:
  // The probability of `f` at each chance it has (0: never).
  void Set(FakeFault f, double probability);
  void Seed(uint64_t seed) { seed_.store(seed); }
  // Whether `f` strikes now (counted when it does).
  bool Roll(FakeFault f);
  uint64_t Injected(FakeFault f) const {
    return injected_[static_cast<size_t>(f)].load();
  }

 private:
  std::array<std::atomic<uint64_t>, kFaultCount> threshold_{};
  std::array<std::atomic<uint64_t>, kFaultCount> injected_{};
  std::atomic<uint64_t> seed_{0};
  std::atomic<uint64_t> draws_{0};
};

struct FakeQp;
struct FakeCq;

// The status the fake gives WR of `q` it takes (ERR: a flush; faults),
// moving the QP to ERR for a fault that does.
ibv_wc_status FakeWrStatus(FakeQp* q);
// ibv_post_send's fault for a WR: 0, or the errno it refuses it with.
int FakePostFault(FakeQp* q);
// What the provider does on entering a call besides its work: maybe a
// thread (kThreadInCall), maybe a fork (kForkInCall).
void FakeProviderChores(FakeFaults& faults);
// Completion channel: arming, a completion's event, and the wait for one
// (up to 5 s, then -1).
void FakeArm(FakeCq* f);
void FakeEventOnCompletion(FakeCq* f);  // caller holds f->mu
int FakeWaitCqEvent(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_FAULTS_H_
