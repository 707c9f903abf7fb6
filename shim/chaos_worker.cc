#include "shim/chaos_worker.h"

#include <infiniband/verbs.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "shim/internal/engine.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/real_verbs.h"
#include "shim/stress_knobs.h"

namespace verbsemu::shim::internal {
namespace {

constexpr uint64_t kSeqMask = (uint64_t{1} << 40) - 1;

struct ChaosQp {
  ibv_cq* cq = nullptr;
  ibv_cq_ex* cqx = nullptr;  // an extended CQ, polled with ibv_start_poll
  ibv_qp* qp = nullptr;
  ibv_qp_ex* qpx = nullptr;  // ibv_wr_* QPs
  uint64_t tag = 0;          // thread and QP index, in wr_id's top bits
  std::mutex ctl;            // its modifies: recovery, the other thread's
  // The owner thread's:
  uint64_t next = 0;       // WRs posted
  uint64_t ended_n = 0;    // WRs ended
  int64_t last_done = -1;  // the last completion's sequence number
  bool broken = false;     // saw an error: recovered once all ended
  std::vector<uint8_t> ended;
};

struct ChaosThread {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  std::vector<std::unique_ptr<ChaosQp>> qps;
  ChaosTotals totals;
};

ibv_qp* CreateChaosQp(ChaosThread& t, ibv_cq* cq, bool wr_api) {
  ibv_qp_cap cap{};
  cap.max_send_wr = 64;
  cap.max_recv_wr = 1;
  cap.max_send_sge = 1;
  cap.max_recv_sge = 1;
  if (wr_api) {
    ibv_qp_init_attr_ex a{};
    a.send_cq = cq;
    a.recv_cq = cq;
    a.qp_type = IBV_QPT_RC;
    a.pd = t.pd;
    a.cap = cap;
    a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
    return ibv_create_qp_ex(t.ctx, &a);
  }
  ibv_qp_init_attr init{};
  init.send_cq = cq;
  init.recv_cq = cq;
  init.qp_type = IBV_QPT_RC;
  init.cap = cap;
  return CreateQp(t.pd, &init);
}

int PostOne(ChaosQp& q, uint64_t wr_id) {
  return PostSignaledWrite(q.qp, q.qpx, wr_id);
}

// WR `seq` of `q` ended; counts a second end.
void End(ChaosQp& q, uint64_t seq, ChaosTotals& t) {
  if (seq >= q.next || q.ended[seq] != 0) {
    ++t.duplicated;
    return;
  }
  q.ended[seq] = 1;
  ++q.ended_n;
}

// Up to `max` completions of `q`'s CQ into `wc` (of an extended CQ: what
// an application reads of them).
int Collect(const ChaosQp& q, ibv_wc* wc, int max) {
  if (q.cqx == nullptr) return ibv_poll_cq(q.cq, max, wc);
  ibv_poll_cq_attr attr{};
  if (ibv_start_poll(q.cqx, &attr) != 0) return 0;
  int n = 0;
  do {
    wc[n].wr_id = q.cqx->wr_id;
    wc[n].status = q.cqx->status;
    wc[n].qp_num = ibv_wc_read_qp_num(q.cqx);
    ++n;
  } while (n < max && ibv_next_poll(q.cqx) == 0);
  ibv_end_poll(q.cqx);
  return n;
}

void Poll(ChaosQp& q, ChaosTotals& t) {
  ibv_wc wc[16];
  const int n = Collect(q, wc, 16);
  for (int i = 0; i < n; ++i) {
    const uint64_t seq = wc[i].wr_id & kSeqMask;
    if ((wc[i].wr_id & ~kSeqMask) != q.tag || wc[i].qp_num != q.qp->qp_num) {
      ++t.duplicated;  // not this QP's: a completion from nowhere
      continue;
    }
    End(q, seq, t);
    if (static_cast<int64_t>(seq) < q.last_done) ++t.reordered;
    q.last_done = std::max(q.last_done, static_cast<int64_t>(seq));
    if (wc[i].status == IBV_WC_SUCCESS) {
      ++t.ok;
    } else {
      ++t.errors;
      q.broken = true;
    }
  }
}

void Recover(ChaosQp& q, ChaosTotals& t) {
  std::lock_guard<std::mutex> lock(q.ctl);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  if (ModifyQp(q.qp, &a, IBV_QP_STATE) == 0 && ConnectFakeQp(q.qp)) {
    q.broken = false;
    ++t.recoveries;
  }
}

// A scratch QP on the thread's context: made, connected, given two WRs
// and destroyed at once (what a destroyed QP held is not checked).
void Churn(ChaosThread& t) {
  ibv_cq* cq = CreateCq(t.ctx, 16, nullptr, nullptr, 0);
  ibv_qp* qp = CreateChaosQp(t, cq, t.totals.scratch % 2 == 1);
  if (qp != nullptr && ConnectFakeQp(qp)) {
    ChaosQp scratch;
    scratch.cq = cq;
    scratch.qp = qp;
    scratch.qpx = t.totals.scratch % 2 == 1 ? Real().qp_to_qp_ex(qp) : nullptr;
    (void)PostOne(scratch, 1);
    (void)PostOne(scratch, 2);
  }
  if (qp != nullptr) (void)DestroyQp(qp);
  (void)DestroyCq(cq);
  ++t.totals.scratch;
}

// One round on `q`: a post if its window allows, a poll, a recovery.
void Round(ChaosQp& q, const ChaosPlan& plan, ChaosTotals& t) {
  if (!q.broken && q.next < plan.wrs_per_qp &&
      q.next - q.ended_n < plan.window) {
    const uint64_t seq = q.next++;
    ++t.posted;
    if (PostOne(q, q.tag | seq) != 0) {
      End(q, seq, t);
      ++t.refused;
    }
  }
  Poll(q, t);
  if (q.broken && q.ended_n == q.next) Recover(q, t);
}

void Worker(ChaosThread& t, const ChaosPlan& plan,
            std::chrono::steady_clock::time_point until) {
  for (uint64_t round = 1;; ++round) {
    bool busy = false;
    for (auto& q : t.qps) {
      Round(*q, plan, t.totals);
      busy |= q->next < plan.wrs_per_qp || q->ended_n < q->next;
    }
    if (!busy || std::chrono::steady_clock::now() > until) break;
    if (round % plan.churn_every == 0) Churn(t);
  }
  for (auto& q : t.qps) {
    t.totals.stuck += q->next - q->ended_n;
    for (uint64_t s = 0; s < q->next; ++s) t.totals.lost += q->ended[s] == 0;
  }
}

// The other thread: modifies a random QP every ~100 us, RTS to RTS (7 in
// 10) or to ERR, unless its owner is recovering it.
void Monkey(std::vector<ChaosThread>& threads, std::atomic<bool>& stop,
            uint64_t* modifies) {
  uint64_t x = 0x9e3779b97f4a7c15;
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    ChaosQp& q = *threads[x % kChaosThreads].qps[(x >> 8) % kChaosQpsPerThread];
    std::unique_lock<std::mutex> lock(q.ctl, std::try_to_lock);
    if (!lock.owns_lock()) continue;
    ibv_qp_attr a{};
    a.qp_state = (x >> 16) % 10 < 7 ? IBV_QPS_RTS : IBV_QPS_ERR;
    a.timeout = 14;
    (void)ModifyQp(q.qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT);
    ++*modifies;
  }
}

void SetUp(FakeDevice& d, std::vector<ChaosThread>& threads,
           const ChaosPlan& plan) {
  for (int i = 0; i < kChaosThreads; ++i) {
    ChaosThread& t = threads[i];
    t.ctx = OpenDevice(d.device());
    t.pd = Real().alloc_pd(t.ctx);
    for (int j = 0; j < kChaosQpsPerThread; ++j) {
      auto q = std::make_unique<ChaosQp>();
      if (j < kChaosQpsPerThread / 2) {
        q->cq = CreateCq(t.ctx, 64, nullptr, nullptr, 0);
      } else {
        ibv_cq_init_attr_ex attr{};
        attr.cqe = 64;
        attr.wc_flags = IBV_WC_EX_WITH_QP_NUM;
        q->cqx = ibv_create_cq_ex(t.ctx, &attr);
        q->cq = q->cqx != nullptr ? ibv_cq_ex_to_cq(q->cqx) : nullptr;
      }
      q->qp = CreateChaosQp(t, q->cq, j % 2 == 1);
      if (q->qp == nullptr || !ConnectFakeQp(q->qp)) continue;
      if (j % 2 == 1) q->qpx = Real().qp_to_qp_ex(q->qp);
      q->tag = (uint64_t{static_cast<uint32_t>(i)} << 48) |
               (uint64_t{static_cast<uint32_t>(j)} << 40);
      q->ended.assign(plan.wrs_per_qp, 0);
      t.qps.push_back(std::move(q));
    }
  }
}

}  // namespace

