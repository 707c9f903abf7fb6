#include "shim/internal/pad_sender.h"

#include <algorithm>
#include <array>

#include "shim/internal/hidden_qps.h"
#include "shim/internal/port_link.h"
#include "shim/internal/registry.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

constexpr uint32_t kPadRemoteQpn = 0xFFFFFE;  // no such QP on any rxe/mlx5
constexpr uint32_t kPadQkey = 0x7E5A0001u;
constexpr int kPadDepth = 256;
constexpr int kPadChain = 32;

// RESET -> INIT -> RTR -> RTS for a UD QP.
bool BringUpUd(ibv_qp* qp, uint8_t port) {
  const RealVerbs& r = Real();
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = port;
  a.qkey = kPadQkey;
  if (r.modify_qp(
          qp, &a,
          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) != 0) {
    return false;
  }
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTR;
  if (r.modify_qp(qp, &a, IBV_QP_STATE) != 0) return false;
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = 0;
  return r.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0;
}

}  // namespace

bool PadSender::Bringup(ibv_device* device) {
  const RealVerbs& r = Real();
  {
    OwnContextScope own;  // the shim must not register its own context
    ctx_.reset(r.open_device(device));
  }
  if (!ctx_) return false;
  pd_.reset(r.alloc_pd(ctx_.get()));
  if (!pd_) return false;
  mr_.reset(r.reg_mr(pd_.get(), buf_.data(), buf_.size(), 0));
  if (!mr_) return false;
  cq_.reset(r.create_cq(ctx_.get(), 2 * kPadDepth, nullptr, nullptr, 0));
  if (!cq_) return false;
  ibv_qp_init_attr init{};
  init.send_cq = cq_.get();
  init.recv_cq = cq_.get();
  init.cap.max_send_wr = kPadDepth;
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.qp_type = IBV_QPT_UD;
  qp_.reset(r.create_qp(pd_.get(), &init));
  // The shim's own QP: the kernel's list of this process's QPs has it.
  if (qp_) NoteSeenQp(device->name, qp_->qp_num);
  return qp_ && BringUpUd(qp_.get(), port_);
}

std::unique_ptr<PadSender> PadSender::Create(ibv_device* device,
                                             std::string name, uint8_t port,
                                             uint32_t mtu_bytes) {
  auto s = std::make_unique<PadSender>(std::move(name), port, mtu_bytes);
  if (!s->Bringup(device)) return nullptr;
  return s;
}

AhPtr PadSender::CreateAh(const ibv_ah_attr& av) {
  ibv_ah_attr attr = av;
  attr.port_num = port_;
  return AhPtr(Real().create_ah(pd_.get(), &attr));
}

PadSender::~PadSender() {
  Drain();
  // libibverbs and the provider call back into the shim's hooks
  // (ibv_cmd_destroy_qp, verbs_uninit_context), possibly while this thread
  // holds the shim's registry lock.
  OwnContextScope own;
  qp_.reset();
  cq_.reset();
  mr_.reset();
  pd_.reset();
  ctx_.reset();
}

void PadSender::Abandon() {
  (void)qp_.release();
  (void)cq_.release();
  (void)mr_.release();
  (void)pd_.release();
  (void)ctx_.release();
}

void PadSender::Drain() {
  if (!qp_ || !cq_) return;
  for (int i = 0; i < 1000 && outstanding_ > 0; ++i) {
    if (!Reap(false)) break;
  }
}

// Polls the padding CQ; with `block`, until at least one completion arrives
// (bounded). Caller holds mu_. Returns false once the padding QP failed.
bool PadSender::Reap(bool block) {
  ibv_wc wc[16];
  const emulate::TscCalibration& cal = E().cal;
  const uint64_t start = emulate::ReadTsc();
  const uint64_t limit = cal.NsToTicks(2e9);
  for (;;) {
    const int n = ctx_->ops.poll_cq(cq_.get(), 16, wc);
    if (n < 0) {
      failed_ = true;
      return false;
    }
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) failed_ = true;
      outstanding_ -= static_cast<int>(wc[i].wr_id);
    }
    if (outstanding_ < 0) outstanding_ = 0;
    if (n > 0 || !block) return !failed_;
    if (emulate::ReadTsc() - start > limit) {
      failed_ = true;
      return false;
    }
    emulate::CpuRelax();
  }
}

uint64_t PadSender::Send(ibv_ah* ah, uint64_t datagrams) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t sent = 0;
  ibv_sge sge{reinterpret_cast<uintptr_t>(buf_.data()), mtu_, mr_->lkey};
  std::array<ibv_send_wr, kPadChain> wrs{};
  while (sent < datagrams && !failed_) {
    while (outstanding_ + kPadChain > kPadDepth && Reap(true)) {
    }
    if (failed_) break;
    const int chain =
        static_cast<int>(std::min<uint64_t>(kPadChain, datagrams - sent));
    for (int i = 0; i < chain; ++i) {
      ibv_send_wr& w = wrs[i];
      w = ibv_send_wr{};
      w.next = i + 1 < chain ? &wrs[i + 1] : nullptr;
      w.sg_list = &sge;
      w.num_sge = 1;
      w.opcode = IBV_WR_SEND;
      w.wr.ud = {ah, kPadRemoteQpn, kPadQkey};
      if (i + 1 == chain) {
        w.send_flags = IBV_SEND_SIGNALED;
        w.wr_id = static_cast<uint64_t>(chain);
      }
    }
    ibv_send_wr* bad = nullptr;
    if (ctx_->ops.post_send(qp_.get(), wrs.data(), &bad) != 0) {
      failed_ = true;
      break;
    }
    outstanding_ += chain;
    sent += static_cast<uint64_t>(chain);
  }
  if (!failed_) Reap(false);
  if (failed_) WarnOnce(WarningCode::kPadSendFailed, {name_});
  return sent;
}

namespace {

PadSender* EnsurePadSender(ContextState* c, PortLink* link) {
  std::lock_guard<std::mutex> lock(link->pad_mu);
  if (!link->pad && !link->pad_failed) {
    link->pad = PadSender::Create(c->ctx->device, c->device, link->port,
                                  link->mtu_bytes);
    if (!link->pad) {
      link->pad_failed = true;
      WarnOnce(WarningCode::kPadCreateFailed, {c->device});
    }
  }
  return link->pad.get();
}

}  // namespace

void PreparePadding(QpState* q, PortLink* link) {
  PadSender* ps = EnsurePadSender(q->ctx, link);
  std::lock_guard<std::mutex> lock(q->mu);
  if (ps != nullptr && !q->pad_ah) q->pad_ah = ps->CreateAh(q->av);
}

void SendPadding(QpState* q, PortLink* link, uint64_t pad_bytes) {
  std::lock_guard<std::mutex> lock(q->mu);
  if (!q->planner.enabled() || !q->pad_ah) return;
  const uint64_t dgrams = q->planner.OnData(pad_bytes);
  if (dgrams == 0) return;
  PadSender* ps = link->pad.get();  // made at RTR, before pad_ah
  const uint64_t sent = ps->Send(q->pad_ah.get(), dgrams);
  q->stats.pad_datagrams.Add(sent);
  // One packet each, on the same port: traffic the shim sent.
  if (auto* to = q->stats.publish_to.load(std::memory_order_acquire)) {
    to->fetch_add(sent, std::memory_order_release);
  }
  q->stats.pad_bytes.Add(sent * ps->datagram_bytes());
}

}  // namespace verbsemu::shim::internal
