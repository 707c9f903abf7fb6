// The control channel between the root and a peer, as the measurement
// patterns see it: JSON messages in both directions. The TCP Control, the
// in-process Loopback and MPI (rte/mpi_world) implement it (UCX perf's rte
// idea: the patterns do not know how processes meet).
#ifndef VERBSBENCH_INTERNAL_CHANNEL_H_
#define VERBSBENCH_INTERNAL_CHANNEL_H_

#include <nlohmann/json.hpp>
#include <string>

namespace verbsbench::internal {

class Channel {
 public:
  virtual ~Channel() = default;
  virtual void Send(const nlohmann::json& message) = 0;
  // Next message; throws on a closed channel or after timeout_s (< 0: wait
  // forever).
  virtual nlohmann::json Recv(double timeout_s = -1) = 0;
  // Who is at the other end, for messages.
  virtual const std::string& remote() const = 0;
  // For waiting on this channel and another event source at once (rdma_cm
  // setup): a descriptor that polls readable when a message arrives, or -1
  // when the channel has none (MPI; rdma_cm is then not offered), and
  // whether a whole message is already buffered (poll would not show it).
  virtual int fd() const { return -1; }
  virtual bool has_buffered_message() const { return false; }

  // Next message, which must have "type" == type; a peer's "error" message
  // becomes an exception carrying its text.
  nlohmann::json Expect(const std::string& type, double timeout_s = -1);
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_CHANNEL_H_
