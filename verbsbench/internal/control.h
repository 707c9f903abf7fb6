// TCP control channel between the root and its peers: newline-delimited JSON
// messages. Carries commands, the out-of-band QP exchange (when rdma_cm is
// not used) and the peers' results.
#ifndef VERBSBENCH_INTERNAL_CONTROL_H_
#define VERBSBENCH_INTERNAL_CONTROL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "verbsbench/internal/channel.h"
#include "verbsbench/internal/line_buffer.h"
#include "verbsbench/internal/verbs.h"

namespace verbsbench::internal {

class Control : public Channel {
 public:
  // Listening socket on bind_address:port ("" = any address).
  static Fd Listen(const std::string& bind_address, uint16_t port);
  // Waits up to timeout_s (< 0: forever) for one connection.
  static Control Accept(const Fd& listener, double timeout_s);
  // Connects, retrying refused connections until timeout_s has passed.
  static Control Connect(const std::string& host, uint16_t port,
                         double timeout_s);

  void Send(const nlohmann::json& message) override;
  nlohmann::json Recv(double timeout_s = -1) override;
  const std::string& remote() const override { return remote_; }
  int fd() const override { return fd_.get(); }
  bool has_buffered_message() const override { return lines_.HasLine(); }

 private:
  Control(Fd fd, std::string remote)
      : fd_(std::move(fd)), remote_(std::move(remote)) {}
  Fd fd_;
  std::string remote_;
  LineBuffer lines_;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_CONTROL_H_
