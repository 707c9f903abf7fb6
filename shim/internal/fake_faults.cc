#include "shim/internal/fake_faults.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "shim/internal/fake_device.h"
#include "shim/internal/no_destructor.h"

namespace verbsemu::shim::internal {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

struct Channels {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<ibv_comp_channel*, ibv_cq*>> events;  // under mu
};

Channels& TheChannels() {
  static NoDestructor<Channels> channels;
  return *channels.get();
}

}  // namespace

void FakeFaults::Set(FakeFault f, double probability) {
  const double p = probability <= 0 ? 0 : probability >= 1 ? 1 : probability;
  // 2^64 * p, short of the top so that p = 1 strikes always.
  const auto t = static_cast<uint64_t>(p * 18446744073709549568.0);
  threshold_[static_cast<size_t>(f)].store(p >= 1 ? ~uint64_t{0} : t);
}

bool FakeFaults::Roll(FakeFault f) {
  const auto i = static_cast<size_t>(f);
  const uint64_t t = threshold_[i].load(std::memory_order_relaxed);
  if (t == 0) return false;
  const uint64_t x =
      SplitMix64(seed_.load(std::memory_order_relaxed) ^
                 SplitMix64(draws_.fetch_add(1) * kFaultCount + i));
  if (x >= t && t != ~uint64_t{0}) return false;
  injected_[i].fetch_add(1);
  return true;
}

ibv_wc_status FakeWrStatus(FakeQp* q) {
  FakeFaults& faults = q->ctx->owner->faults;
  if (q->in_error.load()) return IBV_WC_WR_FLUSH_ERR;
  if (faults.Roll(FakeFault::kAsyncErr)) {
    q->in_error.store(true);
    return IBV_WC_WR_FLUSH_ERR;
  }
  if (faults.Roll(FakeFault::kWcError)) {
    q->in_error.store(true);
    return IBV_WC_REM_ACCESS_ERR;
  }
  return IBV_WC_SUCCESS;
}

int FakePostFault(FakeQp* q) {
  FakeFaults& faults = q->ctx->owner->faults;
  if (faults.Roll(FakeFault::kPostEnomem)) return ENOMEM;
  if (faults.Roll(FakeFault::kPostEagain)) return EAGAIN;
  if (faults.Roll(FakeFault::kPostEinval)) return EINVAL;
  return 0;
}

void FakeProviderChores(FakeFaults& faults) {
  if (faults.Roll(FakeFault::kThreadInCall)) {
    std::atomic<int> ran{0};
    try {
      std::thread([&ran] { ran.store(1); }).join();
    } catch (const std::system_error&) {
      // No thread to be had: the provider goes on without it.
    }
  }
  if (faults.Roll(FakeFault::kForkInCall)) {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void FakeArm(FakeCq* f) {
  std::lock_guard<std::mutex> lock(f->mu);
  f->armed = true;
}

void FakeEventOnCompletion(FakeCq* f) {
  if (!f->armed || f->cq.channel == nullptr) return;
  f->armed = false;
  Channels& ch = TheChannels();
  {
    std::lock_guard<std::mutex> lock(ch.mu);
    ch.events.emplace_back(f->cq.channel, &f->cq);
  }
  ch.cv.notify_all();
}

int FakeWaitCqEvent(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context) {
  Channels& ch = TheChannels();
  std::unique_lock<std::mutex> lock(ch.mu);
  const auto mine = [&] {
    for (auto it = ch.events.begin(); it != ch.events.end(); ++it) {
      if (it->first != channel) continue;
      *cq = it->second;
      *cq_context = it->second->cq_context;
      ch.events.erase(it);
      return true;
    }
    return false;
  };
  return ch.cv.wait_for(lock, std::chrono::seconds(5), mine) ? 0 : -1;
}

}  // namespace verbsemu::shim::internal
