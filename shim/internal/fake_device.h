// A recording fake RDMA device for shim tests and the device-boundary
// benchmark: a real verbs_context (sz set, extended ABI marker), op tables
// and ibv_qp_ex slots whose functions record every call with its TSC stamp,
// and a RealVerbs table that routes the control path to the fake.
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_DEVICE_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_DEVICE_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "shim/internal/fake_faults.h"
#include "shim/internal/real_verbs.h"

namespace verbsemu::shim::internal {

class FakeDevice;

// How the fake provider treats its ibv_qp_ex slots after creation.
enum class Personality {
  // Slots set once at creation (rxe, and most providers in rdma-core v44).
  kPlain,
  // As mlx5 in rdma-core v44 and v50 (providers/mlx5/verbs.c
  // set_qp_operational_state, providers/mlx5/qp.c):
  // - at creation and on every move to RESET the provider writes its error
  //   variant into wr_complete (roll back, unlock, EINVAL); on every move to
  //   RTS it writes the real one. Each write happens only if the slot is
  //   non-NULL, so a wrapper the shim installed is overwritten.
  // - ibv_post_send refuses with ENOMEM, *bad_wr the WR: every WR until the
  //   QP first reaches RTS (after creation or RESET), a WR with more SGEs
  //   than max_send_sge, inline data above max_inline_data, and a WR that
  //   finds max_send_wr WRs outstanding (a send queue genuinely full: a
  //   signaled WR's completion, once polled, frees it and those before it).
  //   The ibv_wr_* setters note the same as an error that wr_complete
  //   returns, rolling the batch back. A cap left 0 at creation is not
  //   enforced (the fake's stand-in for "whatever the test did not ask").
  // - different setter functions for RC/UC and for UD/XRC QPs
  //   (fill_wr_setters_rc_uc, fill_wr_setters_ud_xrc_dc): a setter of the
  //   other family counts in wrong_setter_calls.
  // - with MLX5_SINGLE_THREADED=1 in the environment when a context is
  //   opened, the provider takes no locks on it: two threads inside its
  //   post path (ibv_post_send, or wr_start..wr_complete) at once count in
  //   concurrent_entries.
  kMlx5,
  // As EFA (libefa): SRD QPs (IBV_QPT_DRIVER) are made only through
  // efadv_create_qp_ex or efadv_create_driver_qp (the RealVerbs entries),
  // verbs creation takes UD alone, and an SRD QP with send ops posts only
  // through ibv_wr_* (ibv_post_send: EOPNOTSUPP), addressed by
  // wr_set_ud_addr, as libfabric posts on it.
  kEfa,
};

struct FakeContext {
  verbs_context vctx;  // first: ibv_context* -> verbs_get_ctx -> this
  FakeDevice* owner;
  bool single_threaded = false;      // kMlx5 with MLX5_SINGLE_THREADED=1
  std::atomic<int> in_post_path{0};  // threads inside its post path
};

struct FakeQp;

struct FakeCqe {
  ibv_wc wc;
  uint64_t ready_tsc = 0;  // polled from then on (the fake wire, below)
  // A send completion: its QP, and that QP's sq_head after the WR (its
  // polling frees the WR and the unsignaled ones before it).
  FakeQp* qp = nullptr;
  uint64_t sq_index = 0;
};

struct FakeCq {
  union {  // first; an extended CQ (fake_cq.h) begins as an ibv_cq
    ibv_cq cq;
    ibv_cq_ex cqx;
  };
  std::mutex mu;
  std::deque<FakeCqe> entries;
  uint64_t wire_free_at = 0;  // under mu: when the fake wire is free again
  bool armed = false;         // under mu: ibv_req_notify_cq (fake_faults.h)
  // Extended CQs: the completion the reads return (the polling thread's),
  // and the polls started (a completion returned) and not yet ended.
  ibv_wc current{};
  std::atomic<int> ex_polls{0};
};

struct FakeWr {
  uint64_t wr_id = 0;
  uint64_t bytes = 0;
  int opcode = 0;
  bool signaled = false;
  uint32_t remote_qpn = 0;               // wr_set_ud_addr
  uint64_t digest = 0xcbf29ce484222325;  // of its SGEs and inline data
};

struct FakeQp {
  ibv_qp_ex qpx;  // first; qpx.qp_base is the ibv_qp
  FakeContext* ctx = nullptr;
  bool ex = false;
  bool sig_all = false;
  bool destroyed = false;
  std::mutex sq_mu;           // the "provider lock", wr_start..complete
  std::vector<FakeWr> batch;  // under sq_mu
  bool in_batch = false;      // under sq_mu
  uint64_t locked_at = 0;     // under sq_mu
  ibv_qp_attr attr{};
  int attr_mask_seen = 0;
  // Personality::kMlx5's checks: the caps asked for at creation, whether
  // the QP reached RTS since creation or RESET, WRs taken (under sq_mu)
  // and freed by polled completions, and a batch's first error.
  ibv_qp_cap cap{};
  std::atomic<bool> sq_open{false};
  std::atomic<uint64_t> sq_head{0};
  std::atomic<uint64_t> sq_tail{0};
  int batch_err = 0;  // under sq_mu
  // In ERR (a modify, or a fault): every WR completes with a flush error.
  std::atomic<bool> in_error{false};
};

struct PostRecord {
  uint64_t tsc = 0;
  const ibv_qp* qp = nullptr;
  uint64_t wr_id = 0;
  uint64_t bytes = 0;
  int opcode = 0;
  bool via_wr_api = false;
  uint32_t remote_qpn = 0;
  // ibv_wr_* posts: FakeWr::digest; ibv_post_send: of an inline WR's data
  uint64_t digest = 0;
};

class FakeDevice {
 public:
  explicit FakeDevice(const char* name);
  ~FakeDevice();
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

