#include "verbsbench/internal/fabric.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

namespace verbsbench::internal {
namespace {

[[noreturn]] void Fail(const std::string& what, int err = errno) {
  throw std::runtime_error(what + ": " + std::strerror(err));
}

std::string GidString(const ibv_gid& gid) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, gid.raw, buf, sizeof(buf));
  return buf;
}

ibv_gid ParseGid(const std::string& s) {
  ibv_gid gid{};
  if (inet_pton(AF_INET6, s.c_str(), gid.raw) != 1) {
    throw std::runtime_error("bad GID from peer: " + s);
  }
  return gid;
}

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

// Next rdma_cm event of type `expected` (acked), within timeout_s.
rdma_cm_id* WaitCmEvent(rdma_event_channel* channel,
                        rdma_cm_event_type expected, double timeout_s,
                        const std::string& what) {
  pollfd p{channel->fd, POLLIN, 0};
  const int r =
      poll(&p, 1, timeout_s < 0 ? -1 : static_cast<int>(timeout_s * 1000));
  if (r == 0)
    throw std::runtime_error(what + ": no rdma_cm event within timeout");
  if (r < 0) Fail(what + ": poll");
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(channel, &event)) Fail(what + ": rdma_get_cm_event");
  const rdma_cm_event_type type = event->event;
  const int status = event->status;
  rdma_cm_id* id = event->id;
  rdma_ack_cm_event(event);
  if (type != expected) {
    throw std::runtime_error(what + ": expected " + rdma_event_str(expected) +
                             ", got " + rdma_event_str(type) + " (status " +
                             std::to_string(status) + ")");
  }
  return id;
}

}  // namespace

Op ParseOp(const std::string& name) {
  if (name == "send") return Op::kSend;
  if (name == "write") return Op::kWrite;
  if (name == "read") return Op::kRead;
  throw std::invalid_argument("unknown operation '" + name +
                              "' (send|write|read)");
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kSend:
      return "send";
    case Op::kWrite:
      return "write";
    case Op::kRead:
      return "read";
  }
  return "?";
}

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

namespace {
// Parameters of every rdma_cm connection, accepted or initiated: one
// outstanding RDMA READ/atomic each way, and the maximum transport and RNR
// retry counts.
rdma_conn_param CmConnParam() {
  rdma_conn_param param{};
  param.responder_resources = 1;
  param.initiator_depth = 1;
  param.retry_count = 7;
  param.rnr_retry_count = 7;
  return param;
}
}  // namespace

