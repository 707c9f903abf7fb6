// An in-process control channel: two connected ends, each message passed
// as its JSON text (as over TCP), so patterns, peers and modes run in tests
// with no network and no device.
#ifndef VERBSBENCH_INTERNAL_LOOPBACK_H_
#define VERBSBENCH_INTERNAL_LOOPBACK_H_

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "verbsbench/internal/channel.h"

namespace verbsbench::internal {

class Loopback : public Channel {
 public:
  // Two connected ends named `a` and `b` (each end's remote() is the other).
  static std::pair<std::unique_ptr<Loopback>, std::unique_ptr<Loopback>> Pair(
      const std::string& a = "root", const std::string& b = "peer");

  void Send(const nlohmann::json& message) override;
  nlohmann::json Recv(double timeout_s = -1) override;
  const std::string& remote() const override { return remote_; }
  // Ends the channel: the other end's Recv throws once its queue is empty.
  void Close();

 private:
  struct Key {
    explicit Key() = default;
  };

 public:
  struct Queue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::string> lines;
    bool closed = false;
  };
  // Made by Pair only (the key is private).
  Loopback(Key, std::shared_ptr<Queue> in, std::shared_ptr<Queue> out,
           std::string remote)
      : in_(std::move(in)), out_(std::move(out)), remote_(std::move(remote)) {}

 private:
  std::shared_ptr<Queue> in_;
  std::shared_ptr<Queue> out_;
  std::string remote_;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_LOOPBACK_H_
