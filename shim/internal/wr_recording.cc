#include "shim/internal/wr_recording.h"

#include <errno.h>

#include <algorithm>
#include <mutex>

#include "emulate/tsc.h"

namespace verbsemu::shim::internal {

void* ByteArena::Allocate(size_t n) {
  n = (n + 15) & ~size_t{15};  // keeps every copy 16-byte aligned
  while (block_ < blocks_.size() && used_ + n > blocks_[block_].size()) {
    ++block_;
    used_ = 0;
  }
  if (block_ == blocks_.size()) {
    blocks_.emplace_back(std::max(kBlock, n));
    used_ = 0;
  }
  void* p = blocks_[block_].data() + used_;
  used_ += n;
  return p;
}

void WrRecording::Open(ibv_qp_ex* qpx, const QpExSlots& provider,
                       QpState* owner) {
  Close();
  wr_ids.clear();
  qpx_ = qpx;
  owner_ = owner;
  provider_ = provider;
}

void WrRecording::Close() {
  qpx_ = nullptr;
  owner_ = nullptr;
  entries_.clear();
  arena_.Reset();
  shape = PostShape{};
  opened_tsc = 0;
  first_ud_ah = nullptr;
  max_inline = 0;
  max_sges = 0;
  signaled_at.clear();
}

int WrRecording::Replay(ibv_qp_ex* qpx, bool close_on_room_refusal) {
  const uint64_t app_wr_id = qpx->wr_id;
  const unsigned app_wr_flags = qpx->wr_flags;
  provider_.wr_start(qpx);
  for (const Entry& e : entries_) {
    qpx->wr_id = e.wr_id;
    qpx->wr_flags = e.wr_flags;
    e.replay(provider_, qpx, e.args);
  }
  const int rc = provider_.wr_complete(qpx);
  qpx->wr_id = app_wr_id;
  qpx->wr_flags = app_wr_flags;
  if (rc != ENOMEM || close_on_room_refusal) Close();
  return rc;
}

WrRecording* WrRecordings::Open(ibv_qp_ex* qpx, const QpExSlots& provider,
                                QpState* owner) {
  WrRecording* r = Find(qpx);
  for (size_t i = 0; r == nullptr && i < all_.size(); ++i) {
    if (!all_[i]->open()) r = all_[i].get();
  }
  if (r == nullptr)
    r = all_.emplace_back(std::make_unique<WrRecording>()).get();
  r->Open(qpx, provider, owner);
  return r;
}

namespace {

void ReturnAtOnce(ibv_qp_ex* /*qpx*/) {}
int CompleteAtOnce(ibv_qp_ex* /*qpx*/) { return 0; }
void WriteAtOnce(ibv_qp_ex* /*qpx*/, uint32_t /*rkey*/, uint64_t /*addr*/) {}
void SgeAtOnce(ibv_qp_ex* /*qpx*/, uint32_t /*lkey*/, uint64_t /*addr*/,
               uint32_t /*length*/) {}

}  // namespace

RecordingCost MeasureRecordingCost() {
  QpExSlots provider;
  provider.wr_start = ReturnAtOnce;
  provider.wr_complete = CompleteAtOnce;
  provider.wr_rdma_write = WriteAtOnce;
  provider.wr_set_sge = SgeAtOnce;
  ibv_qp_ex qpx{};
  WrRecordings recordings;
  std::mutex batch_mu;
  std::vector<uint64_t> whole(501), replay(501);
  for (size_t i = 0; i < whole.size(); ++i) {
    const uint64_t t0 = emulate::ReadTsc();
    batch_mu.lock();
    WrRecording* r = recordings.Open(&qpx, provider, nullptr);
    r->shape.Begin(Flow::kOut);
    r->Add<&QpExSlots::wr_rdma_write>(&qpx, uint32_t{1}, uint64_t{0x2000});
    r->shape.AddBytes(64);
    r->Add<&QpExSlots::wr_set_sge>(&qpx, uint32_t{1}, uint64_t{0x1000},
                                   uint32_t{64});
    batch_mu.unlock();
    const uint64_t t1 = emulate::ReadTsc();
    batch_mu.lock();
    r->Replay(&qpx);
    batch_mu.unlock();
    const uint64_t t2 = emulate::ReadTsc();
    whole[i] = t2 - t0;
    replay[i] = t2 - t1;
  }
  const auto median = [](std::vector<uint64_t>& v) {
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return v[v.size() / 2];
  };
  return {median(whole), median(replay)};
}

}  // namespace verbsemu::shim::internal
