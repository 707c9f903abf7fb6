#include "shim/internal/fake_cq.h"

#include <errno.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>

#include "emulate/tsc.h"
#include "shim/internal/cq_ex_fields.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_objects.h"

namespace verbsemu::shim::internal {
namespace {

FakeCq* Of(ibv_cq_ex* cq) { return reinterpret_cast<FakeCq*>(cq); }

// The next completion becomes the current one (what the reads return).
int Next(ibv_cq_ex* cq) {
  FakeCq* f = Of(cq);
  if (FakePollCq(&f->cq, 1, &f->current) != 1) return ENOENT;
  cq->wr_id = f->current.wr_id;
  cq->status = f->current.status;
  return 0;
}

int StartPoll(ibv_cq_ex* cq, ibv_poll_cq_attr*) {
  const int rc = Next(cq);
  if (rc == 0) Of(cq)->ex_polls.fetch_add(1);
  return rc;
}
int NextPoll(ibv_cq_ex* cq) { return Next(cq); }
void EndPoll(ibv_cq_ex* cq) { Of(cq)->ex_polls.fetch_sub(1); }

#define VERBSEMU_FAKE_READ(slot, type, value)            \
  type Fake_##slot(ibv_cq_ex* cq) {                      \
    [[maybe_unused]] const ibv_wc& wc = Of(cq)->current; \
    return value;                                        \
  }
VERBSEMU_CQ_EX_READS(VERBSEMU_FAKE_READ)
#undef VERBSEMU_FAKE_READ

void ReadTmInfo(ibv_cq_ex*, ibv_wc_tm_info* info) { *info = {}; }

}  // namespace

int FakePollCq(ibv_cq* cq, int n, ibv_wc* wc) {
  FakeDevice* d = FakeOwner(cq->context);
  if (d->null_ops.load(std::memory_order_relaxed)) return 0;
  d->poll_calls.fetch_add(1, std::memory_order_relaxed);
  if (d->faults.Roll(FakeFault::kSlowPoll)) {
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::microseconds(20);
    while (std::chrono::steady_clock::now() < end) {
    }
  }
  FakeCq* f = reinterpret_cast<FakeCq*>(cq);
  std::lock_guard<std::mutex> lock(f->mu);
  int i = 0;
  const uint64_t now = f->entries.empty() || f->entries.front().ready_tsc == 0
                           ? 0
                           : emulate::ReadTsc();
  for (; i < n && !f->entries.empty() && f->entries.front().ready_tsc <= now;
       ++i) {
    const FakeCqe& e = f->entries.front();
    wc[i] = e.wc;
    // The provider's send queue is freed up to a send completion once it
    // is polled (mlx5 advances its tail in poll_cq).
    if (e.qp != nullptr && e.sq_index > e.qp->sq_tail.load()) {
      e.qp->sq_tail.store(e.sq_index);
    }
    f->entries.pop_front();
  }
  return i;
}

ibv_cq_ex* FakeCreateCqEx(ibv_context* c, ibv_cq_init_attr_ex* attr) {
  FakeDevice* d = FakeOwner(c);
  d->create_cq_ex_calls.fetch_add(1);
  if (!d->extended_cqs.load()) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  auto f = std::make_unique<FakeCq>();
  ibv_cq_ex* cq = &f->cqx;
  std::memset(static_cast<void*>(cq), 0, sizeof(*cq));
  cq->context = c;
  cq->cq_context = attr->cq_context;
  cq->channel = attr->channel;
  cq->cqe = static_cast<int>(attr->cqe);
  cq->start_poll = StartPoll;
  cq->next_poll = NextPoll;
  cq->end_poll = EndPoll;
#define VERBSEMU_SET_READ(slot, type, value) cq->slot = Fake_##slot;
  VERBSEMU_CQ_EX_READS(VERBSEMU_SET_READ)
#undef VERBSEMU_SET_READ
  cq->read_tm_info = ReadTmInfo;
  std::lock_guard<std::mutex> lock(d->mu);
  d->cqs.push_back(std::move(f));
  d->live_cqs.fetch_add(1);
  return cq;
}

}  // namespace verbsemu::shim::internal
