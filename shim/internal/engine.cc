#include "shim/internal/engine.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "emulate/link_rate.h"
#include "emulate/pacer.h"
#include "emulate/pad_planner.h"
#include "emulate/spin.h"
#include "shim/internal/ptr_map.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/report_signal.h"

namespace verbsemu::shim::internal {
namespace {

using emulate::ReadTsc;

// A process-lifetime object that is never destroyed, so data-path calls from
// threads still running during exit never see a destroyed engine.
template <class T>
class NoDestructor {
 public:
  NoDestructor() { std::construct_at(reinterpret_cast<T*>(storage_)); }
  T* get() { return std::launder(reinterpret_cast<T*>(storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

constexpr uint32_t kPadRemoteQpn = 0xFFFFFE;  // no such QP on any rxe/mlx5
constexpr uint32_t kPadQkey = 0x7E5A0001u;
constexpr int kPadDepth = 256;
constexpr int kPadChain = 32;
constexpr uint64_t kSampleMask = 63;  // measure overhead on 1 call in 64
constexpr int kMaxPorts = 8;
// How far a paced sender may fall behind the virtual link and catch up.
constexpr double kPaceBurstNs = 20'000;
// Waits longer than kSleepAboveNs sleep until kSpinTailNs before the deadline
// (Linux's default timer slack is 50 us), then spin.
constexpr double kSleepAboveNs = 250'000;
constexpr double kSpinTailNs = 120'000;

struct Counter {
  std::atomic<uint64_t> v{0};
  void Add(uint64_t x) { v.fetch_add(x, std::memory_order_relaxed); }
  uint64_t Get() const { return v.load(std::memory_order_relaxed); }
  void Reset() { v.store(0, std::memory_order_relaxed); }
};

struct QpStats {
  Counter posts, wrs, bytes, delay_ticks, pad_bytes, pad_datagrams,
      failed_posts, ovh_ticks, ovh_samples;
  void Reset() {
    for (Counter* c :
         {&posts, &wrs, &bytes, &delay_ticks, &pad_bytes, &pad_datagrams,
          &failed_posts, &ovh_ticks, &ovh_samples}) {
      c->Reset();
    }
  }
};

struct ContextState;

// RAII deleter for the shim's own verbs objects: destroys through the real
// libibverbs function that `Destroy` names in the RealVerbs table.
template <auto Destroy>
struct RealDeleter {
  template <typename T>
  void operator()(T* p) const {
    if (Real().*Destroy) (Real().*Destroy)(p);
  }
};
using PdPtr = std::unique_ptr<ibv_pd, RealDeleter<&RealVerbs::dealloc_pd>>;
using CqPtr = std::unique_ptr<ibv_cq, RealDeleter<&RealVerbs::destroy_cq>>;
using QpPtr = std::unique_ptr<ibv_qp, RealDeleter<&RealVerbs::destroy_qp>>;
using MrPtr = std::unique_ptr<ibv_mr, RealDeleter<&RealVerbs::dereg_mr>>;
using AhPtr = std::unique_ptr<ibv_ah, RealDeleter<&RealVerbs::destroy_ah>>;

void Warn(const std::string& line) {
  std::string msg = "verbsemu: " + line + "\n";
  ssize_t ignored = write(2, msg.data(), msg.size());
  (void)ignored;
}

// Shim-owned padding path of one (context, port): PD, CQ, UD QP and one
// registered datagram buffer. Padding goes to a QPN that cannot exist on the
// peer, so the receiver's device drops it after it crossed the wire.
class PadSender {
 public:
  static std::unique_ptr<PadSender> Create(ContextState* c, uint8_t port,
                                           uint32_t mtu_bytes);
  ~PadSender() { Drain(); }

  AhPtr CreateAh(const ibv_ah_attr& av) {
    ibv_ah_attr attr = av;
    attr.port_num = port_;
    return AhPtr(Real().create_ah(pd_.get(), &attr));
  }

  // Posts `datagrams` padding datagrams; returns how many went out.
  uint64_t Send(ibv_ah* ah, uint64_t datagrams);

  // The device is being torn down underneath us: forget the handles.
  void Abandon() {
    (void)qp_.release();
    (void)cq_.release();
    (void)mr_.release();
    (void)pd_.release();
  }

  uint32_t datagram_bytes() const { return mtu_; }

  PadSender(ContextState* c, uint8_t port, uint32_t mtu)
      : ctx_(c), port_(port), mtu_(mtu), buf_(mtu, 0) {}

 private:
  bool Reap(bool block);
  void Drain() {
    if (qp_ && cq_) {
      for (int i = 0; i < 1000 && outstanding_ > 0; ++i) {
        if (!Reap(false)) break;
      }
    }
  }

  ContextState* ctx_;
  uint8_t port_;
  uint32_t mtu_;
  std::vector<char> buf_;
  // Destroyed in reverse order: QP, CQ, MR, PD.
  PdPtr pd_;
  MrPtr mr_;
  CqPtr cq_;
  QpPtr qp_;
  std::mutex mu_;
  int outstanding_ = 0;
  bool failed_ = false;
};

struct PortLink {
  uint8_t port = 1;
  double real_bps = 0;
  double target_bps = 0;
  double pad_ratio = 0;  // B_real / B_target; 0: no padding
  uint32_t mtu_bytes = 1024;
  std::unique_ptr<emulate::Pacer> pacer;
  std::mutex pad_mu;
  std::unique_ptr<PadSender> pad;  // created on first padding
  bool pad_failed = false;
};

// The ibv_qp_ex slots the shim overrides, as the provider set them.
struct QpExOrig {
  decltype(ibv_qp_ex::wr_atomic_cmp_swp) wr_atomic_cmp_swp = nullptr;
  decltype(ibv_qp_ex::wr_atomic_fetch_add) wr_atomic_fetch_add = nullptr;
  decltype(ibv_qp_ex::wr_bind_mw) wr_bind_mw = nullptr;
  decltype(ibv_qp_ex::wr_local_inv) wr_local_inv = nullptr;
  decltype(ibv_qp_ex::wr_rdma_read) wr_rdma_read = nullptr;
  decltype(ibv_qp_ex::wr_rdma_write) wr_rdma_write = nullptr;
  decltype(ibv_qp_ex::wr_rdma_write_imm) wr_rdma_write_imm = nullptr;
  decltype(ibv_qp_ex::wr_send) wr_send = nullptr;
  decltype(ibv_qp_ex::wr_send_imm) wr_send_imm = nullptr;
  decltype(ibv_qp_ex::wr_send_inv) wr_send_inv = nullptr;
  decltype(ibv_qp_ex::wr_send_tso) wr_send_tso = nullptr;
  decltype(ibv_qp_ex::wr_set_inline_data) wr_set_inline_data = nullptr;
  decltype(ibv_qp_ex::wr_set_inline_data_list) wr_set_inline_data_list =
      nullptr;
  decltype(ibv_qp_ex::wr_set_sge) wr_set_sge = nullptr;
  decltype(ibv_qp_ex::wr_set_sge_list) wr_set_sge_list = nullptr;
  decltype(ibv_qp_ex::wr_start) wr_start = nullptr;
  decltype(ibv_qp_ex::wr_complete) wr_complete = nullptr;
  decltype(ibv_qp_ex::wr_abort) wr_abort = nullptr;
  decltype(ibv_qp_ex::wr_atomic_write) wr_atomic_write = nullptr;
};

struct QpState {
  ibv_qp* qp = nullptr;
  ContextState* ctx = nullptr;
  uint32_t qpn = 0;
  ibv_qp_type type = IBV_QPT_RC;
  ibv_qp_ex* qpx = nullptr;
  QpExOrig ox;
  // ibv_wr_* batch; serialized by the provider's send-queue lock, which it
  // holds from wr_start to wr_complete/wr_abort.
  uint64_t batch_bytes = 0;
  uint64_t batch_pad_bytes = 0;
  uint32_t batch_wrs = 0;
  bool batch_op_pads = true;
  // Connection attributes, learnt at RTR.
  std::mutex mu;
  uint8_t port = 1;
  bool have_av = false;
  ibv_ah_attr av{};
  std::atomic<PortLink*> link{nullptr};
  emulate::PadPlanner planner;  // under mu
  AhPtr pad_ah;                 // under mu; in the pad sender's PD
  QpStats stats;
};

struct ContextState {
  ibv_context* ctx = nullptr;
  verbs_context* vctx = nullptr;
  std::string device;
  decltype(ibv_context_ops::post_send) post_send = nullptr;
  decltype(ibv_context_ops::post_recv) post_recv = nullptr;
  decltype(ibv_context_ops::post_srq_recv) post_srq_recv = nullptr;
  decltype(ibv_context_ops::poll_cq) poll_cq = nullptr;
  decltype(ibv_context_ops::req_notify_cq) req_notify_cq = nullptr;
  decltype(verbs_context::create_qp_ex) create_qp_ex = nullptr;
  decltype(verbs_context::create_cq_ex) create_cq_ex = nullptr;
  std::mutex mu;  // links
  std::array<std::unique_ptr<PortLink>, kMaxPorts> links;
  Counter cqs;
};

struct QpRecord {
  std::string device;
  uint32_t qpn = 0;
  ibv_qp_type type = IBV_QPT_RC;
  QpCounters c;
  uint64_t ovh_ticks = 0, ovh_samples = 0;
};

struct Engine {
  std::mutex mu;  // writers of the maps below
  PtrMap<ContextState> contexts{8};
  PtrMap<QpState> qps{15};
  std::unordered_map<const void*, std::unique_ptr<ContextState>> ctx_owner;
  std::unordered_map<const void*, std::unique_ptr<QpState>> qp_owner;
  std::vector<QpRecord> retired;
  std::vector<std::unique_ptr<QpState>> graveyard;
  std::vector<std::string> devices_seen;
  bool report_signal_warned = false;
  // Configuration: written before the first context, then read-only.
  emulate::Config config;
  std::string config_error;
  bool patching = true;    // false: invalid configuration, pure pass-through
  bool emulating = false;  // latency or bandwidth emulation active
  bool pace = false, pad = false;
  emulate::TscCalibration cal;
  bool calibrated = false;
  emulate::DelayModel delay;
  uint64_t tsc_read_cost = 0;
  uint64_t sleep_above_ticks = ~uint64_t{0};  // waits longer than this sleep
  uint64_t spin_tail_ticks = 0;               // ... except for this tail
  Counter poll_calls_sampled, poll_ovh_ticks, poll_ovh_samples;
  std::atomic<bool> warned_rate{false}, warned_pad{false};
};

__attribute__((always_inline)) inline Engine& E() {
  static NoDestructor<Engine> engine;
  return *engine.get();
}

__attribute__((tls_model("initial-exec"))) thread_local uint32_t tl_polls = 0;

// Per-thread accumulation of the per-QP counters, so that the data path does
// no locked read-modify-write: the owning thread adds with plain relaxed
// stores and folds the totals into the QP when it switches to another QP.
// Readers (the report) add the cached part of a QP to its folded part.
struct ThreadCache {
  std::atomic<QpState*> qp{nullptr};
  std::atomic<uint64_t> posts{0}, wrs{0}, bytes{0}, delay_ticks{0};
  std::atomic<bool> in_use{true};
  uint32_t sample_tick = 0;     // owner only
  ibv_qp_ex* wr_qpx = nullptr;  // owner only: QP of the open wr_* batch
  QpState* wr_q = nullptr;
};

struct CacheRegistry {
  std::mutex mu;
  std::vector<std::unique_ptr<ThreadCache>> caches;
  pthread_key_t key;
  bool key_ok = false;
};

CacheRegistry& Caches() {
  static NoDestructor<CacheRegistry> registry;
  return *registry.get();
}

__attribute__((tls_model("initial-exec"))) thread_local ThreadCache* tl_cache =
    nullptr;

inline void Bump(std::atomic<uint64_t>& a, uint64_t x) {
  a.store(a.load(std::memory_order_relaxed) + x, std::memory_order_relaxed);
}

void FlushCache(ThreadCache* c) {
  QpState* old = c->qp.load(std::memory_order_relaxed);
  if (old != nullptr) {
    old->stats.posts.Add(c->posts.load(std::memory_order_relaxed));
    old->stats.wrs.Add(c->wrs.load(std::memory_order_relaxed));
    old->stats.bytes.Add(c->bytes.load(std::memory_order_relaxed));
    old->stats.delay_ticks.Add(c->delay_ticks.load(std::memory_order_relaxed));
  }
  c->posts.store(0, std::memory_order_relaxed);
  c->wrs.store(0, std::memory_order_relaxed);
  c->bytes.store(0, std::memory_order_relaxed);
  c->delay_ticks.store(0, std::memory_order_relaxed);
}

void ReleaseCache(void* p) {
  auto* c = static_cast<ThreadCache*>(p);
  FlushCache(c);
  c->qp.store(nullptr, std::memory_order_relaxed);
  c->wr_qpx = nullptr;
  c->wr_q = nullptr;
  tl_cache = nullptr;
  c->in_use.store(false, std::memory_order_release);
}

__attribute__((noinline)) ThreadCache* NewCache() {
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.key_ok) r.key_ok = pthread_key_create(&r.key, ReleaseCache) == 0;
  ThreadCache* c = nullptr;
  for (auto& existing : r.caches) {
    if (!existing->in_use.load(std::memory_order_acquire)) {
      c = existing.get();
      c->in_use.store(true, std::memory_order_relaxed);
      break;
    }
  }
  if (c == nullptr) {
    r.caches.push_back(std::make_unique<ThreadCache>());
    c = r.caches.back().get();
  }
  if (r.key_ok) pthread_setspecific(r.key, c);
  tl_cache = c;
  return c;
}

inline ThreadCache* Cache() {
  ThreadCache* c = tl_cache;
  return c != nullptr ? c : NewCache();
}

inline void Account(ThreadCache* c, QpState* q, uint64_t wrs, uint64_t bytes,
                    uint64_t delay) {
  if (c->qp.load(std::memory_order_relaxed) != q) {
    FlushCache(c);
    c->qp.store(q, std::memory_order_relaxed);
  }
  Bump(c->posts, 1);
  Bump(c->wrs, wrs);
  Bump(c->bytes, bytes);
  if (delay != 0) Bump(c->delay_ticks, delay);
}

// ---------------------------------------------------------------- helpers

bool HasVctxField(const verbs_context* v, size_t offset) {
  return v != nullptr && v->sz >= sizeof(verbs_context) - offset;
}

uint32_t MtuBytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
  }
  return 1024;
}

int QueryPort(ContextState* c, uint8_t port, ibv_port_attr* attr) {
  std::memset(attr, 0, sizeof(*attr));
  if (HasVctxField(c->vctx, offsetof(verbs_context, query_port)) &&
      c->vctx->query_port != nullptr) {
    return c->vctx->query_port(c->ctx, port, attr, sizeof(*attr));
  }
  if (Real().query_port) return Real().query_port(c->ctx, port, attr);
  return ENOSYS;
}

double BytesPerTick(double bits_per_s) {
  return bits_per_s / 8.0 / 1e9 / E().cal.ticks_per_ns;
}

// Builds the (context, port) link on first use. Caller holds c->mu.
PortLink* GetLinkLocked(ContextState* c, uint8_t port) {
  if (port == 0 || port >= kMaxPorts) port = 1;
  if (c->links[port]) return c->links[port].get();
  Engine& e = E();
  auto link = std::make_unique<PortLink>();
  link->port = port;
  ibv_port_attr attr;
  if (QueryPort(c, port, &attr) == 0) {
    link->real_bps =
        emulate::PortDataBitsPerS(attr.active_speed, attr.active_width);
    link->mtu_bytes = MtuBytes(attr.active_mtu);
  }
  if (e.config.link_bits_per_s > 0) link->real_bps = e.config.link_bits_per_s;
  const emulate::BandwidthTarget& bw = e.config.bandwidth;
  if (bw.enabled()) {
    link->target_bps = bw.TargetBitsPerS(link->real_bps);
    if (bw.kind == emulate::BandwidthTarget::Kind::kFraction) {
      link->pad_ratio = 1.0 / bw.fraction;
    } else if (link->real_bps > 0) {
      link->pad_ratio = link->real_bps / link->target_bps;
    }
    if (e.pace && link->target_bps > 0) {
      link->pacer = std::make_unique<emulate::Pacer>(
          BytesPerTick(link->target_bps),
          link->real_bps > 0 ? BytesPerTick(link->real_bps) : 0, ReadTsc(),
          e.cal.NsToTicks(kPaceBurstNs));
    }
    const bool unknown = e.pace ? link->target_bps <= 0 : link->pad_ratio <= 0;
    if (unknown && !e.warned_rate.exchange(true)) {
      Warn("cannot tell the link rate of " + c->device + " port " +
           std::to_string(port) +
           "; bandwidth emulation is off there (set VERBSEMU_LINK_BANDWIDTH)");
    }
  }
  c->links[port] = std::move(link);
  return c->links[port].get();
}

// Called at RTR (or on adoption): binds the QP to its port's link.
void AttachLink(QpState* q) {
  Engine& e = E();
  if (!e.emulating) return;
  PortLink* link;
  {
    std::lock_guard<std::mutex> lock(q->ctx->mu);
    link = GetLinkLocked(q->ctx, q->port);
  }
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if (e.pad && link->pad_ratio > 1 && q->have_av) {
      q->planner = emulate::PadPlanner(
          link->pad_ratio, e.config.pad_threshold_bytes, link->mtu_bytes);
    }
  }
  q->link.store(link, std::memory_order_release);
}

// ---------------------------------------------------------------- padding

std::unique_ptr<PadSender> PadSender::Create(ContextState* c, uint8_t port,
                                             uint32_t mtu_bytes) {
  const RealVerbs& r = Real();
  auto s = std::make_unique<PadSender>(c, port, mtu_bytes);
  s->pd_.reset(r.alloc_pd(c->ctx));
  if (!s->pd_) return nullptr;
  s->mr_.reset(r.reg_mr(s->pd_.get(), s->buf_.data(), s->buf_.size(), 0));
  if (!s->mr_) return nullptr;
  s->cq_.reset(r.create_cq(c->ctx, 2 * kPadDepth, nullptr, nullptr, 0));
  if (!s->cq_) return nullptr;
  ibv_qp_init_attr init{};
  init.send_cq = s->cq_.get();
  init.recv_cq = s->cq_.get();
  init.cap.max_send_wr = kPadDepth;
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.qp_type = IBV_QPT_UD;
  s->qp_.reset(r.create_qp(s->pd_.get(), &init));
  if (!s->qp_) return nullptr;
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = port;
  a.qkey = kPadQkey;
  if (r.modify_qp(
          s->qp_.get(), &a,
          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) != 0) {
    return nullptr;
  }
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTR;
  if (r.modify_qp(s->qp_.get(), &a, IBV_QP_STATE) != 0) return nullptr;
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = 0;
  if (r.modify_qp(s->qp_.get(), &a, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0) {
    return nullptr;
  }
  return s;
}

// Polls the padding CQ; with `block`, until at least one completion arrives
// (bounded). Caller holds mu_. Returns false once the padding QP failed.
bool PadSender::Reap(bool block) {
  ibv_wc wc[16];
  const uint64_t start = ReadTsc();
  const uint64_t limit = E().cal.NsToTicks(2e9);
  for (;;) {
    const int n = ctx_->poll_cq(cq_.get(), 16, wc);
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
    if (ReadTsc() - start > limit) {
      failed_ = true;
      return false;
    }
    emulate::CpuRelax();
  }
}

uint64_t PadSender::Send(ibv_ah* ah, uint64_t datagrams) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t sent = 0;
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(buf_.data());
  sge.length = mtu_;
  sge.lkey = mr_->lkey;
  std::array<ibv_send_wr, kPadChain> wrs{};
  while (sent < datagrams && !failed_) {
    while (outstanding_ + kPadChain > kPadDepth) {
      if (!Reap(true)) break;
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
      w.wr.ud.ah = ah;
      w.wr.ud.remote_qpn = kPadRemoteQpn;
      w.wr.ud.remote_qkey = kPadQkey;
      if (i + 1 == chain) {
        w.send_flags = IBV_SEND_SIGNALED;
        w.wr_id = static_cast<uint64_t>(chain);
      }
    }
    ibv_send_wr* bad = nullptr;
    if (ctx_->post_send(qp_.get(), wrs.data(), &bad) != 0) {
      failed_ = true;
      break;
    }
    outstanding_ += chain;
    sent += static_cast<uint64_t>(chain);
  }
  if (!failed_) Reap(false);
  if (failed_ && !E().warned_pad.exchange(true)) {
    Warn("padding send failed on " + ctx_->device +
         "; bandwidth padding stops for this port");
  }
  return sent;
}

PadSender* EnsurePadSender(ContextState* c, PortLink* link) {
  std::lock_guard<std::mutex> lock(link->pad_mu);
  if (!link->pad && !link->pad_failed) {
    link->pad = PadSender::Create(c, link->port, link->mtu_bytes);
    if (!link->pad) {
      link->pad_failed = true;
      if (!E().warned_pad.exchange(true)) {
        Warn("cannot create the padding QP on " + c->device +
             "; bandwidth padding is off there");
      }
    }
  }
  return link->pad.get();
}

void SendPadding(QpState* q, PortLink* link, uint64_t pad_bytes) {
  std::lock_guard<std::mutex> lock(q->mu);
  if (!q->planner.enabled()) return;
  const uint64_t dgrams = q->planner.OnData(pad_bytes);
  if (dgrams == 0) return;
  PadSender* ps = EnsurePadSender(q->ctx, link);
  if (ps == nullptr) return;
  if (!q->pad_ah) q->pad_ah = ps->CreateAh(q->av);
  if (!q->pad_ah) return;
  const uint64_t sent = ps->Send(q->pad_ah.get(), dgrams);
  q->stats.pad_datagrams.Add(sent);
  q->stats.pad_bytes.Add(sent * ps->datagram_bytes());
}

// ----------------------------------------------------------- emulation core

// Everything that happens between the application's call and the real post:
// padding before the data, pacing, then the calibrated spin. Returns the
// ticks spent waiting and padding (not shim overhead).
uint64_t EmulateBeforePost(QpState* q, uint64_t t0, uint64_t bytes,
                           uint64_t pad_bytes) {
  Engine& e = E();
  uint64_t release = t0;
  PortLink* link = q->link.load(std::memory_order_acquire);
  if (link != nullptr) {
    if (e.pace && link->pacer) {
      release = link->pacer->Reserve(t0, bytes);
    } else if (e.pad && pad_bytes > 0) {
      SendPadding(q, link, pad_bytes);
    }
  }
  if (!e.delay.enabled() && release == t0) return 0;
  const uint64_t deadline =
      e.delay.enabled() ? e.delay.Deadline(release) : release;
  // Long waits (pacing large messages, millisecond latencies) sleep for all
  // but the last stretch, which is spun: a soft device such as rxe needs the
  // CPU the spin would burn, and the spin keeps the deadline exact.
  const uint64_t now = ReadTsc();
  if (deadline > now && deadline - now > e.sleep_above_ticks) {
    const double ns = e.cal.TicksToNs(deadline - now - e.spin_tail_ticks);
    timespec ts;
    ts.tv_sec = static_cast<time_t>(ns / 1e9);
    ts.tv_nsec = static_cast<long>(ns - static_cast<double>(ts.tv_sec) * 1e9);
    nanosleep(&ts, nullptr);
  }
  emulate::TscClock clock;
  const uint64_t end = emulate::SpinUntil(clock, deadline);
  return end - t0;
}

bool OpcodePads(ibv_wr_opcode op) {
  switch (op) {
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
    case IBV_WR_LOCAL_INV:
    case IBV_WR_BIND_MW:
      return false;
    default:
      return true;
  }
}

struct ChainInfo {
  uint64_t wrs = 0, bytes = 0, pad_bytes = 0;
};

__attribute__((always_inline)) inline ChainInfo ScanChain(
    const ibv_send_wr* wr, const ibv_send_wr* stop) {
  ChainInfo info;
  for (; wr != nullptr && wr != stop; wr = wr->next) {
    uint64_t b = 0;
    for (int i = 0; i < wr->num_sge; ++i) b += wr->sg_list[i].length;
    ++info.wrs;
    info.bytes += b;
    if (OpcodePads(wr->opcode)) info.pad_bytes += b;
  }
  return info;
}

QpState* AdoptQp(ibv_qp* qp);
ibv_qp* CreateQpExHook(ibv_context* context, ibv_qp_init_attr_ex* attr);
ibv_cq_ex* CreateCqExHook(ibv_context* context, ibv_cq_init_attr_ex* attr);

// ------------------------------------------------------- data path: context

int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  Engine& e = E();
  const bool emulating = e.emulating;
  // The delay is measured from here, so the shim's own bookkeeping below is
  // absorbed into it rather than added to it.
  uint64_t t0 = emulating ? ReadTsc() : 0;
  QpState* q = e.qps.Find(qp);
  if (q == nullptr) q = AdoptQp(qp);
  if (q == nullptr) {
    ContextState* c = e.contexts.Find(qp->context);
    if (c == nullptr || c->post_send == nullptr) {
      *bad_wr = wr;
      return EINVAL;
    }
    return c->post_send(qp, wr, bad_wr);
  }
  ThreadCache* tc = Cache();
  const bool sample = (++tc->sample_tick & kSampleMask) == 0;
  if (sample && !emulating) t0 = ReadTsc();
  ChainInfo info = ScanChain(wr, nullptr);
  const uint64_t waited =
      emulating ? EmulateBeforePost(q, t0, info.bytes, info.pad_bytes) : 0;
  const uint64_t t1 = sample ? ReadTsc() : 0;
  const int rc = q->ctx->post_send(qp, wr, bad_wr);
  const uint64_t t2 = sample ? ReadTsc() : 0;
  if (rc != 0) {
    // The chain was passed through untouched, so the provider's bad_wr is
    // already the application's WR; make sure of it (a provider bug must
    // not hand the application a pointer outside its own chain).
    const ibv_send_wr* w = wr;
    while (w != nullptr && w != *bad_wr) w = w->next;
    if (w == nullptr) *bad_wr = wr;
    info = ScanChain(wr, *bad_wr);
    q->stats.failed_posts.Add(1);
  }
  Account(tc, q, info.wrs, info.bytes, waited);
  if (sample) {
    const uint64_t t3 = ReadTsc();
    const uint64_t in_shim = (t1 - t0 - waited) + (t3 - t2);
    q->stats.ovh_ticks.Add(
        in_shim > 2 * e.tsc_read_cost ? in_shim - 2 * e.tsc_read_cost : 0);
    q->stats.ovh_samples.Add(1);
  }
  return rc;
}

int PostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  ContextState* c = E().contexts.Find(qp->context);
  if (c == nullptr || c->post_recv == nullptr) {
    *bad_wr = wr;
    return EINVAL;
  }
  return c->post_recv(qp, wr, bad_wr);
}

