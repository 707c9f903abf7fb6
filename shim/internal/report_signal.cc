#include "shim/internal/report_signal.h"

#include <pthread.h>
#include <semaphore.h>

#include <atomic>
#include <cerrno>
#include <csignal>

namespace verbsemu::shim::internal {
namespace {

sem_t g_requests;
std::atomic<bool> g_requests_ready{false};
std::atomic<bool> g_watcher_running{false};
int g_installed_signo = 0;  // a forked child inherits the handler with it
void (*g_write_report)() = nullptr;

void OnReportSignal(int) {
  if (!g_requests_ready.load(std::memory_order_acquire)) return;
  const int saved_errno = errno;
  sem_post(&g_requests);
  errno = saved_errno;
}

void* WatchRequests(void*) {
  // Signals go to the application's threads, never to this one.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  for (;;) {
    if (sem_wait(&g_requests) != 0) {
      if (errno == EINTR) continue;
      return nullptr;
    }
    g_write_report();
  }
}

bool ApplicationHandles(int signo) {
  struct sigaction current {};
  if (sigaction(signo, nullptr, &current) != 0) return true;
  if (current.sa_flags & SA_SIGINFO) return current.sa_sigaction != nullptr;
  return current.sa_handler != SIG_DFL;
}

}  // namespace

ReportSignalState ArmReportSignal(int signo, void (*write_report)()) {
  if (g_installed_signo != signo) {
    if (ApplicationHandles(signo)) return ReportSignalState::kAppHandlesIt;
    struct sigaction action {};
    action.sa_handler = OnReportSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(signo, &action, nullptr) != 0) {
      return ReportSignalState::kFailed;
    }
    g_installed_signo = signo;
  }
  if (g_watcher_running.load(std::memory_order_acquire)) {
    return ReportSignalState::kArmed;
  }
  if (!g_requests_ready.load(std::memory_order_acquire)) {
    if (sem_init(&g_requests, 0, 0) != 0) return ReportSignalState::kFailed;
    g_requests_ready.store(true, std::memory_order_release);
  }
  g_write_report = write_report;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t watcher;
  const int rc = pthread_create(&watcher, &attr, WatchRequests, nullptr);
  pthread_attr_destroy(&attr);
  if (rc != 0) return ReportSignalState::kFailed;
  g_watcher_running.store(true, std::memory_order_release);
  return ReportSignalState::kArmed;
}

void ReportSignalForgetWatcher() {
  g_watcher_running.store(false, std::memory_order_release);
}

}  // namespace verbsemu::shim::internal
