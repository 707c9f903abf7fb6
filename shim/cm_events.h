// The event and object plumbing of cm_cycles (shim/cm_cycles.cc): RAII
// owners for the rdma_cm and verbs objects, the one failure line, and the
// two event channels one thread waits on.
#ifndef VERBSEMU_SHIM_CM_EVENTS_H_
#define VERBSEMU_SHIM_CM_EVENTS_H_

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

namespace verbsemu::cm_cycles {

using Clock = std::chrono::steady_clock;

// A cycle on rxe takes milliseconds: a step that has not happened within
// this long is stuck, and the run says which step.
constexpr std::chrono::milliseconds kWaitTimeout(5000);

template <auto Destroy>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    if (p) Destroy(p);
  }
};
using ChannelPtr =
    std::unique_ptr<rdma_event_channel, Deleter<rdma_destroy_event_channel>>;
using CmIdPtr = std::unique_ptr<rdma_cm_id, Deleter<rdma_destroy_id>>;
using PdPtr = std::unique_ptr<ibv_pd, Deleter<ibv_dealloc_pd>>;
using CqPtr = std::unique_ptr<ibv_cq, Deleter<ibv_destroy_cq>>;
using MrPtr = std::unique_ptr<ibv_mr, Deleter<ibv_dereg_mr>>;

// A QP made by rdma_create_qp belongs to its cm id and is destroyed through
// it.
struct CmQpDeleter {
  void operator()(rdma_cm_id* id) const {
    if (id) rdma_destroy_qp(id);
  }
};
using CmQpPtr = std::unique_ptr<rdma_cm_id, CmQpDeleter>;

// The cycle under way, so a failure deep in one says which (0: setup).
extern uint64_t current_cycle;

// Prints the run's one failure line; returns false for `return Fail(...)`.
bool FailWith(const std::string& what, const std::string& why);
bool Fail(const std::string& what, int err = errno);

enum Side { kClient = 0, kServer = 1 };
constexpr std::array<const char*, 2> kSideName = {"client", "server"};

struct CmEvent {
  rdma_cm_event_type type = RDMA_CM_EVENT_ADDR_ERROR;
  int status = 0;
  rdma_cm_id* id = nullptr;
};

// The client's event channel and the listener's (which also carries the
// accepted ids' events). One thread waits on both, so the event one step
// waits for may come after the other end's: every event read is queued per
// channel. Each is acked as soon as it is read, so rdma_destroy_id never
// waits on an unacked one.
class CmEvents {
 public:
  bool Open();
  rdma_event_channel* channel(Side side) { return channels_[side].get(); }
  // The next event on `side`'s channel, which must be of type `want`.
  bool Next(Side side, rdma_cm_event_type want, CmEvent& out);

 private:
  bool WaitReadable(Clock::time_point deadline, const std::string& what);
  bool TimedOut(const std::string& what) const;
  bool Drain(Side side);

  std::array<ChannelPtr, 2> channels_;
  std::array<std::deque<CmEvent>, 2> pending_;
};

}  // namespace verbsemu::cm_cycles

#endif  // VERBSEMU_SHIM_CM_EVENTS_H_