ibv_qp_init_attr Fabric::QpInitAttr() const {
  ibv_qp_init_attr attr{};
  attr.send_cq = send_cq_.get();
  attr.recv_cq = recv_cq_.get();
  attr.qp_type = IBV_QPT_RC;
  attr.cap.max_send_wr = config_.sq_depth;
  attr.cap.max_recv_wr = config_.rq_depth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  attr.cap.max_inline_data = max_inline_;
  return attr;
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
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = static_cast<uint8_t>(config_.ib_port);
  attr.qp_access_flags =
      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  if (int err = ibv_modify_qp(ep.qp, &attr,
                              IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                  IBV_QP_ACCESS_FLAGS)) {
    Fail("ibv_modify_qp INIT", err);
  }
  RefillRecvs(ep, config_.rq_depth);
  attr = {};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = static_cast<ibv_mtu>(
      std::min<int>(port_attr_.active_mtu, remote.at("mtu").get<int>()));
  attr.dest_qp_num = remote.at("qpn").get<uint32_t>();
  attr.rq_psn = remote.at("psn").get<uint32_t>();
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = 12;
  attr.ah_attr.dlid = remote.at("lid").get<uint16_t>();
  attr.ah_attr.port_num = static_cast<uint8_t>(config_.ib_port);
  const ibv_gid remote_gid = ParseGid(remote.at("gid").get<std::string>());
  const bool global = port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET ||
                      config_.gid_index >= 0;
  if (global) {
    attr.ah_attr.is_global = 1;
    attr.ah_attr.grh.dgid = remote_gid;
    attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
    attr.ah_attr.grh.hop_limit = 64;
  }
  if (int err =
          ibv_modify_qp(ep.qp, &attr,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                            IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
    Fail("ibv_modify_qp RTR", err);
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;
  attr.sq_psn = psn_;
  attr.max_rd_atomic = 1;
  if (int err = ibv_modify_qp(ep.qp, &attr,
                              IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                  IBV_QP_MAX_QP_RD_ATOMIC)) {
    Fail("ibv_modify_qp RTS", err);
  }
}

void Fabric::ExchangeOob(Endpoint& ep, Control& control, bool root) {
  ibv_qp_init_attr attr = QpInitAttr();
  ep.qp_owned.reset(ibv_create_qp(pd_.get(), &attr));
  if (!ep.qp_owned) Fail("ibv_create_qp");
  ep.qp = ep.qp_owned.get();
  nlohmann::json remote;
  if (root) {
    control.Send(LocalQpInfo(ep));
    remote = control.Expect("qp", config_.timeout_s);
  } else {
    remote = control.Expect("qp", config_.timeout_s);
    control.Send(LocalQpInfo(ep));
  }
  ModifyToRts(ep, remote);
}

void Fabric::ExchangeBuffers(Endpoint& ep, Control& control) {
  control.Send({{"type", "buf"},
                {"recv", reinterpret_cast<uintptr_t>(ep.recv_buf)},
                {"send", reinterpret_cast<uintptr_t>(ep.send_buf)},
                {"rkey", ep.mr->rkey}});
  const nlohmann::json remote = control.Expect("buf", config_.timeout_s);
  ep.remote_recv = remote.at("recv").get<uint64_t>();
  ep.remote_send = remote.at("send").get<uint64_t>();
  ep.rkey = remote.at("rkey").get<uint32_t>();
  // Both sides have receives posted and QPs ready once this returns.
  control.Send({{"type", "connected"}});
  control.Expect("connected", config_.timeout_s);
}

void Fabric::AcceptPeers(const Fd& listener, const std::string& bind_address,
                         uint16_t port, int peers,
                         std::vector<Control>& controls) {
  const uint16_t cm_port = static_cast<uint16_t>(port + 1);
  std::string cm_error;
  if (config_.cm != "tcp") {
    channel_.reset(rdma_create_event_channel());
    rdma_cm_id* id = nullptr;
    if (!channel_) {
      cm_error =
          std::string("rdma_create_event_channel: ") + std::strerror(errno);
    } else if (rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP)) {
      cm_error = std::string("rdma_create_id: ") + std::strerror(errno);
    } else {
      listen_id_.reset(id);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(cm_port);
      if (!bind_address.empty() &&
          inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr) != 1) {
        cm_error = "rdma_cm needs an IPv4 bind address";
      } else if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&addr))) {
        cm_error = std::string("rdma_bind_addr: ") + std::strerror(errno);
      } else if (rdma_listen(id, peers)) {
        cm_error = std::string("rdma_listen: ") + std::strerror(errno);
      }
    }
    if (cm_error.empty()) {
      cm_method_ = "rdmacm";
    } else if (config_.cm == "rdmacm") {
      throw std::runtime_error(cm_error);
    } else {
      listen_id_.reset();
      channel_.reset();
    }
  }
  if (cm_method_ == "tcp") OpenDevice();
  for (int i = 0; i < peers; ++i) {
    controls.push_back(Control::Accept(listener, config_.timeout_s));
    Control& control = controls.back();
    control.Send({{"type", "hello"},
                  {"index", i},
                  {"peers", peers},
                  {"cm", cm_method_},
                  {"cm_port", cm_port},
                  {"max_size", config_.max_size},
                  {"sq_depth", config_.sq_depth},
                  {"rq_depth", config_.rq_depth},
                  {"max_inline", config_.max_inline},
                  {"wait", config_.wait},
                  {"fallback", config_.cm == "auto"}});
    control.Expect("hello_ack", config_.timeout_s);
    bool oob = cm_method_ != "rdmacm";
    if (!oob) {
      // Either the peer's connect request arrives, or the peer reports that
      // rdma_cm failed on its side (then, with --cm auto, fall back).
      pollfd fds[2] = {{channel_->fd, POLLIN, 0}, {control.fd(), POLLIN, 0}};
      const int r = poll(fds, 2, static_cast<int>(config_.timeout_s * 1000));
      if (r == 0)
        throw std::runtime_error(
            "rdma_cm accept: peer did not connect within timeout");
      if (r < 0) Fail("poll");
      if (!(fds[0].revents & POLLIN) && (fds[1].revents & (POLLIN | POLLHUP))) {
        const nlohmann::json m = control.Expect("cm_failed", config_.timeout_s);
        if (config_.cm != "auto") {
          throw std::runtime_error(
              "peer " + control.remote() +
              ": rdma_cm failed: " + m.value("message", ""));
        }
        cm_fallback_ = m.value("message", "");
        control.Send({{"type", "use_tcp"}});
        oob = true;
      }
    }
    if (!oob) {
      rdma_cm_id* child =
          WaitCmEvent(channel_.get(), RDMA_CM_EVENT_CONNECT_REQUEST,
                      config_.timeout_s, "rdma_cm accept");
      CmIdPtr child_id(child);
      SetupResources(child->verbs, peers);
      Endpoint& ep = NewCmEndpoint(std::move(child_id));
      rdma_conn_param param = CmConnParam();
      if (rdma_accept(ep.cm_id.get(), &param)) Fail("rdma_accept");
      WaitCmEvent(channel_.get(), RDMA_CM_EVENT_ESTABLISHED, config_.timeout_s,
                  "rdma_cm accept");
    } else {
      if (!context_) OpenDevice();
      SetupResources(context_, peers);
      Endpoint& ep = NewEndpoint();
      ExchangeOob(ep, control, /*root=*/true);
    }
    ExchangeBuffers(*endpoints_.back(), control);
  }
}

