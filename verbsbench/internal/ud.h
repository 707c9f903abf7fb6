// The fabric's UD side, for LoP's list-posted 1:n round: one UD QP per
// process with its own CQs and buffer, and one address handle per remote UD
// QP (the root: one per peer; a peer: one to the root). A list of WRs on an
// RC QP reaches one peer; on one UD QP with p address handles one
// ibv_post_send reaches p.
#ifndef VERBSBENCH_INTERNAL_UD_H_
#define VERBSBENCH_INTERNAL_UD_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verbsbench/internal/verbs.h"

namespace verbsbench::internal {

struct UdConfig {
  ibv_context* context = nullptr;
  ibv_pd* pd = nullptr;
  uint8_t port = 1;
  ibv_port_attr port_attr{};
  uint8_t gid_index = 0;
  ibv_gid gid{};
  bool global = false;  // address handles carry a GRH (RoCE, or a GID index)
  uint32_t sq_depth = 128;
  uint32_t rq_depth = 256;
  uint32_t max_inline = 256;  // requested; the device may grant less
  size_t max_size = 8;        // largest message: at most the path MTU
};

// Where a UD send goes.
struct UdDestination {
  AhPtr ah;
  uint32_t qpn = 0;
  uint32_t qkey = 0;
};

class UdQp {
 public:
  // Every UD QP of a run shares it (the high bit clear: not a privileged
  // Q_Key).
  static constexpr uint32_t kQkey = 0x4c6f5000;
  // A UD receive buffer starts with room for the GRH.
  static constexpr size_t kGrhBytes = 40;

  // Creates the QP in RTS with rq_depth receives posted; throws when
  // max_size exceeds the port's MTU.
  explicit UdQp(const UdConfig& config);

  // What the other side needs: {"type":"ud","qpn","qkey","lid","gid","mtu"}.
  nlohmann::json LocalAddress() const;
  // Adds an address handle to the other side's LocalAddress(); throws when
  // max_size exceeds the path MTU.
  void AddDestination(const nlohmann::json& remote);

  int destinations() const { return static_cast<int>(destinations_.size()); }
  const UdDestination& destination(int i) const {
    return destinations_.at(static_cast<size_t>(i));
  }
  ibv_qp* qp() const { return qp_.get(); }
  ibv_cq* send_cq() const { return send_cq_.get(); }
  ibv_cq* recv_cq() const { return recv_cq_.get(); }
  ibv_comp_channel* recv_channel() const { return recv_channel_.get(); }
  uint32_t max_inline() const { return max_inline_; }
  uint32_t sq_depth() const { return config_.sq_depth; }
  size_t max_size() const { return config_.max_size; }
  uint8_t* send_buf() const { return buffer_.get(); }
  uint32_t lkey() const { return mr_->lkey; }

  // Receives: rq_depth kept posted, each into a slot of its own.
  void PostRecvs(uint32_t n);
  void Consumed(uint32_t n) { posted_recvs_ -= n; }
  uint32_t RecvsMissing() const { return config_.rq_depth - posted_recvs_; }

 private:
  void CreateCqs();
  void CreateQp();
  void ToRts();

  UdConfig config_;
  // Declared in creation order: destroyed in reverse (AHs and QP first).
  CompChannelPtr recv_channel_;  // recv CQ events (--wait event)
  CqPtr send_cq_;
  CqPtr recv_cq_;
  BufferPtr buffer_;  // the send message, then rq_depth receive slots
  MrPtr mr_;
  QpPtr qp_;
  std::vector<UdDestination> destinations_;
  size_t slot_bytes_ = 0;
  uint32_t max_inline_ = 0;
  uint32_t posted_recvs_ = 0;
  uint32_t next_slot_ = 0;
};

// "lop's list round sends UD messages, which carry at most one MTU: ...",
// the one line a too-large message gets.
std::string UdTooLarge(size_t size, size_t mtu_bytes);

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_UD_H_
