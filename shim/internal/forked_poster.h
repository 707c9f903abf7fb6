// Tests and benchmarks of the shared link: a forked process that posts on
// its own context of a fake device's port 1 and reports each post's device
// stamp through a pipe (processes pacing on one port share its link).
#ifndef VERBSEMU_SHIM_INTERNAL_FORKED_POSTER_H_
#define VERBSEMU_SHIM_INTERNAL_FORKED_POSTER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace verbsemu::shim::internal {

struct ForkedPoster {
  pid_t pid = -1;  // -1: fork or pipe failed
  int fd = -1;     // read end: one uint64_t TSC stamp per post
};

// Forks a process (on every CPU, whatever the parent's pinning) that posts
// `posts` messages of `bytes` (one RDMA WRITE each, ibv_post_send) on device
// `device` through the shim as configured in the parent; with `die_after`
// > 0 it kills itself (SIGKILL: no exit handlers, as a crashing rank) after
// that many posts.
ForkedPoster ForkPoster(const std::string& device, int posts, uint32_t bytes,
                        int die_after = 0);

// Every stamp the poster wrote; waits for it and stores its wait status.
std::vector<uint64_t> CollectStamps(const ForkedPoster& p, int* status);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FORKED_POSTER_H_