int PostSrqRecv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  ContextState* c = E().contexts.Find(srq->context);
  if (c == nullptr || c->post_srq_recv == nullptr) {
    *bad_wr = wr;
    return EINVAL;
  }
  return c->post_srq_recv(srq, wr, bad_wr);
}

int PollCq(ibv_cq* cq, int num_entries, ibv_wc* wc) {
  if ((++tl_polls & kSampleMask) != 0) {
    ContextState* c = E().contexts.Find(cq->context);
    if (c == nullptr) return -1;
    return c->poll_cq(cq, num_entries, wc);
  }
  Engine& e = E();
  const uint64_t t0 = ReadTsc();
  ContextState* c = e.contexts.Find(cq->context);
  const uint64_t t1 = ReadTsc();
  if (c == nullptr) return -1;
  e.poll_calls_sampled.Add(kSampleMask + 1);
  e.poll_ovh_ticks.Add(t1 - t0 > e.tsc_read_cost ? t1 - t0 - e.tsc_read_cost
                                                 : 0);
  e.poll_ovh_samples.Add(1);
  return c->poll_cq(cq, num_entries, wc);
}

int ReqNotifyCq(ibv_cq* cq, int solicited_only) {
  ContextState* c = E().contexts.Find(cq->context);
  if (c == nullptr) return EINVAL;
  return c->req_notify_cq(cq, solicited_only);
}