  ibv_device* device() { return &dev_.dev; }

  // RealVerbs whose entries operate on fake devices (any FakeDevice).
  static RealVerbs MakeRealVerbs();

  // As libibverbs does (a provider's free_context calls the exported
  // verbs_uninit_context), close_device calls this hook first when set:
  // tests point it at the shim's hook, so re-entry is exercised.
  static void SetUninitHook(void (*hook)(verbs_context*));
  // As a provider does across the library boundary: with a hook set, the
  // fake's open_device hands the context its ops through it, first
  // libibverbs' placeholder ops, then the provider's (tests point it at the
  // shim's verbs_set_ops hook); destroy_qp issues the destroy command
  // through the other (the shim's ibv_cmd_destroy_qp hook). nullptr: direct.
  static void SetSetOpsHook(void (*hook)(verbs_context*, const void*));
  static void SetCmdDestroyQpHook(int (*hook)(ibv_qp*));
  // As if `qp` had been destroyed and a new QP created at its address: a
  // new QP number, back in RESET.
  static void RecycleQp(ibv_qp* qp);

  // --- behaviour knobs
  // post_send fails at this WR index of a chain (-1: never), with ENOMEM.
  std::atomic<int> fail_post_at{-1};
  std::atomic<bool> fail_complete{false};
  // destroy_qp refuses (EBUSY), as a provider does for a QP still in use.
  std::atomic<bool> fail_destroy_qp{false};
  // destroy_cq refuses (EBUSY), as for a CQ that QPs still use.
  std::atomic<bool> fail_destroy_cq{false};
  // Runs inside destroy_qp, before the QP goes (tests look at the shim then).
  std::function<void(ibv_qp*)> on_destroy_qp;
  std::atomic<bool> record_posts{true};
  // The second byte of its IPv4-mapped GIDs (::ffff:10.HOST.PORT.INDEX+1):
  // 0 by default; fake devices that stand for different nodes differ.
  uint8_t gid_host = 0;
  // The faulty mode (fake_faults.h): every probability 0 unless set.
  FakeFaults faults;
  // Called with each record as it is made (a forked child's test reports
  // what its device saw through it).
  std::function<void(const PostRecord&)> on_record;
  // Data-path calls return at once (success, nothing recorded): isolates the
  // shim's own cost in the pass-through benchmark.
  std::atomic<bool> null_ops{false};
  // A wire behind the device (the message-rate benchmark): each signaled
  // completion is polled `wire_latency_ticks` after its message has held
  // the wire for `wire_msg_ticks`, one message at a time. 0: at once.
  std::atomic<uint64_t> wire_latency_ticks{0};
  std::atomic<uint64_t> wire_msg_ticks{0};
  // post_recv completes each WR at once on the QP's receive CQ, a
  // successful IBV_WC_RECV (the receive side's completions, for tests).
  std::atomic<bool> complete_recvs{false};
  // ibv_create_cq_ex makes extended CQs (fake_cq.h); otherwise it
  // fails with EOPNOTSUPP.
  std::atomic<bool> extended_cqs{false};
  Personality personality = Personality::kPlain;
  uint8_t active_speed = 32;  // EDR
  uint8_t active_width = 2;   // 4x -> 100 Gbit/s
  ibv_mtu active_mtu = IBV_MTU_1024;

