// libibverbs reached the way NCCL reaches it (src/misc/ibvsymbols.cc,
// ibvwrap.h): the library dlopen()ed privately, every verb taken with
// dlvsym() from that handle, posts and polls through qp->context->ops. A
// program built on this never links libibverbs, so a preloaded library sees
// its devices only through libibverbs' own calls and the providers'. Used by
// `verbsemu doctor`'s self-test and by the test bed's NCCL-style client.
#ifndef VERBSEMU_NCCL_STYLE_NCCL_STYLE_H_
#define VERBSEMU_NCCL_STYLE_NCCL_STYLE_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace verbsemu::nccl_style {

struct Verbs {
  ibv_device** (*get_device_list)(int*);
  void (*free_device_list)(ibv_device**);
  ibv_context* (*open_device)(ibv_device*);
  int (*close_device)(ibv_context*);
  int (*query_port)(ibv_context*, uint8_t, ibv_port_attr*);
  int (*query_gid)(ibv_context*, uint8_t, int, ibv_gid*);
  ibv_pd* (*alloc_pd)(ibv_context*);
  int (*dealloc_pd)(ibv_pd*);
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int);
  int (*dereg_mr)(ibv_mr*);
  ibv_cq* (*create_cq)(ibv_context*, int, void*, ibv_comp_channel*, int);
  int (*destroy_cq)(ibv_cq*);
  ibv_qp* (*create_qp)(ibv_pd*, ibv_qp_init_attr*);
  int (*modify_qp)(ibv_qp*, ibv_qp_attr*, int);
  int (*destroy_qp)(ibv_qp*);
};

// Where the private libibverbs is loaded: the usual link namespace (the
// same library a preload sees), or one of its own (dlmopen LM_ID_NEWLM),
// which no preload reaches.
enum class Namespace { kUsual, kOwn };

// Loads libibverbs.so.1 and takes every verb; false with `why`.
bool Load(Verbs& v, Namespace ns, std::string* why);

// Opens the device named `name`, or nullptr.
ibv_context* OpenByName(const Verbs& v, const std::string& name);

// One RC QP with its PD, CQ and a registered buffer of two halves (sent,
// received), all released in reverse order.
class RcEndpoint {
 public:
  explicit RcEndpoint(const Verbs& v) : v_(v) {}
  ~RcEndpoint();
  RcEndpoint(const RcEndpoint&) = delete;
  RcEndpoint& operator=(const RcEndpoint&) = delete;

  // Device, PD, CQ, `bytes` per message, and an RC QP of `depth` WRs.
  bool Open(const std::string& device, size_t bytes, int depth,
            std::string* why);
  // INIT, RTR to `dest_qpn` at `ah` (port 1), RTS.
  bool Connect(uint32_t dest_qpn, const ibv_ah_attr& ah, std::string* why);
  // Through the context's ops: a receive into the received half, a
  // signaled send of the sent half.
  bool PostRecv();
  bool PostSend();
  // Waits for `n` successful completions, taking no more than `n` (the next
  // message's may be there already); false with `why` after `seconds`.
  bool Reap(int n, int seconds, std::string* why);

  ibv_context* context() const { return ctx_; }
  ibv_qp* qp() const { return qp_; }
  char* sent() { return buf_.data(); }
  char* received() { return buf_.data() + bytes_; }
  size_t bytes() const { return bytes_; }

 private:
  const Verbs& v_;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_qp* qp_ = nullptr;
  size_t bytes_ = 0;
  std::vector<char> buf_;
};

}  // namespace verbsemu::nccl_style

#endif  // VERBSEMU_NCCL_STYLE_NCCL_STYLE_H_