// ---------------------------------------------------- data path: ibv_qp_ex

QpState* FindQpx(ibv_qp_ex* qpx) {
  ThreadCache* c = tl_cache;
  if (c != nullptr && c->wr_qpx == qpx) return c->wr_q;
  return E().qps.Find(&qpx->qp_base);
}

void BeginOp(QpState* q, bool pads) {
  ++q->batch_wrs;
  q->batch_op_pads = pads;
}

void AddBytes(QpState* q, uint64_t b) {
  q->batch_bytes += b;
  if (q->batch_op_pads) q->batch_pad_bytes += b;
}

void ResetBatch(QpState* q) {
  q->batch_bytes = 0;
  q->batch_pad_bytes = 0;
  q->batch_wrs = 0;
  q->batch_op_pads = true;
}

void WrStart(ibv_qp_ex* qpx) {
  QpState* q = E().qps.Find(&qpx->qp_base);
  if (q == nullptr) return;
  q->ox.wr_start(qpx);  // takes the provider's SQ lock
  ResetBatch(q);
  ThreadCache* c = Cache();
  c->wr_qpx = qpx;  // the batch's op and setter calls skip the lookup
  c->wr_q = q;
}

int WrComplete(ibv_qp_ex* qpx) {
  Engine& e = E();
  const bool emulating = e.emulating;
  uint64_t t0 = emulating ? ReadTsc() : 0;
  QpState* q = FindQpx(qpx);
  if (q == nullptr) return EINVAL;
  ThreadCache* tc = Cache();
  tc->wr_qpx = nullptr;
  const bool sample = (++tc->sample_tick & kSampleMask) == 0;
  if (sample && !emulating) t0 = ReadTsc();
  const uint64_t bytes = q->batch_bytes, pad_bytes = q->batch_pad_bytes;
  const uint32_t wrs = q->batch_wrs;
  ResetBatch(q);
  const uint64_t waited =
      emulating ? EmulateBeforePost(q, t0, bytes, pad_bytes) : 0;
  const uint64_t t1 = sample ? ReadTsc() : 0;
  const int rc = q->ox.wr_complete(qpx);
  const uint64_t t2 = sample ? ReadTsc() : 0;
  if (rc == 0) {
    Account(tc, q, wrs, bytes, waited);
  } else {
    Account(tc, q, 0, 0, waited);
    q->stats.failed_posts.Add(1);
  }
  if (sample) {
    const uint64_t t3 = ReadTsc();
    const uint64_t in_shim = (t1 - t0 - waited) + (t3 - t2);
    q->stats.ovh_ticks.Add(
        in_shim > 2 * e.tsc_read_cost ? in_shim - 2 * e.tsc_read_cost : 0);
    q->stats.ovh_samples.Add(1);
  }
  return rc;
}

