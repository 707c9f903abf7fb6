#include "shim/internal/wr_recording.h"

#include <algorithm>

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
}

int WrRecording::Replay(ibv_qp_ex* qpx) {
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
  Close();
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

}  // namespace verbsemu::shim::internal
