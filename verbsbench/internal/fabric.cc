#include "verbsbench/internal/fabric.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include "verbsbench/internal/rc_connect.h"

namespace verbsbench::internal {
namespace {

const char* MtuName(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256:
      return "256";
    case IBV_MTU_512:
      return "512";
    case IBV_MTU_1024:
      return "1024";
    case IBV_MTU_2048:
      return "2048";
    case IBV_MTU_4096:
      return "4096";
  }
  return "?";
}

}  // namespace

Fabric::Fabric(FabricConfig config) : config_(std::move(config)) {
  std::random_device rd;
  psn_ = rd() & 0xffffff;
}

Fabric::~Fabric() = default;

void Fabric::OpenDevice() {
  int n = 0;
  DeviceListPtr list(ibv_get_device_list(&n));
  if (!list || n == 0) {
    throw std::runtime_error("no RDMA device found (ibv_get_device_list)");
  }
  ibv_device* chosen = nullptr;
  for (int i = 0; i < n; ++i) {
    if (config_.ib_dev.empty() ||
        config_.ib_dev == ibv_get_device_name(list.get()[i])) {
      chosen = list.get()[i];
      break;
    }
  }
  if (!chosen)
    throw std::runtime_error("RDMA device '" + config_.ib_dev + "' not found");
  owned_context_.reset(ibv_open_device(chosen));
  if (!owned_context_)
    Fail(std::string("ibv_open_device ") + ibv_get_device_name(chosen));
  context_ = owned_context_.get();
}

void Fabric::SetupResources(ibv_context* ctx, int n_endpoints) {
  if (pd_) {
    if (ctx != context_)
      throw std::runtime_error("peers resolved to different devices");
    return;
  }
  context_ = ctx;
  ibv_device_attr dev{};
  if (ibv_query_device(ctx, &dev)) Fail("ibv_query_device");
  const uint32_t max_wr = static_cast<uint32_t>(dev.max_qp_wr);
  config_.sq_depth = std::min(config_.sq_depth, max_wr);
  config_.rq_depth = std::min(config_.rq_depth, max_wr);
  if (ibv_query_port(ctx, static_cast<uint8_t>(config_.ib_port), &port_attr_)) {
    Fail("ibv_query_port " + std::to_string(config_.ib_port));
  }
  gid_index_ = config_.gid_index;
  if (gid_index_ < 0) {
    // Prefer an IPv4-mapped GID (RoCEv2 over IPv4), else index 0.
    gid_index_ = 0;
    for (int i = 0; i < port_attr_.gid_tbl_len && i < 32; ++i) {
      ibv_gid g{};
      if (ibv_query_gid(ctx, static_cast<uint8_t>(config_.ib_port), i, &g))
        break;
      static const uint8_t prefix[12] = {0, 0, 0, 0, 0,    0,
                                         0, 0, 0, 0, 0xff, 0xff};
      if (std::memcmp(g.raw, prefix, 12) == 0) {
        gid_index_ = i;
        break;
      }
    }
  }
  if (ibv_query_gid(ctx, static_cast<uint8_t>(config_.ib_port), gid_index_,
                    &gid_)) {
    Fail("ibv_query_gid index " + std::to_string(gid_index_));
  }
  pd_.reset(ibv_alloc_pd(ctx));
  if (!pd_) Fail("ibv_alloc_pd");
  const int n = std::max(1, n_endpoints);
  const int max_cqe = dev.max_cqe;
  send_cq_.reset(ibv_create_cq(
      ctx, std::min<int>(max_cqe, static_cast<int>(config_.sq_depth) * n + 16),
      nullptr, nullptr, 0));
  if (!send_cq_) Fail("ibv_create_cq (send)");
  recv_channel_.reset(ibv_create_comp_channel(ctx));
  if (!recv_channel_) Fail("ibv_create_comp_channel");
  recv_cq_.reset(ibv_create_cq(
      ctx, std::min<int>(max_cqe, static_cast<int>(config_.rq_depth) * n + 16),
      nullptr, recv_channel_.get(), 0));
  if (!recv_cq_) Fail("ibv_create_cq (recv)");
  ProbeCapabilities();
}

ibv_qp_init_attr Fabric::QpInitAttr() const {
  return QpAttributes(IBV_QPT_RC, send_cq_.get(), recv_cq_.get(),
                      config_.sq_depth, config_.rq_depth, max_inline_);
}