void WrAbort(ibv_qp_ex* qpx) {
  QpState* q = FindQpx(qpx);
  if (q == nullptr) return;
  if (tl_cache != nullptr) tl_cache->wr_qpx = nullptr;
  ResetBatch(q);
  q->ox.wr_abort(qpx);
}

#define VERBSEMU_OP_WRAPPER(name, pads, params, args) \
  void name##_w params {                              \
    QpState* q = FindQpx(qpx);                        \
    if (q == nullptr) return;                         \
    BeginOp(q, pads);                                 \
    q->ox.name args;                                  \
  }

VERBSEMU_OP_WRAPPER(wr_atomic_cmp_swp, false,
                    (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr,
                     uint64_t compare, uint64_t swap),
                    (qpx, rkey, addr, compare, swap))
VERBSEMU_OP_WRAPPER(wr_atomic_fetch_add, false,
                    (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr,
                     uint64_t add),
                    (qpx, rkey, addr, add))
VERBSEMU_OP_WRAPPER(wr_bind_mw, false,
                    (ibv_qp_ex * qpx, ibv_mw* mw, uint32_t rkey,
                     const ibv_mw_bind_info* info),
                    (qpx, mw, rkey, info))
VERBSEMU_OP_WRAPPER(wr_local_inv, false, (ibv_qp_ex * qpx, uint32_t rkey),
                    (qpx, rkey))