void ChaosTotals::Add(const ChaosTotals& o) {
  posted += o.posted, ok += o.ok, errors += o.errors, refused += o.refused;
  recoveries += o.recoveries, modifies += o.modifies, scratch += o.scratch;
  lost += o.lost, duplicated += o.duplicated, reordered += o.reordered;
  stuck += o.stuck;
}

ChaosTotals RunChaos(FakeDevice& d, const ChaosPlan& plan) {
  std::vector<ChaosThread> threads(kChaosThreads);
  d.extended_cqs = true;
  SetUp(d, threads, plan);
  ChaosTotals all;
  for (const ChaosThread& t : threads) {
    all.lost += plan.wrs_per_qp * (kChaosQpsPerThread - t.qps.size());
  }
  if (all.lost != 0) return all;  // a QP could not be made
  std::atomic<bool> stop{false};
  uint64_t modifies = 0;
  std::thread monkey(Monkey, std::ref(threads), std::ref(stop), &modifies);
  const auto until = std::chrono::steady_clock::now() + plan.limit;
  std::vector<std::thread> workers;
  workers.reserve(threads.size());
  for (ChaosThread& t : threads) {
    workers.emplace_back(Worker, std::ref(t), std::cref(plan), until);
  }
  for (auto& w : workers) w.join();
  stop.store(true);
  monkey.join();
  for (const ChaosThread& t : threads) all.Add(t.totals);
  all.modifies = modifies;
  return all;
}

}  // namespace verbsemu::shim::internal
