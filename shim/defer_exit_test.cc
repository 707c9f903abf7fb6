// The defer mode across fork and exit, in real child processes: a forked
// child defers its own posts while the parent's held posts still reach the
// device once, from the parent; a child that exits with posts held hands
// them over at exit; exit() from a signal handler neither aborts (the
// handler never runs on the progress thread) nor hangs (the exit flush
// only tries a lock the interrupted thread holds).
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

// A forked child of this multi-threaded test starts threads of its own
// (the defer progress thread), which TSan allows only when told; and the
// application these tests play calls exit() in a signal handler, which
// POSIX does not allow (common all the same): what is tested is that the
// shim neither aborts nor hangs then.
extern "C" const char* __tsan_default_options() {
  return "die_after_fork=0:report_signal_unsafe=0";
}

namespace verbsemu::shim::internal {
namespace {

struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

// The shim's fork handlers, as libverbsemu.so registers them.
void RegisterForkHandlers() {
  static std::once_flag once;
  std::call_once(
      once, [] { pthread_atfork(AtForkPrepare, AtForkParent, AtForkChild); });
}

// The child's end of a pipe to the parent: what the device saw, in order.
void ReportRecordsTo(FakeDevice& d, int fd) {
  d.on_record = [fd](const PostRecord& r) {
    const uint64_t id = r.wr_id;
    if (write(fd, &id, sizeof(id)) != sizeof(id)) _exit(90);
  };
}

// Reads wr_ids from `fd` until the writer closes it.
std::vector<uint64_t> ReadIds(int fd) {
  std::vector<uint64_t> ids;
  uint64_t id = 0;
  while (read(fd, &id, sizeof(id)) == sizeof(id)) ids.push_back(id);
  return ids;
}

void PostIds(ibv_qp* qp, std::initializer_list<uint64_t> ids) {
  for (uint64_t id : ids) {
    Chain ch(1, 64);
    ch.wrs[0].wr_id = id;
    if (Post(qp, ch) != 0) _exit(91);
  }
}

// Runs `child` in a forked child whose records come back through a pipe;
// returns its wait status and the wr_ids its device saw.
template <class Child>
int RunChild(FakeDevice& d, Child child, std::vector<uint64_t>* ids) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(20);  // a hang ends as SIGALRM
    ReportRecordsTo(d, fds[1]);
    child();
    _exit(92);  // the child ends itself
  }
  close(fds[1]);
  *ids = ReadIds(fds[0]);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// In the child: a QP of its own holding post `id` (which starts the
// progress thread), and a SIGUSR1 handler that calls exit(0).
FakeQpEnv HeldPostAndExitOnUsr1(FakeDevice& d, uint64_t id) {
  FakeQpEnv mine = MakeFakeQp(d, {});
  if (mine.qp == nullptr) _exit(93);
  PostIds(mine.qp, {id});
  struct sigaction sa {};
  sa.sa_handler = [](int) { std::exit(0); };
  sigaction(SIGUSR1, &sa, nullptr);
  return mine;
}

class DeferExitTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    RegisterForkHandlers();
  }
};

TEST_F(DeferExitTest, AForkedChildDefersItsOwnPostsAndTheParentsArriveOnce) {
  ConfigureDefer(50e6);  // the parent's posts are held across the fork
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  PostIds(r.qp, {1, 2, 3});
  std::vector<uint64_t> seen;
  const int status = RunChild(
      d,
      [&] {
        FakeQpEnv mine = MakeFakeQp(d, {});
        if (mine.qp == nullptr) _exit(93);
        PostIds(mine.qp, {42});
        ibv_wc wc[4];
        const auto end =
            std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (d.post_calls.load() == 0 &&
               std::chrono::steady_clock::now() < end) {
          ibv_poll_cq(mine.cq, 4, wc);
          ibv_poll_cq(r.cq, 4, wc);  // the parent's QP: nothing to hand over
        }
        _exit(0);
      },
      &seen);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(seen, std::vector<uint64_t>{42}) << "the child sent the parent's";
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 3, std::chrono::seconds(5)));
  std::vector<uint64_t> parent;
  for (const PostRecord& p : d.Posts()) parent.push_back(p.wr_id);
  EXPECT_EQ(parent, (std::vector<uint64_t>{1, 2, 3}));
}

TEST_F(DeferExitTest, AChildExitingWithHeldPostsHandsThemOver) {
  ConfigureDefer(10e9);  // never due before the exit
  FakeDevice d("fake0");
  StopEngineFirst stop;
  std::vector<uint64_t> seen;
  const int status = RunChild(
      d,
      [&] {
        FakeQpEnv mine = MakeFakeQp(d, {});
        PostIds(mine.qp, {7, 8, 9});
        std::exit(0);
      },
      &seen);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(seen, (std::vector<uint64_t>{7, 8, 9}));
}

TEST_F(DeferExitTest, ExitFromAHandlerWhileTheProgressThreadRunsDoesNotAbort) {
  ConfigureDefer(10e9);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  std::vector<uint64_t> seen;
  const int status = RunChild(
      d,
      [&] {
        HeldPostAndExitOnUsr1(d, 5);
        // Only a thread that does not block the signal can take it: while
        // this one blocks it, the progress thread would, if it let it in.
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
        kill(getpid(), SIGUSR1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        pthread_sigmask(SIG_UNBLOCK, &usr1, nullptr);
        _exit(94);  // the handler did not run
      },
      &seen);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(seen, std::vector<uint64_t>{5});
}

TEST_F(DeferExitTest, ExitFromAHandlerInsideTheShimDoesNotHang) {
  ConfigureDefer(10e9);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  std::vector<uint64_t> seen;
  const int status = RunChild(
      d,
      [&] {
        FakeQpEnv mine = HeldPostAndExitOnUsr1(d, 6);
        // As if the signal came while this thread posted: it holds the
        // QP's queue lock when its handler calls exit().
        QpState* q = E().qps.Find(mine.qp);
        if (q == nullptr || q->defer == nullptr) _exit(95);
        q->defer->mu.lock();
        raise(SIGUSR1);
        _exit(94);
      },
      &seen);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(seen.empty()) << "handed over under a lock the thread held";
}

}  // namespace
}  // namespace verbsemu::shim::internal
