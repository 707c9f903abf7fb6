#include "shim/cm_events.h"

#include <fcntl.h>
#include <poll.h>

#include <cstdio>
#include <cstring>

namespace verbsemu::cm_cycles {

uint64_t current_cycle = 0;

// Prints the run's one failure line; returns false for `return Fail(...)`.
bool FailWith(const std::string& what, const std::string& why) {
  if (current_cycle > 0) {
    std::fprintf(stderr, "cm_cycles: cycle %llu: %s: %s\n",
                 static_cast<unsigned long long>(current_cycle), what.c_str(),
                 why.c_str());
  } else {
    std::fprintf(stderr, "cm_cycles: %s: %s\n", what.c_str(), why.c_str());
  }
  return false;
}
bool Fail(const std::string& what, int err) {
  return FailWith(what, std::strerror(err));
}

bool CmEvents::Open() {
  for (Side side : {kServer, kClient}) {
    const std::string who = kSideName[side];
    channels_[side].reset(rdma_create_event_channel());
    if (!channels_[side]) return Fail(who + ": rdma_create_event_channel");
    // Non-blocking: poll(2) decides when to read, and Drain reads until
    // EAGAIN without ever blocking the other end's progress.
    const int fd = channels_[side]->fd;
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
      return Fail(who + ": fcntl O_NONBLOCK on the event channel");
    }
  }
  return true;
}

bool CmEvents::Next(Side side, rdma_cm_event_type want, CmEvent& out) {
  const std::string what =
      std::string(kSideName[side]) + ": waiting for " + rdma_event_str(want);
  const Clock::time_point deadline = Clock::now() + kWaitTimeout;
  for (;;) {
    while (!pending_[side].empty()) {
      out = pending_[side].front();
      pending_[side].pop_front();
      // Ids are destroyed right after DISCONNECTED; a TIMEWAIT_EXIT that
      // slipped in between concerns a connection already gone.
      if (out.type == RDMA_CM_EVENT_TIMEWAIT_EXIT) continue;
      if (out.type == want) return true;
      return FailWith(what, std::string("got ") + rdma_event_str(out.type) +
                                " (status " + std::to_string(out.status) + ")");
    }
    if (!WaitReadable(deadline, what)) return false;
  }
}

bool CmEvents::WaitReadable(Clock::time_point deadline,
                            const std::string& what) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - Clock::now());
  if (left.count() <= 0) return TimedOut(what);
  std::array<pollfd, 2> fds = {{{channels_[kClient]->fd, POLLIN, 0},
                                {channels_[kServer]->fd, POLLIN, 0}}};
  if (poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0) {
    return errno == EINTR || Fail(what + ": poll");
  }
  for (Side side : {kClient, kServer}) {
    if (fds[side].revents != 0 && !Drain(side)) return false;
  }
  return true;
}

// A timeout, with what the other end's channel got instead, if anything:
// often the real failure (REJECTED, UNREACHABLE, ...).
bool CmEvents::TimedOut(const std::string& what) const {
  std::string why = std::strerror(ETIMEDOUT);
  for (Side side : {kClient, kServer}) {
    if (pending_[side].empty()) continue;
    const CmEvent& e = pending_[side].front();
    why += std::string("; queued for the ") + kSideName[side] + ": " +
           rdma_event_str(e.type) + " (status " + std::to_string(e.status) +
           ")";
  }
  return FailWith(what, why);
}

bool CmEvents::Drain(Side side) {
  for (;;) {
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(channels_[side].get(), &event) != 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      return Fail(std::string(kSideName[side]) + ": rdma_get_cm_event");
    }
    pending_[side].push_back({event->event, event->status, event->id});
    rdma_ack_cm_event(event);
  }
}

}  // namespace verbsemu::cm_cycles
