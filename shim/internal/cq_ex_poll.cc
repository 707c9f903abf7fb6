#include "shim/internal/cq_ex_poll.h"

#include <errno.h>

#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "emulate/tsc.h"
#include "shim/internal/cq_ex_fields.h"
#include "shim/internal/defer.h"
#include "shim/internal/defer_queue.h"
#include "shim/internal/no_destructor.h"
#include "shim/internal/ptr_map.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

// One wrapped CQ. Its poll state is the polling thread's: an application
// polls a CQ from one thread at a time, start to end.
struct CqExState {
  ibv_cq_ex provider{};        // the provider's functions, as it made them
  bool provider_open = false;  // its start_poll succeeded, end_poll owed
  bool provider_done = false;  // it had nothing more in this poll
  bool synthetic = false;      // the current completion is the shim's
  ibv_wc current{};            // the shim's current completion
};

// Writers hold E().mu (a forked child never finds it held).
struct Wrapped {
  PtrMap<CqExState> map{12};
  std::vector<std::unique_ptr<CqExState>> states;  // under E().mu
};

Wrapped& W() {
  static NoDestructor<Wrapped> w;
  return *w.get();
}

CqExState* Find(const ibv_cq_ex* cq) { return W().map.Find(cq); }

// The shim's next completion for `cq`, if one is queued, becomes the
// current one.
int NextSynthetic(CqExState* s, ibv_cq_ex* cq) {
  ibv_cq* base = ibv_cq_ex_to_cq(cq);
  DeferList* list = ListOf(base);
  if (list == nullptr || list->synth.EmptyRelaxed() ||
      TakeSynthetic(list, base, 1, &s->current) != 1) {
    s->synthetic = false;
    return ENOENT;
  }
  s->synthetic = true;
  cq->wr_id = s->current.wr_id;
  cq->status = s->current.status;
  return 0;
}

// The provider's current completion was polled: a send's frees its QP's
// send queue (as ibv_poll_cq's do), when the CQ tells its QP.
void NoteProviders(const CqExState* s, ibv_cq_ex* cq, DeferList* list) {
  if (list == nullptr || cq->status != IBV_WC_SUCCESS ||
      s->provider.read_qp_num == nullptr) {
    return;
  }
  ibv_wc wc{};
  wc.status = cq->status;
  wc.opcode = s->provider.read_opcode(cq);
  wc.qp_num = s->provider.read_qp_num(cq);
  NoteSendCompletions(list, &wc, 1);
}

int StartPoll(ibv_cq_ex* cq, ibv_poll_cq_attr* attr) noexcept {
  CqExState* s = Find(cq);
  if (s == nullptr) return ENOENT;
  DeferList* list = ListOf(ibv_cq_ex_to_cq(cq));
  const uint64_t now = list != nullptr ? emulate::ReadTsc() : 0;
  const AppCall call(list, now);
  DrainDueOnPoll(list, now);
  // The shim's completions queued before the provider's look: those of
  // the same QPs' earlier WRs the provider returns first.
  const bool had_synthetic = list != nullptr && !list->synth.Empty();
  s->synthetic = false;
  const int rc = s->provider.start_poll(cq, attr);
  s->provider_open = rc == 0;
  s->provider_done = rc == ENOENT;
  if (rc == 0) NoteProviders(s, cq, list);
  if (rc != ENOENT || !had_synthetic) return rc;
  return NextSynthetic(s, cq);
}

int NextPoll(ibv_cq_ex* cq) noexcept {
  CqExState* s = Find(cq);
  if (s == nullptr) return ENOENT;
  if (!s->provider_done) {
    DeferList* list = ListOf(ibv_cq_ex_to_cq(cq));
    const bool had_synthetic = list != nullptr && !list->synth.Empty();
    const int rc = s->provider.next_poll(cq);
    if (rc == 0) NoteProviders(s, cq, list);
    if (rc != ENOENT) return rc;
    s->provider_done = true;
    if (!had_synthetic) return ENOENT;
  }
  return NextSynthetic(s, cq);
}

