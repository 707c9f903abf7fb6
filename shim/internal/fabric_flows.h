// VERBSEMU_FABRIC=penalty: the contention graph of the node's active
// transfers, in shared memory, and the rate each one gets from it.
//
// Every connected QP that sends is a flow, an edge from its port's address
// to its peer's (AddressKey), in one table shared by every process of the
// user and job on the node (one shared-memory domain, as the ingress links
// are). A flow is active while it has bytes queued (deferred posts not yet
// booked) or on its simulated wire. When a deferred post reaches its
// queue's head (defer.cc), it is booked on its flow's wire at the rate
// B_port / rho(e), rho from the penalty model (Martinasso & Mehaut's rules,
// models/contention) over the graph of the flows active then. So the rates
// follow the graph's steps WR by WR: a change of the graph reaches a flow
// at its next WR, not within the one on the wire (docs/contention.md).
#ifndef VERBSEMU_SHIM_INTERNAL_FABRIC_FLOWS_H_
#define VERBSEMU_SHIM_INTERNAL_FABRIC_FLOWS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "models/contention/penalty_file.h"
#include "settings/knobs.h"
#include "shim/internal/shm_segment.h"

namespace verbsemu::shim::internal {

// One flow's slot. `pid` 0: free; negative: being claimed by -pid.
struct FlowSlot {
  std::atomic<int32_t> pid{0};
  std::atomic<uint32_t> unused{0};
  std::atomic<uint64_t> src{0}, dst{0};   // hashes of the address keys
  std::atomic<int64_t> queued{0};         // posts not yet booked
  std::atomic<uint64_t> wire_end{0};      // TSC: its last booked byte's end
  std::atomic<uint64_t> active_since{0};  // TSC: when it last became active
};

// The node's flows. Zero-filled is new.
struct SharedFlows {
  static constexpr uint64_t kTag = SegmentTag(4, 1);  // name: -flows-v1-
  static constexpr size_t kSlots = 512;
  std::atomic<uint64_t> tag{0};
  FlowSlot slots[kSlots];
};

// A claimed slot, released (freed) when this goes.
class FlowClaim {
 public:
  FlowClaim() = default;
  FlowClaim(const FlowClaim&) = delete;
  FlowClaim& operator=(const FlowClaim&) = delete;
  ~FlowClaim() { Release(); }
  FlowSlot* get() const { return slot_.load(std::memory_order_acquire); }
  // Holds `s` (claimed by this process) from now on; frees the one before.
  void Reset(FlowSlot* s);
  void Release() { Reset(nullptr); }

 private:
  std::atomic<FlowSlot*> slot_{nullptr};
};

// The table this process uses: mapped on first use, else one of its own
// (a warning says the node's other processes cannot see its flows).
class FabricFlows {
 public:
  // A slot for a flow from `src` to `dst` (address keys), or null when the
  // table is full (a warning says so, once).
  FlowSlot* Claim(const std::string& src, const std::string& dst);
  // The penalty rho >= 1 of `self` in the graph of the flows active at
  // `now` (self always among them), by `model`; *latest (if not null): the
  // latest time another flow became active or left (its last byte through)
  // by `now`.
  // A failure (out of memory) says so once and gives 1.
  double Penalty(const FlowSlot& self, uint64_t now,
                 const contention::PenaltyFile& penalties,
                 uint64_t* latest = nullptr) noexcept;
  // Forgets the penalties computed so far (the engine's penalties change).
  void ForgetPenalties();
  // Frees the slots of processes that are gone (at most every 100 ms).
  void Reap(uint64_t now);
  size_t claimed() const { return claimed_.load(); }

 private:
  double PenaltyOf(const FlowSlot& self, uint64_t now,
                   const contention::PenaltyFile& penalties, uint64_t* latest);
  // rho of g's edge 0 (self), each graph computed once (ib-hol's penalty is
  // a simulation of milliseconds; the rules' are cheap): the memo is keyed
  // by the edge list, vertices numbered as they come with self first, so
  // flows in the same place of one shape share an entry.
  double Memoized(const contention::Graph& g,
                  const contention::PenaltyFile& penalties);
  SharedFlows* Table();
  // Taken with try_lock only: a drainer never waits for it (nor a forked
  // child for a lock its parent's threads held), it computes instead.
  std::mutex memo_mu_;
  const contention::PenaltyFile* memo_of_ = nullptr;
  std::unordered_map<std::string, double> memo_;
  std::atomic<SharedFlows*> table_{nullptr};
  SharedObjectPtr<SharedFlows> shared_;
  std::unique_ptr<SharedFlows> own_;
  std::atomic<uint64_t> next_reap_{0};
  std::atomic<size_t> claimed_{0};
};

struct LateIngress;
struct QpState;

// Where VERBSEMU_FABRIC=penalty takes the penalties from (VERBSEMU_PENALTIES,
// else mm2011-node), and its name for the report.
const contention::PenaltyFile& PenaltiesOf(const Settings& s);
std::string PenaltiesName(const Settings& s);

// A post is queued on `flow` at `now`: it is active from now if it was not.
void NoteQueued(FlowSlot& flow, uint64_t now);

// When to look at the front post of q's queue again, due by `now`, for
// what it owes q's flow (`late`): booked the first time, from when its
// first byte may leave and after what the flow carries already, at B_port
// / rho over the flows active now; at every later look re-rated if flows
// that became active or left since changed its penalty (from the latest
// change on, for the bytes left: the paper's step at every arrival and
// departure), so a transfer that started alone a moment before the others
// shares with them from its first WR, and one whose competitors ended
// takes the rate they left. Looks come at the booking's end and, for a
// long one, every eighth of it (a departure shortens it by then). Clears
// `late` when nothing more is owed. 0: hand it over now (`now` is
// kNeverDue: it leaves unbooked).
uint64_t FlowDue(QpState* q, FlowSlot& flow, LateIngress* late, uint64_t now);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FABRIC_FLOWS_H_
