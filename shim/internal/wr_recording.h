// An ibv_wr_* batch held back from the provider. Its calls are recorded as
// the application makes them and replayed into the provider (wr_start, the
// calls, wr_complete) once the emulation's waits are over, so no wait runs
// while the provider holds its send-queue lock (mlx5 takes it in wr_start
// and releases it in wr_complete or wr_abort). Each recording belongs to one
// thread; a thread may build batches on several QPs at once.
#ifndef VERBSEMU_SHIM_INTERNAL_WR_RECORDING_H_
#define VERBSEMU_SHIM_INTERNAL_WR_RECORDING_H_

#include <infiniband/verbs.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "shim/internal/post_shape.h"
#include "shim/internal/qp_ex_slots.h"

namespace verbsemu::shim::internal {

struct QpState;

// Bytes that stay where they are until Reset (blocks never move).
class ByteArena {
 public:
  void* Allocate(size_t n);
  void Reset() { block_ = 0, used_ = 0; }

 private:
  static constexpr size_t kBlock = size_t{64} * 1024;
  std::vector<std::vector<std::byte>> blocks_;
  size_t block_ = 0, used_ = 0;
};

class WrRecording {
 public:
  // Every argument of an ibv_qp_ex slot after the QP fits in one of these.
  using Args = std::array<uint64_t, 4>;

  // Starts recording a batch on `qpx`, to be replayed through `provider`;
  // `owner` names the QP state whose batch lock the recording holds.
  void Open(ibv_qp_ex* qpx, const QpExSlots& provider, QpState* owner);
  bool IsFor(const ibv_qp_ex* qpx) const { return qpx_ == qpx; }
  bool open() const { return qpx_ != nullptr; }
  QpState* owner() const { return owner_; }
  // Forgets the batch (wr_abort, or after Replay).
  void Close();

  // A copy of `n` objects at `p`, valid until the recording closes.
  template <class T>
  T* Keep(T* p, size_t n) {
    if (p == nullptr || n == 0) return p;
    void* copy = arena_.Allocate(n * sizeof(T));
    std::memcpy(copy, p, n * sizeof(T));
    return static_cast<T*>(copy);
  }

  // Records a call of the provider's `Slot` with `args` (pointers already
  // kept), and the wr_id and wr_flags the application had set.
  template <auto Slot, class... A>
  void Add(ibv_qp_ex* qpx, A... args) {
    static_assert(sizeof...(A) <= std::tuple_size_v<Args>);
    Entry& e = entries_.emplace_back();
    e.replay = &ReplayOne<Slot, A...>;
    e.wr_id = qpx->wr_id;
    e.wr_flags = qpx->wr_flags;
    e.args = {Pack(args)...};
  }

  // The provider's wr_start, the recorded calls, its wr_complete; then the
  // recording closes, unless `close_on_room_refusal` is false and the
  // provider had no room (ENOMEM): the batch can then be replayed again.
  // Returns wr_complete's result.
  int Replay(ibv_qp_ex* qpx, bool close_on_room_refusal = true);

  PostShape shape;          // what the batch moves, as the calls were recorded
  uint64_t opened_tsc = 0;  // the TSC at the batch's wr_start (0: not read)
  // What a provider checks of the batch: its largest inline data (one
  // setter call) and SGE list, and which WRs are signaled (1 + index).
  uint64_t max_inline = 0;
  size_t max_sges = 0;
  std::vector<uint32_t> signaled_at;
  // The batch's WRs' wr_ids, in order: kept until the next Open, so that
  // WRs a provider refused can still be completed in error after the
  // replay closed the recording (defer_synth.h).
  std::vector<uint64_t> wr_ids;
  // A WR begun (after shape.Begin) with the application's `wr_flags` and
  // `wr_id`.
  void NoteWr(unsigned wr_flags, uint64_t wr_id) {
    wr_ids.push_back(wr_id);
    if ((wr_flags & IBV_SEND_SIGNALED) != 0) {
      signaled_at.push_back(static_cast<uint32_t>(shape.wrs));
    }
  }
  // The batch's first wr_set_ud_addr: a UD batch's delay is its first WR's
  // destination's, as a UD chain's is (peer_class.h).
  const ibv_ah* first_ud_ah = nullptr;

 private:
  struct Entry {
    void (*replay)(const QpExSlots&, ibv_qp_ex*, const Args&) = nullptr;
    uint64_t wr_id = 0;
    unsigned wr_flags = 0;
    Args args{};
  };

  template <class T>
  static uint64_t Pack(T v) {
    if constexpr (std::is_pointer_v<T>) {
      return reinterpret_cast<uintptr_t>(v);
    } else {
      static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(uint64_t));
      return static_cast<uint64_t>(v);
    }
  }
  template <class T>
  static T Unpack(uint64_t v) {
    if constexpr (std::is_pointer_v<T>) {
      // Back to the pointer Pack stored: it came from a pointer.
      return reinterpret_cast<T>(  // NOLINT(performance-no-int-to-ptr)
          static_cast<uintptr_t>(v));
    } else {
      return static_cast<T>(v);
    }
  }
  template <auto Slot, class... A, size_t... I>
  static void Call(const QpExSlots& p, ibv_qp_ex* qpx, const Args& a,
                   std::index_sequence<I...> /*unused*/) {
    (p.*Slot)(qpx, Unpack<A>(a[I])...);
  }
  template <auto Slot, class... A>
  static void ReplayOne(const QpExSlots& p, ibv_qp_ex* qpx, const Args& a) {
    Call<Slot, A...>(p, qpx, a, std::index_sequence_for<A...>{});
  }

  ibv_qp_ex* qpx_ = nullptr;
  QpState* owner_ = nullptr;
  QpExSlots provider_;
  std::vector<Entry> entries_;
  ByteArena arena_;
};

// A thread's recordings, reused from batch to batch.
class WrRecordings {
 public:
  // The open recording for `qpx`, or nullptr.
  WrRecording* Find(const ibv_qp_ex* qpx) {
    for (const auto& r : all_) {
      if (r->IsFor(qpx)) return r.get();
    }
    return nullptr;
  }
  // A recording opened for `qpx` (an unfinished one for it starts over).
  WrRecording* Open(ibv_qp_ex* qpx, const QpExSlots& provider, QpState* owner);
  // Where `r` is held, so a deferred post can take it and leave a closed
  // one in its place.
  std::unique_ptr<WrRecording>* SlotOf(const WrRecording* r) {
    for (auto& slot : all_) {
      if (slot.get() == r) return &slot;
    }
    return nullptr;
  }

 private:
  std::vector<std::unique_ptr<WrRecording>> all_;
};

// The shim's own cost of holding a batch back, in TSC ticks, over a provider
// whose functions return at once (medians of 501): `whole` recording a
// write and its SGE, the batch lock taken and released twice, and the
// replay; `replay` the part after the wait (the lock and the replay). The
// wait of a recorded batch is shortened by these, as the spin's fixed cost
// shortens every wait (qp_ex.cc, RecordedOrigin).
struct RecordingCost {
  uint64_t whole = 0;
  uint64_t replay = 0;
};
RecordingCost MeasureRecordingCost();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_WR_RECORDING_H_