void EndPoll(ibv_cq_ex* cq) noexcept {
  CqExState* s = Find(cq);
  if (s == nullptr) return;
  if (s->provider_open) s->provider.end_poll(cq);
  s->provider_open = false;
  s->provider_done = false;
  s->synthetic = false;
}

// NOLINTBEGIN(bugprone-macro-parentheses): `type` is a return type
#define VERBSEMU_WRAP_READ(slot, type, value)       \
  type Wrapped_##slot(ibv_cq_ex* cq) noexcept {     \
    const CqExState* s = Find(cq);                  \
    if (s == nullptr) return type{};                \
    if (!s->synthetic) return s->provider.slot(cq); \
    [[maybe_unused]] const ibv_wc& wc = s->current; \
    return value;                                   \
  }
VERBSEMU_CQ_EX_READS(VERBSEMU_WRAP_READ)
// NOLINTEND(bugprone-macro-parentheses)
#undef VERBSEMU_WRAP_READ

void WrappedReadTmInfo(ibv_cq_ex* cq, ibv_wc_tm_info* info) noexcept {
  const CqExState* s = Find(cq);
  if (s != nullptr && !s->synthetic) {
    s->provider.read_tm_info(cq, info);
  } else {
    *info = {};
  }
}

// The provider's functions go to `s`, the shim's into `cq`: the reads the
// provider left empty (not asked for at creation) stay empty.
void Install(ibv_cq_ex* cq, CqExState* s) {
  s->provider = *cq;
  cq->start_poll = StartPoll;
  cq->next_poll = NextPoll;
  cq->end_poll = EndPoll;
#define VERBSEMU_SET_READ(slot, type, value) \
  if (cq->slot != nullptr) cq->slot = Wrapped_##slot;
  VERBSEMU_CQ_EX_READS(VERBSEMU_SET_READ)
#undef VERBSEMU_SET_READ
  if (cq->read_tm_info != nullptr) cq->read_tm_info = WrappedReadTmInfo;
}

// The provider's functions back into `cq`, wherever the shim's are.
void Uninstall(ibv_cq_ex* cq, const CqExState& s) {
  cq->start_poll = s.provider.start_poll;
  cq->next_poll = s.provider.next_poll;
  cq->end_poll = s.provider.end_poll;
#define VERBSEMU_RESTORE_READ(slot, type, value) \
  if (cq->slot == Wrapped_##slot) cq->slot = s.provider.slot;
  VERBSEMU_CQ_EX_READS(VERBSEMU_RESTORE_READ)
#undef VERBSEMU_RESTORE_READ
  if (cq->read_tm_info == WrappedReadTmInfo) {
    cq->read_tm_info = s.provider.read_tm_info;
  }
}

}  // namespace

bool WrapCqEx(ibv_cq_ex* cq) noexcept {
  if (cq == nullptr || cq->start_poll == nullptr ||
      cq->read_opcode == nullptr || cq->next_poll == nullptr ||
      cq->end_poll == nullptr) {
    return false;
  }
  try {
    Wrapped& w = W();
    std::lock_guard<std::mutex> lock(E().mu);
    // A CQ at the address of one destroyed unseen: its state is reused.
    CqExState* s = w.map.Find(cq);
    if (s == nullptr) {
      w.states.push_back(std::make_unique<CqExState>());
      s = w.states.back().get();
      if (!w.map.Insert(cq, s)) {
        w.states.pop_back();
        return false;
      }
    }
    *s = CqExState{};
    Install(cq, s);
    return true;
  } catch (...) {
    return false;
  }
}

bool ForgetCqEx(ibv_cq* cq) noexcept {
  if (cq == nullptr) return false;
  Wrapped& w = W();
  std::lock_guard<std::mutex> lock(E().mu);
  CqExState* s = w.map.Find(cq);
  if (s == nullptr) return false;
  Uninstall(reinterpret_cast<ibv_cq_ex*>(cq), *s);
  w.map.Erase(cq);
  std::erase_if(w.states, [s](const auto& p) { return p.get() == s; });
  return true;
}

}  // namespace verbsemu::shim::internal
