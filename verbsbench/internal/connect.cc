// Connection setup of the fabric: rdma_cm, or the out-of-band exchange of
// QP attributes over the control channel (TCP or MPI), with the root's
// fallback from one to the other.
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "verbsbench/internal/fabric.h"

namespace verbsbench::internal {
namespace {

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

void Fabric::ExchangeOob(Endpoint& ep, Channel& control, bool root) {
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

void Fabric::ExchangeBuffers(Endpoint& ep, Channel& control) {
  control.Send({{"type", "buf"},
                {"recv", reinterpret_cast<uintptr_t>(ep.recv_buf)},
                {"send", reinterpret_cast<uintptr_t>(ep.send_buf)},
                {"rkey", ep.mr->rkey},
                {"device", LocalDevice()}});
  const nlohmann::json remote = control.Expect("buf", config_.timeout_s);
  ep.remote_recv = remote.at("recv").get<uint64_t>();
  ep.remote_send = remote.at("send").get<uint64_t>();
  ep.rkey = remote.at("rkey").get<uint32_t>();
  remote_devices_.resize(static_cast<size_t>(ep.index) + 1);
  remote_devices_[ep.index] = remote.value("device", nlohmann::json::object());
  // Both sides have receives posted and QPs ready once this returns.
  control.Send({{"type", "connected"}});
  control.Expect("connected", config_.timeout_s);
}

std::string Fabric::ListenCm(const std::string& bind_address, uint16_t cm_port,
                             int peers) {
  channel_.reset(rdma_create_event_channel());
  if (!channel_) {
    return std::string("rdma_create_event_channel: ") + std::strerror(errno);
  }
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP)) {
    return std::string("rdma_create_id: ") + std::strerror(errno);
  }
  listen_id_.reset(id);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(cm_port);
  if (!bind_address.empty() &&
      inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr) != 1) {
    return "rdma_cm needs an IPv4 bind address";
  }
  if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&addr))) {
    return std::string("rdma_bind_addr: ") + std::strerror(errno);
  }
  if (rdma_listen(id, peers)) {
    return std::string("rdma_listen: ") + std::strerror(errno);
  }
  return "";
}

void Fabric::AcceptPeers(const std::vector<Channel*>& peers,
                         const std::string& bind_address, uint16_t cm_port) {
  const int n = static_cast<int>(peers.size());
  bool every_fd = true;
  for (Channel* c : peers) every_fd = every_fd && c->fd() >= 0;
  if (config_.cm != Cm::kTcp && !every_fd) {
    throw std::runtime_error(
        "rdma_cm setup needs TCP control channels (--rte tcp)");
  }
  if (config_.cm != Cm::kTcp) {
    const std::string cm_error = ListenCm(bind_address, cm_port, n);
    if (cm_error.empty()) {
      cm_method_ = "rdmacm";
    } else if (config_.cm == Cm::kRdmacm) {
      throw std::runtime_error(cm_error);
    } else {
      listen_id_.reset();
      channel_.reset();
    }
  }
  if (cm_method_ == "tcp") OpenDevice();
  for (int i = 0; i < n; ++i) AcceptOne(*peers[i], i, n, cm_port);
}

bool Fabric::PeerFellBack(Channel& control) {
  // Either the peer's connect request arrives, or the peer reports that
  // rdma_cm failed on its side (then, with --cm auto, fall back).
  if (!control.has_buffered_message()) {
    pollfd fds[2] = {{channel_->fd, POLLIN, 0}, {control.fd(), POLLIN, 0}};
    const int r = poll(fds, 2, static_cast<int>(config_.timeout_s * 1000));
    if (r == 0)
      throw std::runtime_error(
          "rdma_cm accept: peer did not connect within timeout");
    if (r < 0) Fail("poll");
    if ((fds[0].revents & POLLIN) || !(fds[1].revents & (POLLIN | POLLHUP))) {
      return false;
    }
  }
  const nlohmann::json m = control.Expect("cm_failed", config_.timeout_s);
  if (config_.cm != Cm::kAuto) {
    throw std::runtime_error("peer " + control.remote() +
                             ": rdma_cm failed: " + m.value("message", ""));
  }
  cm_fallback_ = m.value("message", "");
  control.Send({{"type", "use_tcp"}});
  return true;
}

void Fabric::AcceptOne(Channel& control, int index, int peers,
                       uint16_t cm_port) {
  control.Send({{"type", "hello"},
                {"index", index},
                {"peers", peers},
                {"cm", cm_method_},
                {"cm_port", cm_port},
                {"max_size", config_.max_size},
                {"sq_depth", config_.sq_depth},
                {"rq_depth", config_.rq_depth},
                {"max_inline", config_.max_inline},
                {"wait", Name(config_.wait)},
                {"ud", config_.ud},
                {"fallback", config_.cm == Cm::kAuto}});
  control.Expect("hello_ack", config_.timeout_s);
  const bool oob = cm_method_ != "rdmacm" || PeerFellBack(control);
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
  ConnectUd(control, /*root=*/true, peers);
}

void Fabric::ConnectToRoot(Channel& control, const std::string& host) {
  const nlohmann::json hello = control.Expect("hello", config_.timeout_s);
  cm_method_ = hello.at("cm").get<std::string>();
  config_.max_size = hello.at("max_size").get<size_t>();
  config_.sq_depth = hello.at("sq_depth").get<uint32_t>();
  config_.rq_depth = hello.at("rq_depth").get<uint32_t>();
  config_.max_inline = hello.at("max_inline").get<uint32_t>();
  config_.ud = hello.value("ud", false);
  if (config_.wait == Wait::kSpin) {
    config_.wait =
        Parse<Wait>(hello.at("wait").get<std::string>()).value_or(Wait::kSpin);
  }
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
  ConnectUd(control, /*root=*/false, 1);
}

void Fabric::ConnectUd(Channel& control, bool root, int peers) {
  if (!config_.ud) return;
  if (!ud_) {
    UdConfig c;
    c.context = context_;
    c.pd = pd_.get();
    c.port = static_cast<uint8_t>(config_.ib_port);
    c.port_attr = port_attr_;
    c.gid_index = static_cast<uint8_t>(gid_index_);
    c.gid = gid_;
    c.global = Global();
    c.sq_depth = config_.sq_depth;
    // The root's receives: a round's p replies, with room to repost.
    c.rq_depth = std::max<uint32_t>(config_.rq_depth, 2 * peers);
    c.max_inline = config_.max_inline;
    c.max_size = config_.max_size;
    ud_ = std::make_unique<UdQp>(c);
  }
  nlohmann::json remote;
  if (root) {
    control.Send(ud_->LocalAddress());
    remote = control.Expect("ud", config_.timeout_s);
  } else {
    remote = control.Expect("ud", config_.timeout_s);
    control.Send(ud_->LocalAddress());
  }
  ud_->AddDestination(remote);
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

}  // namespace verbsbench::internal
