#include "verbsbench/internal/contend_node.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include "verbsbench/internal/rc_connect.h"

namespace verbsbench::internal {

using contend::PlanEdge;
using contend::SideTime;

struct ContendNode::Sender {
  const PlanEdge* edge = nullptr;
  ibv_qp* qp = nullptr;
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  contend::WrSplit split;
  std::int64_t posted = 0, done = 0, outstanding = 0;
  std::int64_t first_ns = -1, last_ns = -1;
  std::vector<std::int64_t> completions{};  // record_completions
};

struct ContendNode::Receiver {
  const PlanEdge* edge = nullptr;
  uint32_t qpn = 0;
  std::int64_t expected = 0, got = 0;
  std::int64_t first_ns = -1, last_ns = -1;
};

ContendNode::ContendNode(ContendNodeConfig config)
    : config_(std::move(config)) {
  std::random_device rd;
  psn_ = rd() & 0xffffff;
  OpenDevice();
  ChooseGid();
  pd_.reset(ibv_alloc_pd(context_.get()));
  if (!pd_) Fail("ibv_alloc_pd");
  const size_t bytes = static_cast<size_t>(config_.wr_size) *
                       static_cast<size_t>(config_.window);
  buffer_ = AllocBuffer(bytes);
  std::memset(buffer_.get(), 0, bytes);
  mr_.reset(ibv_reg_mr(pd_.get(), buffer_.get(), bytes,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  if (!mr_) Fail("ibv_reg_mr (" + std::to_string(bytes) + " bytes)");
}

std::int64_t ContendNode::NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void ContendNode::OpenDevice() {
  int n = 0;
  DeviceListPtr list(ibv_get_device_list(&n));
  if (!list || n == 0)
    throw std::runtime_error("no RDMA device found (ibv_get_device_list)");
  for (int i = 0; i < n && !context_; ++i) {
    ibv_device* d = list.get()[i];
    if (!config_.ib_dev.empty() && config_.ib_dev != ibv_get_device_name(d))
      continue;
    context_.reset(ibv_open_device(d));
    if (!context_)
      Fail(std::string("ibv_open_device ") + ibv_get_device_name(d));
  }
  if (!context_)
    throw std::runtime_error("RDMA device '" + config_.ib_dev + "' not found");
  if (ibv_query_port(context_.get(), static_cast<uint8_t>(config_.ib_port),
                     &port_attr_))
    Fail("ibv_query_port " + std::to_string(config_.ib_port));
}

void ContendNode::ChooseGid() {
  const auto port = static_cast<uint8_t>(config_.ib_port);
  gid_index_ = std::max(config_.gid_index, 0);
  for (int i = 0; config_.gid_index < 0 && i < port_attr_.gid_tbl_len && i < 32;
       ++i) {
    ibv_gid g{};
    if (ibv_query_gid(context_.get(), port, i, &g)) break;
    static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(g.raw, v4, sizeof v4) == 0) {
      gid_index_ = i;
      break;
    }
  }
  if (ibv_query_gid(context_.get(), port, gid_index_, &gid_))
    Fail("ibv_query_gid index " + std::to_string(gid_index_));
}

nlohmann::json ContendNode::Device() const {
  return {{"name", ibv_get_device_name(context_->device)},
          {"port", config_.ib_port}};
}

nlohmann::json ContendNode::Prepare(const std::vector<int>& slots) {
  const int entries =
      static_cast<int>(slots.size()) * (config_.window + 4) + 16;
  cq_.reset(ibv_create_cq(context_.get(), entries, nullptr, nullptr, 0));
  if (!cq_) Fail("ibv_create_cq (" + std::to_string(entries) + ")");
  nlohmann::json local = nlohmann::json::object();
  for (int slot : slots) {
    ibv_qp_init_attr attr =
        QpAttributes(IBV_QPT_RC, cq_.get(), cq_.get(),
                     static_cast<uint32_t>(config_.window), 4, 0);
    QpPtr qp(ibv_create_qp(pd_.get(), &attr));
    if (!qp) Fail("ibv_create_qp");
    local[std::to_string(slot)] = LocalEndpoint(qp.get());
    qps_[slot] = std::move(qp);
  }
  return local;
}

nlohmann::json ContendNode::LocalEndpoint(ibv_qp* qp) const {
  return {{"qpn", qp->qp_num},
          {"psn", psn_},
          {"lid", port_attr_.lid},
          {"gid", GidString(gid_)},
          {"mtu", static_cast<int>(port_attr_.active_mtu)},
          {"addr", reinterpret_cast<uintptr_t>(buffer_.get())},
          {"rkey", mr_->rkey}};
}

void ContendNode::Connect(const nlohmann::json& remote) {
  for (const auto& [slot, qp] : qps_) {
    const nlohmann::json& r = remote.at(std::to_string(slot));
    ToRts(qp.get(), r);
    remote_[slot] = r;
  }
}

void ContendNode::ToRts(ibv_qp* qp, const nlohmann::json& remote) {
  RcLocal local;
  local.port = static_cast<uint8_t>(config_.ib_port);
  local.active_mtu = port_attr_.active_mtu;
  local.global = port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET ||
                 config_.gid_index >= 0;
  local.gid_index = gid_index_;
  local.psn = psn_;
  RcToInit(qp, local);
  RcToRts(qp, local, remote);
}

ibv_qp* ContendNode::Qp(int slot) const {
  const auto it = qps_.find(slot);
  if (it == qps_.end())
    throw std::runtime_error("no QP for slot " + std::to_string(slot));
  return it->second.get();
}

void ContendNode::Arm(const std::vector<PlanEdge>& plan) {
  for (const PlanEdge& e : plan) {
    if (e.send) continue;
    const std::int64_t n = contend::ImmediatesPerEdge(
        contend::SplitEdge(e.bytes, config_.wr_size).count);
    for (std::int64_t i = 0; i < n; ++i) {
      ibv_recv_wr wr{};
      wr.wr_id = static_cast<uint64_t>(e.edge);
      ibv_recv_wr* bad = nullptr;
      if (int err = ibv_post_recv(Qp(e.slot), &wr, &bad))
        Fail("ibv_post_recv", err);
    }
  }
}

void ContendNode::Post(Sender& s) {
  const std::int64_t k = s.posted;
  const auto offset = static_cast<uint64_t>(k % config_.window) *
                      static_cast<uint64_t>(config_.wr_size);
  const bool last = k == s.split.count - 1;
  ibv_sge sge{
      reinterpret_cast<uintptr_t>(buffer_.get()) + offset,
      static_cast<uint32_t>(last ? s.split.last_bytes : config_.wr_size),
      mr_->lkey};
  ibv_send_wr wr{};
  wr.wr_id = reinterpret_cast<uintptr_t>(&s);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.opcode = contend::CarriesImmediate(k, s.split.count)
                  ? IBV_WR_RDMA_WRITE_WITH_IMM
                  : IBV_WR_RDMA_WRITE;
  wr.imm_data = htonl(static_cast<uint32_t>(k));
  wr.wr.rdma.remote_addr = s.remote_addr + offset;
  wr.wr.rdma.rkey = s.rkey;
  ibv_send_wr* bad = nullptr;
  if (k == 0) s.first_ns = NowNs();
  if (int err = ibv_post_send(s.qp, &wr, &bad)) Fail("ibv_post_send", err);
  ++s.posted;
  ++s.outstanding;
}

void ContendNode::Poll(std::vector<Receiver>& receivers, int* open) {
  ibv_wc wc[16];
  const int n = ibv_poll_cq(cq_.get(), 16, wc);
  if (n < 0) throw std::runtime_error("ibv_poll_cq failed");
  if (n == 0 && config_.yield) sched_yield();
  const std::int64_t now = n > 0 ? NowNs() : 0;
  for (int i = 0; i < n; ++i) {
    if (wc[i].status != IBV_WC_SUCCESS)
      throw std::runtime_error(std::string("completion error: ") +
                               ibv_wc_status_str(wc[i].status));
    if (wc[i].opcode & IBV_WC_RECV) {
      auto r = std::find_if(
          receivers.begin(), receivers.end(), [&](const Receiver& x) {
            return x.qpn == wc[i].qp_num && x.got < x.expected;
          });
      if (r == receivers.end())
        throw std::runtime_error("an immediate no edge expects");
      if (r->got++ == 0) r->first_ns = now;
      if (r->got == r->expected) {
        r->last_ns = now;
        --*open;
      }
      continue;
    }
    // The wr_id carries the sender, as verbs programs do.
    Sender* s = reinterpret_cast<Sender*>(  // NOLINT(performance-no-int-to-ptr)
        static_cast<uintptr_t>(wc[i].wr_id));
    --s->outstanding;
    if (config_.record_completions) s->completions.push_back(now);
    if (++s->done == s->split.count) {
      s->last_ns = now;
      --*open;
    }
  }
}

namespace {

// Sleeps to 1 ms before t0_ns, then spins to it.
void WaitUntil(std::int64_t t0_ns) {
  const std::int64_t wake = t0_ns - 1000000;
  if (ContendNode::NowNs() < wake) {
    const timespec ts{static_cast<time_t>(wake / 1000000000),
                      static_cast<long>(wake % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) ==
           EINTR) {
    }
  }
  while (ContendNode::NowNs() < t0_ns) {
  }
}

}  // namespace

std::vector<SideTime> ContendNode::Execute(const std::vector<PlanEdge>& plan,
                                           std::int64_t t0_ns) {
  std::vector<Sender> senders;
  std::vector<Receiver> receivers;
  for (const PlanEdge& e : plan) {
    const contend::WrSplit split = contend::SplitEdge(e.bytes, config_.wr_size);
    if (e.send) {
      const nlohmann::json& r = remote_.at(e.slot);
      senders.push_back({&e, Qp(e.slot), r.at("addr").get<uint64_t>(),
                         r.at("rkey").get<uint32_t>(), split});
      if (config_.record_completions)
        senders.back().completions.reserve(
            static_cast<std::size_t>(split.count));
    } else {
      receivers.push_back(
          {&e, Qp(e.slot)->qp_num, contend::ImmediatesPerEdge(split.count)});
    }
  }
  int open = static_cast<int>(plan.size());
  const auto limit = static_cast<std::int64_t>(config_.timeout_s * 1e9);
  WaitUntil(t0_ns);
  while (open > 0) {
    const std::int64_t now = NowNs();
    for (Sender& s : senders)
      if (s.posted < s.split.count && s.outstanding < config_.window &&
          now >= t0_ns + s.edge->start_ns)
        Post(s);
    Poll(receivers, &open);
    if (now - t0_ns > limit)
      throw std::runtime_error("a run did not end within --timeout " +
                               std::to_string(config_.timeout_s) + " s");
  }
  std::vector<SideTime> out;
  out.reserve(senders.size() + receivers.size());
  for (Sender& s : senders) {
    for (std::int64_t& c : s.completions) c -= t0_ns;
    out.push_back({s.edge->edge, true, s.first_ns - t0_ns, s.last_ns - t0_ns,
                   std::move(s.completions)});
  }
  for (const Receiver& r : receivers)
    out.push_back(
        {r.edge->edge, false, r.first_ns - t0_ns, r.last_ns - t0_ns, {}});
  return out;
}

}  // namespace verbsbench::internal
