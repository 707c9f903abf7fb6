#include "sweep/session.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace verbsemu::sweep {
namespace {

Interrupts g_interrupts;
static_assert(std::atomic<int>::is_always_lock_free);

constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, 3> g_old{};

extern "C" void OnSignal(int sig) {
  g_interrupts.signal.store(sig);
  g_interrupts.count.fetch_add(1);
}

}  // namespace

const Interrupts& SweepInterrupts() { return g_interrupts; }

// Each run is in a process group of its own, which the terminal's SIGINT
// does not reach, and a batch system's SIGTERM goes to the sweep alone: the
// sweep must live to pass them on.
SignalGuard::SignalGuard() {
  g_interrupts.count.store(0);
  g_interrupts.signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;  // no SA_RESTART
  for (size_t i = 0; i < kSignals.size(); ++i) {
    sigaction(kSignals[i], &sa, &g_old[i]);
  }
}

SignalGuard::~SignalGuard() {
  for (size_t i = 0; i < kSignals.size(); ++i) {
    sigaction(kSignals[i], &g_old[i], nullptr);
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) close(fd_);
}

bool DirLock::Take(const std::string& dir, std::string* why) {
  const std::string path = dir + "/" + kName;
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *why = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
  *why = errno == EWOULDBLOCK
             ? "another sweep is running in " + dir + " (it holds " + path +
                   "); wait for it to end"
             : "cannot lock " + path + ": " + std::strerror(errno);
  close(fd_);
  fd_ = -1;
  return false;
}

}  // namespace verbsemu::sweep