  // --- records
  std::vector<PostRecord> Posts();
  // Room for `n` posts' records, its memory touched now: a timed run then
  // neither grows the record nor faults its pages in (both stall the
  // poster for milliseconds).
  void ReservePosts(size_t n);
  std::atomic<uint64_t> last_post_tsc{0};
  std::atomic<uint64_t> last_post_bytes{0};
  std::atomic<uint64_t> post_calls{0};
  std::atomic<uint64_t> poll_calls{0};
  std::atomic<uint64_t> recv_calls{0};
  std::atomic<uint64_t> notify_calls{0};
  std::atomic<uint64_t> create_cq_ex_calls{0};
  std::atomic<uint64_t> complete_errors{0};  // mlx5's error variant ran
  // The longest the provider's send-queue lock was held (TSC ticks), and
  // ibv_wr_* builder calls that reached it outside wr_start..wr_complete.
  std::atomic<uint64_t> sq_held_max_ticks{0};
  std::atomic<uint64_t> calls_outside_batch{0};
  std::atomic<uint64_t> ud_datagrams{0};
  std::atomic<uint64_t> ud_bytes{0};
  // Personality::kMlx5: a setter of the other QP-type family ran, and two
  // threads were inside one lock-free context's post path at once.
  std::atomic<uint64_t> wrong_setter_calls{0};
  std::atomic<uint64_t> concurrent_entries{0};
  // How long each entry into the post path lasts at least (ns): widens the
  // window in which concurrent entries are seen.
  std::atomic<uint64_t> post_dwell_ns{0};
  std::atomic<int> open_contexts{0};
  std::atomic<int> live_qps{0};
  std::atomic<int> live_pds{0};
  std::atomic<int> live_mrs{0};
  std::atomic<int> live_ahs{0};
  std::atomic<int> live_cqs{0};

  // Internal (used by the fake's C callbacks).
  void Record(const PostRecord& r);
  std::mutex mu;
  std::vector<std::unique_ptr<FakeContext>> contexts;
  std::vector<std::unique_ptr<FakeQp>> qps;
  std::vector<std::unique_ptr<FakeCq>> cqs;
  std::vector<std::unique_ptr<ibv_pd>> pds;
  std::vector<std::unique_ptr<ibv_mr>> mrs;
  std::vector<std::unique_ptr<ibv_ah>> ahs;

 private:
  struct FakeIbvDevice {
    ibv_device dev;  // first
    FakeDevice* owner;
  };
  FakeIbvDevice dev_{};
  std::mutex rec_mu_;
  std::vector<PostRecord> posts_;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_DEVICE_H_