void Fabric::ProbeCapabilities() {
  // Max inline: the largest request the device accepts, as granted.
  max_inline_ = 0;
  for (uint32_t want :
       {config_.max_inline, 512u, 256u, 220u, 128u, 64u, 32u, 0u}) {
    if (want > config_.max_inline) continue;
    ibv_qp_init_attr attr{};
    attr.send_cq = send_cq_.get();
    attr.recv_cq = recv_cq_.get();
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = config_.sq_depth;
    attr.cap.max_recv_wr = 1;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = want;
    QpPtr qp(ibv_create_qp(pd_.get(), &attr));
    if (qp) {
      max_inline_ = attr.cap.max_inline_data;
      break;
    }
  }
  // ibv_wr_* (extended QP) support.
  ibv_qp_init_attr_ex ex{};
  ex.send_cq = send_cq_.get();
  ex.recv_cq = recv_cq_.get();
  ex.qp_type = IBV_QPT_RC;
  ex.cap.max_send_wr = 4;
  ex.cap.max_recv_wr = 1;
  ex.cap.max_send_sge = 1;
  ex.cap.max_recv_sge = 1;
  ex.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  ex.pd = pd_.get();
  ex.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
                      IBV_QP_EX_WITH_RDMA_READ;
  QpPtr qp(ibv_create_qp_ex(context_, &ex));
  wr_api_ = qp != nullptr;
}

Endpoint& Fabric::NewEndpoint() {
  auto ep = std::make_unique<Endpoint>();
  ep->index = static_cast<int>(endpoints_.size());
  const size_t bytes = 2 * config_.max_size;
  ep->buffer = AllocBuffer(bytes);
  std::memset(ep->buffer.get(), 0, bytes);
  ep->send_buf = ep->buffer.get();
  ep->recv_buf = ep->buffer.get() + config_.max_size;
  ep->mr.reset(ibv_reg_mr(pd_.get(), ep->buffer.get(), bytes,
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                              IBV_ACCESS_REMOTE_READ));
  if (!ep->mr) Fail("ibv_reg_mr (" + std::to_string(bytes) + " bytes)");
  endpoints_.push_back(std::move(ep));
  return *endpoints_.back();
}

Endpoint& Fabric::NewCmEndpoint(CmIdPtr id) {
  Endpoint& ep = NewEndpoint();
  ep.cm_id = std::move(id);
  ibv_qp_init_attr attr = QpInitAttr();
  if (rdma_create_qp(ep.cm_id.get(), pd_.get(), &attr)) Fail("rdma_create_qp");
  ep.cm_qp.reset(ep.cm_id.get());
  ep.qp = ep.cm_id->qp;
  RefillRecvs(ep, config_.rq_depth);
  return ep;
}

void Fabric::RefillRecvs(Endpoint& ep, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    ibv_sge sge{reinterpret_cast<uintptr_t>(ep.recv_buf),
                static_cast<uint32_t>(config_.max_size), ep.mr->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = static_cast<uint64_t>(ep.index);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (int err = ibv_post_recv(ep.qp, &wr, &bad)) Fail("ibv_post_recv", err);
    ep.posted_recvs++;
  }
}

nlohmann::json Fabric::LocalQpInfo(const Endpoint& ep) {
  return {{"type", "qp"},
          {"qpn", ep.qp->qp_num},
          {"psn", psn_},
          {"lid", port_attr_.lid},
          {"gid", GidString(gid_)},
          {"mtu", static_cast<int>(port_attr_.active_mtu)}};
}

void Fabric::ModifyToRts(Endpoint& ep, const nlohmann::json& remote) {
  RcLocal local;
  local.port = static_cast<uint8_t>(config_.ib_port);
  local.active_mtu = port_attr_.active_mtu;
  local.global = Global();
  local.gid_index = gid_index_;
  local.psn = psn_;
  local.access |= IBV_ACCESS_REMOTE_READ;
  RcToInit(ep.qp, local);
  RefillRecvs(ep, config_.rq_depth);
  RcToRts(ep.qp, local, remote);
}

bool Fabric::Global() const {
  return port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET ||
         config_.gid_index >= 0;
}

nlohmann::json Fabric::DeviceJson() const {
  if (!context_) return nlohmann::json::object();
  ibv_device_attr dev{};
  ibv_query_device(context_, &dev);
  return {{"name", ibv_get_device_name(context_->device)},
          {"fw_ver", dev.fw_ver},
          {"vendor_id", dev.vendor_id},
          {"vendor_part_id", dev.vendor_part_id},
          {"max_qp_wr", dev.max_qp_wr},
          {"max_sge", dev.max_sge},
          {"max_cqe", dev.max_cqe},
          {"port", config_.ib_port},
          {"lid", port_attr_.lid},
          {"link_layer", port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET
                             ? "Ethernet"
                             : "InfiniBand"},
          {"active_mtu", MtuName(port_attr_.active_mtu)},
          {"gid_index", gid_index_},
          {"gid", GidString(gid_)},
          {"max_inline", max_inline_},
          {"wr_api", wr_api_},
          {"sq_depth", config_.sq_depth},
          {"rq_depth", config_.rq_depth},
          {"connection",
           cm_fallback_.empty() ? cm_method_ : cm_method_ + "+tcp-fallback"},
          {"cm_fallback_reason", cm_fallback_}};
}

nlohmann::json Fabric::LocalDevice() const {
  if (!context_) return nlohmann::json::object();
  return {{"name", ibv_get_device_name(context_->device)},
          {"port", config_.ib_port},
          {"lid", port_attr_.lid},
          {"gid_index", gid_index_},
          {"gid", GidString(gid_)}};
}

}  // namespace verbsbench::internal