VERBSEMU_OP_WRAPPER(wr_rdma_read, false,
                    (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr),
                    (qpx, rkey, addr))
VERBSEMU_OP_WRAPPER(wr_rdma_write, true,
                    (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr),
                    (qpx, rkey, addr))
VERBSEMU_OP_WRAPPER(wr_rdma_write_imm, true,
                    (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, __be32 imm),
                    (qpx, rkey, addr, imm))
VERBSEMU_OP_WRAPPER(wr_send, true, (ibv_qp_ex * qpx), (qpx))
VERBSEMU_OP_WRAPPER(wr_send_imm, true, (ibv_qp_ex * qpx, __be32 imm),
                    (qpx, imm))
VERBSEMU_OP_WRAPPER(wr_send_inv, true, (ibv_qp_ex * qpx, uint32_t rkey),
                    (qpx, rkey))
VERBSEMU_OP_WRAPPER(wr_send_tso, true,
                    (ibv_qp_ex * qpx, void* hdr, uint16_t hdr_sz, uint16_t mss),
                    (qpx, hdr, hdr_sz, mss))
VERBSEMU_OP_WRAPPER(wr_atomic_write, true,
                    (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr,
                     const void* data),
                    (qpx, rkey, addr, data))
#undef VERBSEMU_OP_WRAPPER

void WrSetSge(ibv_qp_ex* qpx, uint32_t lkey, uint64_t addr, uint32_t length) {
  QpState* q = FindQpx(qpx);
  if (q == nullptr) return;
  AddBytes(q, length);
  q->ox.wr_set_sge(qpx, lkey, addr, length);
}

void WrSetSgeList(ibv_qp_ex* qpx, size_t num_sge, const ibv_sge* sg_list) {
  QpState* q = FindQpx(qpx);
  if (q == nullptr) return;
  uint64_t b = 0;
  for (size_t i = 0; i < num_sge; ++i) b += sg_list[i].length;
  AddBytes(q, b);
  q->ox.wr_set_sge_list(qpx, num_sge, sg_list);
}

void WrSetInlineData(ibv_qp_ex* qpx, void* addr, size_t length) {
  QpState* q = FindQpx(qpx);
  if (q == nullptr) return;
  AddBytes(q, length);
  q->ox.wr_set_inline_data(qpx, addr, length);
}

void WrSetInlineDataList(ibv_qp_ex* qpx, size_t num_buf,
                         const ibv_data_buf* buf_list) {
  QpState* q = FindQpx(qpx);
  if (q == nullptr) return;
  uint64_t b = 0;
  for (size_t i = 0; i < num_buf; ++i) b += buf_list[i].length;
  AddBytes(q, b);
  q->ox.wr_set_inline_data_list(qpx, num_buf, buf_list);
}

// Saves and replaces the ibv_qp_ex slots, only non-NULL ones and only those
// the running rdma-core has (wr_atomic_write appeared in v44).
void PatchQpEx(QpState* q, ibv_qp_ex* x) {
  q->qpx = x;
  QpExOrig& o = q->ox;
#define VERBSEMU_PATCH(slot, fn) \
  if (x->slot != nullptr) {      \
    o.slot = x->slot;            \
    x->slot = fn;                \
  }
  VERBSEMU_PATCH(wr_atomic_cmp_swp, wr_atomic_cmp_swp_w)
  VERBSEMU_PATCH(wr_atomic_fetch_add, wr_atomic_fetch_add_w)
  VERBSEMU_PATCH(wr_bind_mw, wr_bind_mw_w)
  VERBSEMU_PATCH(wr_local_inv, wr_local_inv_w)
  VERBSEMU_PATCH(wr_rdma_read, wr_rdma_read_w)
  VERBSEMU_PATCH(wr_rdma_write, wr_rdma_write_w)
  VERBSEMU_PATCH(wr_rdma_write_imm, wr_rdma_write_imm_w)
  VERBSEMU_PATCH(wr_send, wr_send_w)
  VERBSEMU_PATCH(wr_send_imm, wr_send_imm_w)
  VERBSEMU_PATCH(wr_send_inv, wr_send_inv_w)
  VERBSEMU_PATCH(wr_send_tso, wr_send_tso_w)
  VERBSEMU_PATCH(wr_set_inline_data, WrSetInlineData)
  VERBSEMU_PATCH(wr_set_inline_data_list, WrSetInlineDataList)
  VERBSEMU_PATCH(wr_set_sge, WrSetSge)
  VERBSEMU_PATCH(wr_set_sge_list, WrSetSgeList)
  VERBSEMU_PATCH(wr_start, WrStart)
  VERBSEMU_PATCH(wr_complete, WrComplete)
  VERBSEMU_PATCH(wr_abort, WrAbort)
  if (Real().rdma_core_version >= 44) {
    VERBSEMU_PATCH(wr_atomic_write, wr_atomic_write_w)
  }
#undef VERBSEMU_PATCH
}

// ------------------------------------------------------------ registration

