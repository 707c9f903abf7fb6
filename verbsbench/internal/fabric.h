// Device resources and connected RC endpoints. Connection setup goes through
// librdmacm, or falls back to exchanging QP attributes over the control
// channel (out of band: TCP or MPI). Capabilities are probed at run time.
#ifndef VERBSBENCH_INTERNAL_FABRIC_H_
#define VERBSBENCH_INTERNAL_FABRIC_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verbsbench/internal/channel.h"
#include "verbsbench/internal/ud.h"
#include "verbsbench/internal/verbs.h"
#include "verbsbench/options.h"

namespace verbsbench::internal {

struct FabricConfig {
  Cm cm = Cm::kAuto;
  std::string ib_dev;  // tcp mode: device name ("" = first)
  int ib_port = 1;
  int gid_index = -1;      // -1: auto (IPv4-mapped RoCEv2 GID if any)
  size_t max_size = 4096;  // largest message
  uint32_t sq_depth = 128;
  uint32_t rq_depth = 256;
  uint32_t max_inline = 256;  // requested; the device may grant less
  double timeout_s = 30;
  Wait wait = Wait::kSpin;  // root → peers (Options::wait)
  // A UD QP besides the RC endpoints (lop with send: the list-posted
  // round); the root passes it to the peers.
  bool ud = false;
};

struct Endpoint {
  int index = 0;
  // rdma_cm mode: the id owns the QP (destroyed first: declared last).
  CmIdPtr cm_id;
  CmQpPtr cm_qp;
  QpPtr qp_owned;  // out-of-band mode
  ibv_qp* qp = nullptr;
  BufferPtr buffer;
  MrPtr mr;
  uint8_t* send_buf = nullptr;
  uint8_t* recv_buf = nullptr;
  uint64_t remote_recv = 0;  // peer's recv half (RDMA write target)
  uint64_t remote_send = 0;  // peer's send half (RDMA read source)
  uint32_t rkey = 0;
  // Send-queue accounting: WRs posted but not known complete.
  uint32_t outstanding = 0;
  uint32_t since_signal = 0;
  uint32_t signaled_pending = 0;
  uint32_t posted_recvs = 0;
};

class Fabric {
 public:
  explicit Fabric(FabricConfig config);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // Root: connects one endpoint per peer channel, in order (rdma_cm listens
  // on bind_address:cm_port; rdma_cm needs channels with an fd()).
  void AcceptPeers(const std::vector<Channel*>& peers,
                   const std::string& bind_address, uint16_t cm_port);
  // Peer: connects to the root over its channel (rdma_cm: to host).
  void ConnectToRoot(Channel& root, const std::string& host);

  std::vector<std::unique_ptr<Endpoint>>& endpoints() { return endpoints_; }
  // The other end's LocalDevice(), per endpoint in endpoint order (the
  // root: peer i's device at i).
  const std::vector<nlohmann::json>& remote_devices() const {
    return remote_devices_;
  }
  // The UD QP with an address handle per peer (the root) or to the root (a
  // peer); null unless config().ud.
  UdQp* ud() const { return ud_.get(); }
  ibv_cq* send_cq() const { return send_cq_.get(); }
  ibv_cq* recv_cq() const { return recv_cq_.get(); }
  ibv_comp_channel* recv_channel() const { return recv_channel_.get(); }
  ibv_pd* pd() const { return pd_.get(); }
  ibv_context* context() const { return context_; }
  const FabricConfig& config() const { return config_; }
  uint32_t max_inline() const { return max_inline_; }
  const std::string& cm_method() const { return cm_method_; }
  nlohmann::json DeviceJson() const;
  // The device as the rank map records it: name, port, LID, GID and its
  // index ({} before the device is open).
  nlohmann::json LocalDevice() const;

  // Keeps rq_depth receives posted on `ep`.
  void RefillRecvs(Endpoint& ep, uint32_t n);

 private:
  void OpenDevice();  // out-of-band mode
  void SetupResources(ibv_context* ctx, int n_endpoints);
  void ProbeCapabilities();
  ibv_qp_init_attr QpInitAttr() const;
  Endpoint& NewEndpoint();
  // A new endpoint on a connected-to-be rdma_cm id: its QP, posted receives.
  Endpoint& NewCmEndpoint(CmIdPtr id);
  // Root, rdma_cm: listens on cm_port; returns why it could not ("" = ok).
  std::string ListenCm(const std::string& bind_address, uint16_t cm_port,
                       int peers);
  // Root: sends the hello to peer `index`, then connects it.
  void AcceptOne(Channel& control, int index, int peers, uint16_t cm_port);
  // Root, rdma_cm: true when the peer reported that rdma_cm failed on its
  // side and the connection falls back to out-of-band setup.
  bool PeerFellBack(Channel& control);
  void ExchangeOob(Endpoint& ep, Channel& control, bool root);
  void ConnectCm(const std::string& host, int cm_port);
  void ExchangeBuffers(Endpoint& ep, Channel& control);
  void ModifyToRts(Endpoint& ep, const nlohmann::json& remote);
  // Whether address vectors carry a GRH (RoCE, or a GID index given).
  bool Global() const;
  // After the RC setup with one side: creates the UD QP on first use and
  // exchanges UD addresses (QPN, Q_Key, LID, GID, MTU) over the control
  // channel; adds an address handle to the other side.
  void ConnectUd(Channel& control, bool root, int peers);
  nlohmann::json LocalQpInfo(const Endpoint& ep);

  FabricConfig config_;
  std::string cm_method_ = "tcp";
  std::string cm_fallback_;  // why rdma_cm fell back to out-of-band setup
  ContextPtr owned_context_;
  ibv_context* context_ = nullptr;
  CmChannelPtr channel_;
  CmIdPtr listen_id_;
  PdPtr pd_;
  CompChannelPtr recv_channel_;  // recv CQ events (--wait event)
  CqPtr send_cq_;
  CqPtr recv_cq_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::unique_ptr<UdQp> ud_;  // destroyed before pd_
  std::vector<nlohmann::json> remote_devices_;
  uint32_t max_inline_ = 0;
  bool wr_api_ = false;
  int gid_index_ = -1;
  ibv_gid gid_{};
  ibv_port_attr port_attr_{};
  uint32_t psn_ = 0;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_FABRIC_H_
