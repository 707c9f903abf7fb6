#include "shim/internal/deferred_post.h"

#include <cstring>
#include <utility>

namespace verbsemu::shim::internal {
namespace {

// LOCAL_INV and BIND_MW carry no data: their sg_list and num_sge may be
// left unset, so they are neither read nor copied.
bool HasSgList(const ibv_send_wr& wr) {
  return wr.opcode != IBV_WR_LOCAL_INV && wr.opcode != IBV_WR_BIND_MW &&
         wr.num_sge > 0;
}

bool IsInline(const ibv_send_wr& wr) {
  return (wr.send_flags & IBV_SEND_INLINE) != 0;
}

}  // namespace

void DeferredPost::CopyChain(const ibv_send_wr* first,
                             const ibv_send_wr* stop) {
  size_t n = 0, sges = 0, bytes = 0;
  for (const ibv_send_wr* w = first; w != nullptr && w != stop; w = w->next) {
    ++n;
    if (HasSgList(*w)) {
      sges += static_cast<size_t>(w->num_sge);
      for (int i = 0; IsInline(*w) && i < w->num_sge; ++i) {
        bytes += w->sg_list[i].length;
      }
    }
    if (w->opcode == IBV_WR_TSO) bytes += w->tso.hdr_sz;
  }
  chain_.resize(n);
  sges_.resize(sges);
  bytes_.resize(bytes);
  first_ = 0;
  size_t wi = 0, si = 0, bi = 0;
  for (const ibv_send_wr* w = first; w != nullptr && w != stop; w = w->next) {
    ibv_send_wr& copy = chain_[wi++];
    copy = *w;
    copy.sg_list = nullptr;
    if (!HasSgList(*w)) {
      copy.num_sge = 0;
    } else {
      copy.sg_list = &sges_[si];
      for (int i = 0; i < w->num_sge; ++i) {
        ibv_sge& s = sges_[si++];
        s = w->sg_list[i];
        if (!IsInline(*w) || s.length == 0) continue;
        // NOLINTNEXTLINE(performance-no-int-to-ptr): the application's own
        std::memcpy(&bytes_[bi], reinterpret_cast<const void*>(s.addr),
                    s.length);
        s.addr = reinterpret_cast<uintptr_t>(&bytes_[bi]);
        bi += s.length;
      }
    }
    if (w->opcode == IBV_WR_TSO && w->tso.hdr_sz > 0) {
      std::memcpy(&bytes_[bi], w->tso.hdr, w->tso.hdr_sz);
      copy.tso.hdr = &bytes_[bi];
      bi += w->tso.hdr_sz;
    }
  }
  Relink();
}

void DeferredPost::Relink() {
  for (size_t i = first_; i < chain_.size(); ++i) {
    chain_[i].next = i + 1 < chain_.size() ? &chain_[i + 1] : nullptr;
  }
}

void DeferredPost::TakeBatch(std::unique_ptr<WrRecording>* recording) {
  if (batch_ == nullptr) batch_ = std::make_unique<WrRecording>();
  batch_->Close();
  std::swap(batch_, *recording);
  chain_.clear();
  first_ = 0;
}

size_t DeferredPost::KeepFrom(const ibv_send_wr* bad) {
  size_t went = 0;
  while (first_ < chain_.size() && &chain_[first_] != bad) {
    ++first_;
    ++went;
  }
  return went;
}

void DeferredPost::Clear() {
  chain_.clear();
  first_ = 0;
  if (batch_ != nullptr) batch_->Close();
  shape = PostShape{};
  lane = nullptr;
  seq = 0;
  all_signaled = false;
  late = LateIngress{};
}

}  // namespace verbsemu::shim::internal