// Caller holds e.mu.
void EnsureCalibratedLocked() {
  Engine& e = E();
  if (e.calibrated) return;
  e.cal = emulate::ProcessTscCalibration();
  e.delay = emulate::DelayModel(e.cal.NsToTicks(e.config.latency_ns),
                                e.cal.spin_fixed_cost_ticks);
  e.sleep_above_ticks = e.cal.NsToTicks(kSleepAboveNs);
  e.spin_tail_ticks = e.cal.NsToTicks(kSpinTailNs);
  e.calibrated = true;
}

// VERBSEMU_REPORT_SIGNAL: armed with the first emulated device (again in a
// forked child). An application that handles the signal itself keeps it.
void ArmReportSignalLocked(Engine& e) {
  if (e.config.report_signal == 0 || e.config.report.empty()) return;
  const ReportSignalState state =
      ArmReportSignal(e.config.report_signal, &WriteReport);
  if (state == ReportSignalState::kArmed || e.report_signal_warned) return;
  e.report_signal_warned = true;
  const char* name = e.config.report_signal == SIGUSR1 ? "SIGUSR1" : "SIGUSR2";
  Warn(std::string("VERBSEMU_REPORT_SIGNAL: ") +
       (state == ReportSignalState::kAppHandlesIt
            ? std::string("the application handles ") + name + " itself"
            : std::string("cannot arm ") + name) +
       "; the report is written at exit only");
}

ContextState* RegisterContext(ibv_context* ctx) {
  Engine& e = E();
  if (ctx == nullptr || !e.patching) return nullptr;
  std::lock_guard<std::mutex> lock(e.mu);
  if (ContextState* existing = e.contexts.Find(ctx)) return existing;
  EnsureCalibratedLocked();
  const char* name = ctx->device != nullptr ? ctx->device->name : "";
  if (!e.config.EmulatesDevice(name)) return nullptr;
  auto c = std::make_unique<ContextState>();
  c->ctx = ctx;
  c->vctx = verbs_get_ctx(ctx);
  c->device = name;
  if (std::find(e.devices_seen.begin(), e.devices_seen.end(), c->device) ==
      e.devices_seen.end()) {
    e.devices_seen.push_back(c->device);
  }
  ArmReportSignalLocked(e);
  c->post_send = ctx->ops.post_send;
  c->post_recv = ctx->ops.post_recv;
  c->post_srq_recv = ctx->ops.post_srq_recv;
  c->poll_cq = ctx->ops.poll_cq;
  c->req_notify_cq = ctx->ops.req_notify_cq;
  const bool has_qp_ex =
      HasVctxField(c->vctx, offsetof(verbs_context, create_qp_ex));
  const bool has_cq_ex =
      HasVctxField(c->vctx, offsetof(verbs_context, create_cq_ex));
  if (has_qp_ex) c->create_qp_ex = c->vctx->create_qp_ex;
  if (has_cq_ex) c->create_cq_ex = c->vctx->create_cq_ex;
  ContextState* raw = c.get();
  if (!e.contexts.Insert(ctx, raw)) return nullptr;
  e.ctx_owner.emplace(ctx, std::move(c));
  // Published in the map first, then patched: the wrappers find their state.
  if (raw->post_send) ctx->ops.post_send = PostSend;
  if (raw->post_recv) ctx->ops.post_recv = PostRecv;
  if (raw->post_srq_recv) ctx->ops.post_srq_recv = PostSrqRecv;
  if (raw->poll_cq) ctx->ops.poll_cq = PollCq;
  if (raw->req_notify_cq) ctx->ops.req_notify_cq = ReqNotifyCq;
  if (raw->create_qp_ex) raw->vctx->create_qp_ex = CreateQpExHook;
  if (raw->create_cq_ex) raw->vctx->create_cq_ex = CreateCqExHook;
  return raw;
}

QpState* RegisterQp(ContextState* c, ibv_qp* qp, bool with_send_ops) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  if (QpState* existing = e.qps.Find(qp)) return existing;
  auto q = std::make_unique<QpState>();
  q->qp = qp;
  q->ctx = c;
  q->qpn = qp->qp_num;
  q->type = qp->qp_type;
  if (with_send_ops && Real().qp_to_qp_ex != nullptr) {
    if (ibv_qp_ex* x = Real().qp_to_qp_ex(qp)) PatchQpEx(q.get(), x);
  }
  QpState* raw = q.get();
  if (!e.qps.Insert(qp, raw)) {
    // Table full: undo the patch, the QP runs unemulated.
    if (raw->qpx != nullptr) {
      ibv_qp_ex* x = raw->qpx;
      const QpExOrig& o = raw->ox;
#define VERBSEMU_UNPATCH(slot) \
  if (o.slot != nullptr) x->slot = o.slot;
      VERBSEMU_UNPATCH(wr_atomic_cmp_swp)
      VERBSEMU_UNPATCH(wr_atomic_fetch_add)
      VERBSEMU_UNPATCH(wr_bind_mw)
      VERBSEMU_UNPATCH(wr_local_inv)
      VERBSEMU_UNPATCH(wr_rdma_read)
      VERBSEMU_UNPATCH(wr_rdma_write)
      VERBSEMU_UNPATCH(wr_rdma_write_imm)
      VERBSEMU_UNPATCH(wr_send)
      VERBSEMU_UNPATCH(wr_send_imm)
      VERBSEMU_UNPATCH(wr_send_inv)
      VERBSEMU_UNPATCH(wr_send_tso)
      VERBSEMU_UNPATCH(wr_set_inline_data)
      VERBSEMU_UNPATCH(wr_set_inline_data_list)
      VERBSEMU_UNPATCH(wr_set_sge)
      VERBSEMU_UNPATCH(wr_set_sge_list)
      VERBSEMU_UNPATCH(wr_start)
      VERBSEMU_UNPATCH(wr_complete)
      VERBSEMU_UNPATCH(wr_abort)
      VERBSEMU_UNPATCH(wr_atomic_write)
#undef VERBSEMU_UNPATCH
    }
    return nullptr;
  }
  e.qp_owner.emplace(qp, std::move(q));
  return raw;
}

// A QP the shim did not see being created (e.g. through a privately loaded
// libibverbs): learn it on first post.
QpState* AdoptQp(ibv_qp* qp) {
  Engine& e = E();
  ContextState* c = e.contexts.Find(qp->context);
  if (c == nullptr) return nullptr;
  QpState* q = RegisterQp(c, qp, /*with_send_ops=*/false);
  if (q == nullptr || Real().query_qp == nullptr) return q;
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  if (Real().query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PORT,
                      &init) == 0 &&
      attr.qp_state >= IBV_QPS_RTR) {
    std::lock_guard<std::mutex> lock(q->mu);
    if (qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_UC) {
      q->av = attr.ah_attr;
      q->have_av = true;
      if (attr.ah_attr.port_num != 0) q->port = attr.ah_attr.port_num;
    }
  }
  AttachLink(q);
  return q;
}

// Cached (not yet folded) counts of `q` in every thread's cache.
void AddCached(const QpState& q, QpCounters& c) {
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& tc : r.caches) {
    if (tc->qp.load(std::memory_order_relaxed) != &q) continue;
    c.posts += tc->posts.load(std::memory_order_relaxed);
    c.wrs += tc->wrs.load(std::memory_order_relaxed);
    c.bytes += tc->bytes.load(std::memory_order_relaxed);
    c.delay_ticks += tc->delay_ticks.load(std::memory_order_relaxed);
  }
}

