#include "shim/internal/defer_synth.h"

#include <algorithm>
#include <vector>

#include "shim/internal/no_destructor.h"

namespace verbsemu::shim::internal {

void SyntheticCompletions::Add(const ibv_cq* cq, const ibv_wc& wc) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back({cq, wc});
  pending_.store(queue_.size(), std::memory_order_release);
}

int SyntheticCompletions::Take(const ibv_cq* cq, int n, ibv_wc* wc) {
  if (n <= 0 || Empty()) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  int taken = 0;
  for (auto it = queue_.begin(); it != queue_.end() && taken < n;) {
    if (it->cq != cq) {
      ++it;
      continue;
    }
    wc[taken++] = it->wc;
    it = queue_.erase(it);
  }
  pending_.store(queue_.size(), std::memory_order_release);
  return taken;
}

size_t SyntheticCompletions::PendingFor(const ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(
      std::count_if(queue_.begin(), queue_.end(),
                    [cq](const Entry& e) { return e.cq == cq; }));
}

void SyntheticCompletions::Forget(const ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(queue_, [cq](const Entry& e) { return e.cq == cq; });
  pending_.store(queue_.size(), std::memory_order_release);
}

namespace {
struct ExtendedCqs {
  std::mutex mu;
  std::vector<const ibv_cq*> cqs;  // under mu
};
ExtendedCqs& Extended() {
  static NoDestructor<ExtendedCqs> e;
  return *e.get();
}
}  // namespace

void NoteExtendedCq(const ibv_cq* cq) {
  ExtendedCqs& e = Extended();
  std::lock_guard<std::mutex> lock(e.mu);
  e.cqs.push_back(cq);
}

void ForgetExtendedCq(const ibv_cq* cq) {
  ExtendedCqs& e = Extended();
  std::lock_guard<std::mutex> lock(e.mu);
  std::erase(e.cqs, cq);
}

bool IsExtendedCq(const ibv_cq* cq) {
  ExtendedCqs& e = Extended();
  std::lock_guard<std::mutex> lock(e.mu);
  return std::find(e.cqs.begin(), e.cqs.end(), cq) != e.cqs.end();
}

ibv_wc ErrorCompletion(uint64_t wr_id, uint32_t qp_num, ibv_wc_status status,
                       int err) {
  ibv_wc wc{};
  wc.wr_id = wr_id;
  wc.status = status;
  // An error completion's opcode is not defined; a send's is given.
  wc.opcode = IBV_WC_SEND;
  wc.vendor_err = static_cast<uint32_t>(err);
  wc.qp_num = qp_num;
  return wc;
}

}  // namespace verbsemu::shim::internal
