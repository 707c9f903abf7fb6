#include "verbsbench/internal/wait.h"

#include <poll.h>

#include <cerrno>

namespace verbsbench::internal {

void SleepForCqEvent(ibv_comp_channel* channel, double timeout_s,
                     const char* what) {
  pollfd p{channel->fd, POLLIN, 0};
  const int r = poll(&p, 1, static_cast<int>(timeout_s * 1000));
  if (r == 0) throw std::runtime_error(std::string("timed out ") + what);
  if (r < 0 && errno != EINTR)
    throw std::runtime_error("poll on completion channel failed");
  if (r > 0) {
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    if (ibv_get_cq_event(channel, &cq, &ctx))
      throw std::runtime_error("ibv_get_cq_event failed");
    ibv_ack_cq_events(cq, 1);
  }
}

}  // namespace verbsbench::internal
