#include "shim/internal/forked_poster.h"

#include <infiniband/verbs.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"

namespace verbsemu::shim::internal {
namespace {

[[noreturn]] void PostAndReport(const std::string& device, int posts,
                                uint32_t bytes, int die_after, int fd) {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  sched_setaffinity(0, sizeof all, &all);
  FakeDevice d(device.c_str());
  d.record_posts = false;
  const FakeQpEnv e = MakeFakeQp(d, {.connect = true, .cq_depth = 4096});
  ibv_sge sge{0x1000, bytes, 1};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  for (int i = 0; i < posts; ++i) {
    if (die_after > 0 && i == die_after) raise(SIGKILL);
    ibv_send_wr* bad = nullptr;
    if (e.qp == nullptr || ibv_post_send(e.qp, &wr, &bad) != 0) _exit(2);
    const uint64_t stamp = d.last_post_tsc.load();
    if (write(fd, &stamp, sizeof stamp) != sizeof stamp) _exit(3);
  }
  _exit(0);
}

}  // namespace

ForkedPoster ForkPoster(const std::string& device, int posts, uint32_t bytes,
                        int die_after) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    PostAndReport(device, posts, bytes, die_after, fds[1]);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return {};
  }
  return {pid, fds[0]};
}

std::vector<uint64_t> CollectStamps(const ForkedPoster& p, int* status) {
  std::vector<uint64_t> stamps;
  uint64_t v;
  while (read(p.fd, &v, sizeof v) == sizeof v) stamps.push_back(v);
  close(p.fd);
  waitpid(p.pid, status, 0);
  return stamps;
}

}  // namespace verbsemu::shim::internal
