#include "verbsbench/rte/mpi_world.h"

// verbsbench calls MPI's C interface only (the C++ bindings would need
// libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <stdexcept>
#include <thread>

namespace verbsbench::rte {
namespace {

using Clock = std::chrono::steady_clock;

// verbsbench's messages on its own communicator (a dup of the world).
constexpr int kTag = 0x7662;

void Check(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(what + ": " + std::string(text, length));
}

// Waiting without spinning for long: polls freely for 50 µs, then sleeps
// 10 µs, doubling up to 1 ms (a rank idle between commands wakes 1000 times
// a second; a command waits at most 1 ms more than over TCP).
class Backoff {
 public:
  void Pause() {
    if (Clock::now() - start_ < std::chrono::microseconds(50)) return;
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min(sleep_ * 2, std::chrono::microseconds(1000));
  }

 private:
  Clock::time_point start_ = Clock::now();
  std::chrono::microseconds sleep_{10};
};

class MpiChannel : public internal::Channel {
 public:
  MpiChannel(MPI_Comm comm, int remote)
      : comm_(comm), remote_(remote), name_("rank " + std::to_string(remote)) {}

  void Send(const nlohmann::json& message) override {
    const std::string text = message.dump();
    if (text.size() > static_cast<size_t>(INT_MAX)) {
      throw std::runtime_error("message to " + name_ + " too large (" +
                               std::to_string(text.size()) + " bytes)");
    }
    MPI_Request request = MPI_REQUEST_NULL;
    Check(MPI_Issend(text.data(), static_cast<int>(text.size()), MPI_CHAR,
                     remote_, kTag, comm_, &request),
          "MPI_Issend to " + name_);
    Backoff backoff;
    for (;;) {
      int done = 0;
      Check(MPI_Test(&request, &done, MPI_STATUS_IGNORE),
            "MPI_Test (send to " + name_ + ")");
      if (done) return;
      // Both ends may send at once (the buffer exchange): taking the
      // remote's message aside completes its send, and so this one.
      if (!TakeArrived()) backoff.Pause();
    }
  }

  nlohmann::json Recv(double timeout_s) override {
    const Clock::time_point deadline =
        Clock::now() +
        std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(std::max(0.0, timeout_s)));
    Backoff backoff;
    while (inbox_.empty() && !TakeArrived()) {
      if (timeout_s >= 0 && Clock::now() >= deadline) {
        throw std::runtime_error("timed out waiting for " + name_);
      }
      backoff.Pause();
    }
    const std::string text = std::move(inbox_.front());
    inbox_.pop_front();
    return nlohmann::json::parse(text);
  }

  const std::string& remote() const override { return name_; }

 private:
  // Receives the remote's next message into the inbox if one has arrived.
  bool TakeArrived() {
    int arrived = 0;
    MPI_Status status;
    Check(MPI_Iprobe(remote_, kTag, comm_, &arrived, &status),
          "MPI_Iprobe (" + name_ + ")");
    if (!arrived) return false;
    int count = 0;
    Check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
    std::string text(static_cast<size_t>(count), '\0');
    Check(MPI_Recv(text.data(), count, MPI_CHAR, remote_, kTag, comm_,
                   MPI_STATUS_IGNORE),
          "MPI_Recv from " + name_);
    inbox_.push_back(std::move(text));
    return true;
  }

  MPI_Comm comm_;
  int remote_;
  std::string name_;
  std::deque<std::string> inbox_;
};

}  // namespace

struct MpiWorld::Comm {
  MPI_Comm comm = MPI_COMM_NULL;
};

MpiWorld::MpiWorld() : comm_(std::make_unique<Comm>()) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {
    throw std::runtime_error(
        "MPI was finalized already (one MPI run per process)");
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    for (const McaDefault& d : kMcaDefaults) {
      setenv(d.variable, d.value, /*overwrite=*/0);
    }
    Check(MPI_Init(nullptr, nullptr), "MPI_Init");
    owns_init_ = true;
  }
  Check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_->comm), "MPI_Comm_dup");
  Check(MPI_Comm_set_errhandler(comm_->comm, MPI_ERRORS_RETURN),
        "MPI_Comm_set_errhandler");
  Check(MPI_Comm_rank(comm_->comm, &rank_), "MPI_Comm_rank");
  Check(MPI_Comm_size(comm_->comm, &size_), "MPI_Comm_size");
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(version, &length) == MPI_SUCCESS) {
    // Open MPI counts the terminating NUL in `length`.
    library_.assign(version, strnlen(version, static_cast<size_t>(length)));
    library_ = library_.substr(0, library_.find_first_of("\r\n"));
    library_.erase(library_.find_last_not_of(" \t") + 1);
  }
}

MpiWorld::~MpiWorld() {
  if (std::uncaught_exceptions() > 0) return;
  if (comm_->comm != MPI_COMM_NULL) MPI_Comm_free(&comm_->comm);
  if (owns_init_) MPI_Finalize();
}

std::unique_ptr<internal::Channel> MpiWorld::ChannelTo(int remote) const {
  if (remote < 0 || remote >= size_ || remote == rank_) {
    throw std::invalid_argument("no MPI channel from rank " +
                                std::to_string(rank_) + " to rank " +
                                std::to_string(remote));
  }
  return std::make_unique<MpiChannel>(comm_->comm, remote);
}

}  // namespace verbsbench::rte