Control Fabric::ConnectToRoot(const std::string& host, uint16_t port) {
  Control control = Control::Connect(host, port, config_.timeout_s);
  const nlohmann::json hello = control.Expect("hello", config_.timeout_s);
  cm_method_ = hello.at("cm").get<std::string>();
  config_.max_size = hello.at("max_size").get<size_t>();
  config_.sq_depth = hello.at("sq_depth").get<uint32_t>();
  config_.rq_depth = hello.at("rq_depth").get<uint32_t>();
  config_.max_inline = hello.at("max_inline").get<uint32_t>();
  if (config_.wait == "spin")
    config_.wait = hello.at("wait").get<std::string>();
  control.Send({{"type", "hello_ack"}});
  bool oob = cm_method_ != "rdmacm";
  if (!oob) {
    try {
      ConnectCm(host, hello.at("cm_port").get<int>());
    } catch (const std::exception& e) {
      // rdma_cm could not reach the root (e.g. no route from this device):
      // with --cm auto at the root, fall back to the out-of-band exchange.
      if (!hello.value("fallback", false)) throw;
      control.Send({{"type", "cm_failed"}, {"message", e.what()}});
      control.Expect("use_tcp", config_.timeout_s);
      endpoints_.clear();
      recv_cq_.reset();
      send_cq_.reset();
      recv_channel_.reset();
      pd_.reset();
      channel_.reset();
      context_ = nullptr;
      cm_method_ = "tcp";
      cm_fallback_ = e.what();
      oob = true;
    }
  }
  if (oob) {
    OpenDevice();
    SetupResources(context_, 1);
    Endpoint& ep = NewEndpoint();
    ExchangeOob(ep, control, /*root=*/false);
  }
  ExchangeBuffers(*endpoints_.back(), control);
  return control;
}

void Fabric::ConnectCm(const std::string& host, int cm_port) {
  {
    channel_.reset(rdma_create_event_channel());
    if (!channel_) Fail("rdma_create_event_channel");
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP))
      Fail("rdma_create_id");
    CmIdPtr id_owner(id);
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(cm_port);
    if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res)) {
      throw std::runtime_error("cannot resolve '" + host +
                               "' for rdma_cm: " + gai_strerror(rc));
    }
    std::unique_ptr<addrinfo, Deleter<freeaddrinfo>> guard(res);
    const int timeout_ms = static_cast<int>(config_.timeout_s * 1000);
    if (rdma_resolve_addr(id, nullptr, res->ai_addr, timeout_ms))
      Fail("rdma_resolve_addr");
    WaitCmEvent(channel_.get(), RDMA_CM_EVENT_ADDR_RESOLVED, config_.timeout_s,
                "rdma_cm resolve address of " + host);
    if (rdma_resolve_route(id, timeout_ms)) Fail("rdma_resolve_route");
    WaitCmEvent(channel_.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, config_.timeout_s,
                "rdma_cm resolve route to " + host);
    SetupResources(id->verbs, 1);
    Endpoint& ep = NewCmEndpoint(std::move(id_owner));
    rdma_conn_param param = CmConnParam();
    if (rdma_connect(ep.cm_id.get(), &param)) Fail("rdma_connect");
    WaitCmEvent(channel_.get(), RDMA_CM_EVENT_ESTABLISHED, config_.timeout_s,
                "rdma_cm connect to " + host);
  }
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

}  // namespace verbsbench::internal