QpRecord RecordOf(const QpState& q) {
  QpRecord r;
  r.device = q.ctx->device;
  r.qpn = q.qpn;
  r.type = q.type;
  r.c.posts = q.stats.posts.Get();
  r.c.wrs = q.stats.wrs.Get();
  r.c.bytes = q.stats.bytes.Get();
  r.c.delay_ticks = q.stats.delay_ticks.Get();
  r.c.pad_bytes = q.stats.pad_bytes.Get();
  r.c.pad_datagrams = q.stats.pad_datagrams.Get();
  r.c.failed_posts = q.stats.failed_posts.Get();
  r.ovh_ticks = q.stats.ovh_ticks.Get();
  r.ovh_samples = q.stats.ovh_samples.Get();
  AddCached(q, r.c);
  return r;
}

// Caller holds e.mu. `verbs_calls` false: the device is being torn down by
// libibverbs itself, so shim objects are forgotten, not destroyed.
void RetireQpLocked(QpState* q, bool verbs_calls) {
  Engine& e = E();
  e.retired.push_back(RecordOf(*q));
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if (!verbs_calls) (void)q->pad_ah.release();
    q->pad_ah.reset();
  }
  e.qps.Erase(q->qp);
  // Thread caches may still name this QP until their owners switch QPs, so
  // its memory stays (small, bounded by the QPs ever created).
  auto it = e.qp_owner.find(q->qp);
  e.graveyard.push_back(std::move(it->second));
  e.qp_owner.erase(it);
}

void TeardownContext(ibv_context* ctx, bool verbs_calls) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  ContextState* c = e.contexts.Find(ctx);
  if (c == nullptr) return;
  std::vector<QpState*> mine;
  for (auto& [key, q] : e.qp_owner) {
    if (q->ctx == c) mine.push_back(q.get());
  }
  for (QpState* q : mine) RetireQpLocked(q, verbs_calls);
  for (auto& link : c->links) {
    if (link && link->pad && !verbs_calls) link->pad->Abandon();
    link.reset();
  }
  e.contexts.Erase(ctx);
  e.ctx_owner.erase(ctx);
}

uint64_t MeasureTscReadCost() {
  uint64_t best = ~uint64_t{0};
  for (int i = 0; i < 1000; ++i) {
    const uint64_t a = ReadTsc();
    const uint64_t b = ReadTsc();
    best = std::min(best, b - a);
  }
  return best;
}

ibv_qp* CreateQpExHook(ibv_context* context, ibv_qp_init_attr_ex* attr) {
  ContextState* c = E().contexts.Find(context);
  if (c == nullptr || c->create_qp_ex == nullptr) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  ibv_qp* qp = c->create_qp_ex(context, attr);
  if (qp != nullptr) {
    const bool send_ops =
        (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0;
    RegisterQp(c, qp, send_ops);
  }
  return qp;
}

ibv_cq_ex* CreateCqExHook(ibv_context* context, ibv_cq_init_attr_ex* attr) {
  ContextState* c = E().contexts.Find(context);
  if (c == nullptr || c->create_cq_ex == nullptr) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  ibv_cq_ex* cq = c->create_cq_ex(context, attr);
  if (cq != nullptr) c->cqs.Add(1);
  return cq;
}

}  // namespace

// ------------------------------------------------------------ public API

void ConfigureWithCalibration(const emulate::Config& config,
                              const emulate::TscCalibration& cal) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  e.config = config;
  e.config_error.clear();
  e.patching = true;
  e.emulating = config.emulating();
  e.pace =
      config.bandwidth.enabled() && config.bw_mode == emulate::BwMode::kPace;
  e.pad = config.bandwidth.enabled() && config.bw_mode == emulate::BwMode::kPad;
  e.cal = cal;
  e.calibrated = true;
  e.delay = emulate::DelayModel(cal.NsToTicks(config.latency_ns),
                                cal.spin_fixed_cost_ticks);
  e.sleep_above_ticks = cal.NsToTicks(kSleepAboveNs);
  e.spin_tail_ticks = cal.NsToTicks(kSpinTailNs);
  e.tsc_read_cost = MeasureTscReadCost();
}

void Configure(const emulate::Config& config, const std::string& error) {
  Engine& e = E();
  if (!error.empty()) {
    std::lock_guard<std::mutex> lock(e.mu);
    e.config = emulate::Config{};
    e.config_error = error;
    e.patching = false;
    e.emulating = false;
    Warn(error + "; running without emulation");
    return;
  }
  // The TSC is calibrated when the first device is opened, so processes that
  // never touch a device (shells, launchers) pay nothing.
  ConfigureWithCalibration(config, emulate::TscCalibration{});
  std::lock_guard<std::mutex> lock(e.mu);
  e.calibrated = false;
}

void ConfigureFromEnvironment() {
  emulate::ConfigResult r = emulate::ConfigFromEnv(
      [](const char* name) -> const char* { return secure_getenv(name); });
  Configure(r.config, r.error);
}

