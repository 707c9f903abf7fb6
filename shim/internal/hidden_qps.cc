#include "shim/internal/hidden_qps.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "shim/internal/faults.h"
#include "shim/internal/no_destructor.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

using Key = std::pair<std::string, uint32_t>;  // device, QP number

constexpr size_t kMaxUnseen = 4096;

// The mechanism's own state (never destroyed: its thread may still look
// while the process exits).
struct Watch {
  std::mutex mu;
  // The live QPs the shim saw (a destroyed QP leaves the kernel's list
  // too, so it leaves this set: memory stays bounded under churn); under mu.
  std::set<Key> seen;
  std::set<Key> unseen;  // this process's QPs a look found unseen; under mu
  // QPs forgotten while a look was reading the kernel's list (which may
  // still hold them), by the look's number; under mu.
  std::map<Key, uint64_t> gone;
  uint64_t generation = 0;  // looks started; under mu
  int looking = 0;          // looks reading the list now; under mu
  int looks = 0;            // looks that read the kernel's list; under mu
  std::string error;        // the last failed look's reason; under mu
  pid_t watcher = 0;        // the process whose watcher runs; under mu
  bool start_failed = false;
  std::function<KernelQpList()> source;  // tests; else ListKernelQps
};

Watch& W() {
  static NoDestructor<Watch> w;
  return *w.get();
}

// This process's QPs in `list` on devices the settings emulate.
std::vector<Key> OursOnEmulatedDevices(const KernelQpList& list) {
  const uint32_t me = static_cast<uint32_t>(getpid());
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  std::vector<Key> ours;
  for (const KernelQp& q : list.qps) {
    if (q.pid == me && e.settings.EmulatesDevice(q.device)) {
      ours.emplace_back(q.device, q.qpn);
    }
  }
  return ours;
}

void Look() {
  Watch& w = W();
  std::function<KernelQpList()> source;
  uint64_t started;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    source = w.source ? w.source : ListKernelQps;
    started = ++w.generation;
    ++w.looking;
    std::erase_if(w.gone,
                  [&](const auto& g) { return g.second + 1 < started; });
  }
  const KernelQpList list = source();
  const std::vector<Key> ours =
      list.ok ? OursOnEmulatedDevices(list) : std::vector<Key>{};
  std::lock_guard<std::mutex> lock(w.mu);
  --w.looking;
  if (!list.ok) {
    w.error = list.error;
    return;
  }
  ++w.looks;
  for (const Key& k : ours) {
    // A QP the shim destroyed while the list was read is not hidden; the
    // set is bounded (a process hiding this many is reported all the same).
    const auto g = w.gone.find(k);
    const bool destroyed_meanwhile = g != w.gone.end() && g->second >= started;
    if (!w.seen.contains(k) && !destroyed_meanwhile &&
        w.unseen.size() < kMaxUnseen) {
      w.unseen.insert(k);
    }
  }
}

void WatchLoop() {
  pthread_setname_np(pthread_self(), "verbsemu-qps");
  // Soon after start, then once a second: a QP living a second is seen.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (;;) {
    Look();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// Unseen QPs that were not seen later either (adopted at a later post),
// per device. Caller holds w.mu.
std::map<std::string, std::vector<uint32_t>> HiddenLocked(const Watch& w) {
  std::map<std::string, std::vector<uint32_t>> hidden;
  for (const Key& k : w.unseen) {
    if (!w.seen.contains(k)) hidden[k.first].push_back(k.second);
  }
  return hidden;
}

std::string HiddenLine(const std::string& device,
                       const std::vector<uint32_t>& qpns) {
  std::string list;
  for (size_t i = 0; i < qpns.size() && i < 4; ++i) {
    char n[16];
    std::snprintf(n, sizeof n, "%s0x%06x", i ? ", " : "", qpns[i]);
    list += n;
  }
  if (qpns.size() > 4) list += ", ...";
  return NoteWarning(WarningCode::kHiddenQps,
                     {device, std::to_string(qpns.size()),
                      qpns.size() == 1 ? "QP" : "QPs", list});
}

}  // namespace

void NoteSeenQp(const std::string& device, uint32_t qpn) {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  w.seen.emplace(device, qpn);
  w.unseen.erase({device, qpn});  // found by a look before its first post
}

void ForgetSeenQp(const std::string& device, uint32_t qpn) {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  if (w.seen.erase({device, qpn}) != 0 && w.looking > 0) {
    w.gone[{device, qpn}] = w.generation;
  }
}

bool StartHiddenQpWatch() {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  if (w.watcher == getpid()) return true;
  // The watcher takes no signal: the application's handlers run on its own
  // threads, as they would without the shim.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread watcher;
  if (TryStartThread(&watcher, WatchLoop)) {
    watcher.detach();
    w.watcher = getpid();
  } else {
    w.start_failed = true;  // a thread limit: the look at exit only
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return w.watcher == getpid();
}

void CheckHiddenQpsNow() { Look(); }

bool HaveHiddenQps() {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  return !HiddenLocked(w).empty();
}

std::vector<std::string> HiddenQpReportLines() {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  std::vector<std::string> lines;
  for (const auto& [device, qpns] : HiddenLocked(w)) {
    lines.push_back(HiddenLine(device, qpns));
  }
  if (!lines.empty()) return lines;
  if (w.looks == 0) {
    lines.push_back("kernel QP check: not done (" +
                    (w.error.empty() ? std::string("no look yet") : w.error) +
                    "): QPs behind the shim cannot be ruled out");
  } else {
    lines.push_back(
        "kernel QP check: every QP of this process on an emulated device was "
        "seen by the shim (" +
        std::to_string(w.looks) + (w.looks == 1 ? " look" : " looks") +
        (w.start_failed ? ", at exit only: no thread for periodic looks" : "") +
        ")");
  }
  return lines;
}

void SetKernelQpSourceForTesting(std::function<KernelQpList()> source) {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  w.source = std::move(source);
}

size_t SeenQpCountForTesting() {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  return w.seen.size() + w.gone.size();
}

void ResetHiddenQpsForTesting() {
  Watch& w = W();
  std::lock_guard<std::mutex> lock(w.mu);
  w.seen.clear();
  w.unseen.clear();
  w.gone.clear();
  w.looks = 0;
  w.error.clear();
  w.start_failed = false;
}

void HiddenQpsForkPrepare() { W().mu.lock(); }
void HiddenQpsForkParent() { W().mu.unlock(); }

void HiddenQpsForkChild() {
  // No watcher runs in the child; what the parent found is the parent's.
  Watch& w = W();
  w.unseen.clear();
  w.looks = 0;
  w.error.clear();
  w.watcher = 0;
  w.mu.unlock();
}

}  // namespace verbsemu::shim::internal