ibv_context* OpenDevice(ibv_device* device) {
  if (Real().open_device == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_context* ctx = Real().open_device(device);
  RegisterContext(ctx);
  return ctx;
}

ibv_context* VerbsOpenDevice(ibv_device* device, void* private_data) {
  if (Real().verbs_open_device == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_context* ctx = Real().verbs_open_device(device, private_data);
  RegisterContext(ctx);
  return ctx;
}

int CloseDevice(ibv_context* context) {
  TeardownContext(context, /*verbs_calls=*/true);
  if (Real().close_device == nullptr) return ENOSYS;
  return Real().close_device(context);
}

void VerbsUninitContext(verbs_context* context) {
  if (context != nullptr) {
    TeardownContext(&context->context, /*verbs_calls=*/false);
  }
  if (Real().verbs_uninit_context != nullptr) {
    Real().verbs_uninit_context(context);
  }
}

ibv_qp* CreateQp(ibv_pd* pd, ibv_qp_init_attr* attr) {
  if (Real().create_qp == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_qp* qp = Real().create_qp(pd, attr);
  if (qp != nullptr) {
    if (ContextState* c = E().contexts.Find(qp->context)) {
      RegisterQp(c, qp, /*with_send_ops=*/false);
    }
  }
  return qp;
}

int ModifyQp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask) {
  if (Real().modify_qp == nullptr) return ENOSYS;
  const int rc = Real().modify_qp(qp, attr, attr_mask);
  if (rc != 0 || attr == nullptr) return rc;
  QpState* q = E().qps.Find(qp);
  if (q == nullptr) return rc;
  bool rtr = false;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if ((attr_mask & IBV_QP_PORT) != 0 && attr->port_num != 0) {
      q->port = attr->port_num;
    }
    if ((attr_mask & IBV_QP_AV) != 0) {
      q->av = attr->ah_attr;
      q->have_av = qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_UC;
      if (attr->ah_attr.port_num != 0) q->port = attr->ah_attr.port_num;
    }
    rtr = (attr_mask & IBV_QP_STATE) != 0 && attr->qp_state == IBV_QPS_RTR;
  }
  if (rtr) AttachLink(q);
  return rc;
}

int DestroyQp(ibv_qp* qp) {
  if (Real().destroy_qp == nullptr) return ENOSYS;
  Engine& e = E();
  const int rc = Real().destroy_qp(qp);
  if (rc == 0) {
    std::lock_guard<std::mutex> lock(e.mu);
    if (QpState* q = e.qps.Find(qp)) RetireQpLocked(q, /*verbs_calls=*/true);
  }
  return rc;
}

ibv_cq* CreateCq(ibv_context* context, int cqe, void* cq_context,
                 ibv_comp_channel* channel, int comp_vector) {
  if (Real().create_cq == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_cq* cq = Real().create_cq(context, cqe, cq_context, channel, comp_vector);
  if (cq != nullptr) {
    if (ContextState* c = E().contexts.Find(context)) c->cqs.Add(1);
  }
  return cq;
}

int DestroyCq(ibv_cq* cq) {
  if (Real().destroy_cq == nullptr) return ENOSYS;
  return Real().destroy_cq(cq);
}

int GetCqEvent(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context) {
  if (Real().get_cq_event == nullptr) return ENOSYS;
  return Real().get_cq_event(channel, cq, cq_context);
}

std::string ReportText() {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  EnsureCalibratedLocked();
  const emulate::TscCalibration& cal = e.cal;
  std::vector<QpRecord> all = e.retired;
  for (auto& [key, q] : e.qp_owner) all.push_back(RecordOf(*q));
  std::string out;
  char line[512];
  std::snprintf(
      line, sizeof line,
      "verbsemu report (pid %d): latency +%s, bandwidth %s%s, "
      "TSC %.3f GHz, spin fixed cost %.0f ns%s\n",
      static_cast<int>(getpid()),
      emulate::FormatNs(e.config.latency_ns).c_str(),
      emulate::FormatBandwidth(e.config.bandwidth).c_str(),
      e.config.bandwidth.enabled() ? (e.pace ? " (pace)" : " (pad)") : "",
      cal.ticks_per_ns, cal.TicksToNs(cal.spin_fixed_cost_ticks),
      e.patching ? "" : " [configuration error: not emulating]");
  out += line;
  uint64_t ovh_ticks = 0, ovh_samples = 0;
  for (const std::string& dev : e.devices_seen) {
    QpCounters sum;
    int n = 0;
    for (const QpRecord& r : all) {
      if (r.device != dev) continue;
      ++n;
      sum.posts += r.c.posts;
      sum.wrs += r.c.wrs;
      sum.bytes += r.c.bytes;
      sum.delay_ticks += r.c.delay_ticks;
      sum.pad_bytes += r.c.pad_bytes;
      sum.pad_datagrams += r.c.pad_datagrams;
      sum.failed_posts += r.c.failed_posts;
    }
    std::snprintf(line, sizeof line,
                  "device %s: qps %d, wrs %llu, bytes %llu, posts %llu, "
                  "delay injected %.3f ms, padding %llu B in %llu datagrams\n",
                  dev.c_str(), n, static_cast<unsigned long long>(sum.wrs),
                  static_cast<unsigned long long>(sum.bytes),
                  static_cast<unsigned long long>(sum.posts),
                  cal.TicksToNs(sum.delay_ticks) / 1e6,
                  static_cast<unsigned long long>(sum.pad_bytes),
                  static_cast<unsigned long long>(sum.pad_datagrams));
    out += line;
    for (const QpRecord& r : all) {
      if (r.device != dev) continue;
      ovh_ticks += r.ovh_ticks;
      ovh_samples += r.ovh_samples;
      std::snprintf(
          line, sizeof line,
          "  qp 0x%06x %s: wrs %llu, bytes %llu, posts %llu (failed %llu), "
          "delay %.3f ms, padding %llu B / %llu datagrams, shim %.0f "
          "ns/post\n",
          r.qpn,
          r.type == IBV_QPT_RC   ? "RC"
          : r.type == IBV_QPT_UD ? "UD"
          : r.type == IBV_QPT_UC ? "UC"
                                 : "other",
          static_cast<unsigned long long>(r.c.wrs),
          static_cast<unsigned long long>(r.c.bytes),
          static_cast<unsigned long long>(r.c.posts),
          static_cast<unsigned long long>(r.c.failed_posts),
          cal.TicksToNs(r.c.delay_ticks) / 1e6,
          static_cast<unsigned long long>(r.c.pad_bytes),
          static_cast<unsigned long long>(r.c.pad_datagrams),
          r.ovh_samples
              ? cal.TicksToNs(r.ovh_ticks) / static_cast<double>(r.ovh_samples)
              : 0.0);
      out += line;
    }
  }
  std::snprintf(
      line, sizeof line,
      "shim overhead (sampled 1/64 calls): post %.1f ns/call (%llu samples), "
      "poll_cq %.1f ns/call (%llu samples, ~%llu polls)\n",
      ovh_samples ? cal.TicksToNs(ovh_ticks) / static_cast<double>(ovh_samples)
                  : 0.0,
      static_cast<unsigned long long>(ovh_samples),
      e.poll_ovh_samples.Get()
          ? cal.TicksToNs(e.poll_ovh_ticks.Get()) /
                static_cast<double>(e.poll_ovh_samples.Get())
          : 0.0,
      static_cast<unsigned long long>(e.poll_ovh_samples.Get()),
      static_cast<unsigned long long>(e.poll_calls_sampled.Get()));
  out += line;
  return out;
}

void WriteReport() {
  Engine& e = E();
  const std::string dest = e.config.report;
  if (dest.empty()) return;
  {
    // Processes that never opened a device (shells, launchers) stay quiet.
    std::lock_guard<std::mutex> lock(e.mu);
    if (e.devices_seen.empty()) return;
  }
  const std::string text = ReportText();
  if (dest == "stderr") {
    ssize_t ignored = write(2, text.data(), text.size());
    (void)ignored;
    return;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(dest.c_str(), "a"),
                                          &std::fclose);
  if (!f) {
    Warn("cannot write the report to " + dest);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), f.get());
}

void AtForkPrepare() {
  E().mu.lock();
  Caches().mu.lock();
}
void AtForkParent() {
  Caches().mu.unlock();
  E().mu.unlock();
}
// Forgets every thread's cached counts (caller holds e.mu).
void ClearCachesLocked(bool forget_qps) {
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& c : r.caches) {
    c->posts.store(0);
    c->wrs.store(0);
    c->bytes.store(0);
    c->delay_ticks.store(0);
    if (forget_qps) {
      c->qp.store(nullptr);
      c->wr_qpx = nullptr;
      c->wr_q = nullptr;
    }
  }
}

void AtForkChild() {
  Engine& e = E();
  Caches().mu.unlock();
  e.mu.unlock();
  ReportSignalForgetWatcher();
  std::lock_guard<std::mutex> lock(e.mu);
  ClearCachesLocked(/*forget_qps=*/false);
  e.retired.clear();
  for (auto& [key, q] : e.qp_owner) q->stats.Reset();
  e.poll_calls_sampled.Reset();
  e.poll_ovh_ticks.Reset();
  e.poll_ovh_samples.Reset();
}

void ResetForTesting() {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  for (auto& [key, q] : e.qp_owner) (void)q->pad_ah.release();
  for (auto& [key, c] : e.ctx_owner) {
    for (auto& link : c->links) {
      if (link && link->pad) link->pad->Abandon();
    }
  }
  ClearCachesLocked(/*forget_qps=*/true);
  e.qps.Clear();
  e.contexts.Clear();
  e.qp_owner.clear();
  e.graveyard.clear();
  e.ctx_owner.clear();
  e.retired.clear();
  e.devices_seen.clear();
  e.poll_calls_sampled.Reset();
  e.poll_ovh_ticks.Reset();
  e.poll_ovh_samples.Reset();
  e.warned_rate = false;
  e.warned_pad = false;
}

bool GetQpCounters(const ibv_qp* qp, QpCounters* out) {
  QpState* q = E().qps.Find(qp);
  if (q == nullptr) return false;
  *out = RecordOf(*q).c;
  return true;
}

bool IsContextPatched(const ibv_context* context) {
  return E().contexts.Find(context) != nullptr;
}

size_t LiveQpCount() {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  return e.qp_owner.size();
}

}  // namespace verbsemu::shim::internal
