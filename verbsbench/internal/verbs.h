// RAII owners for every verbs and rdma_cm object verbsbench creates.
#ifndef VERBSBENCH_INTERNAL_VERBS_H_
#define VERBSBENCH_INTERNAL_VERBS_H_

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace verbsbench::internal {

// Throws "what: strerror(err)".
[[noreturn]] inline void Fail(const std::string& what, int err = errno) {
  throw std::runtime_error(what + ": " + std::strerror(err));
}

template <auto Destroy>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    if (p) Destroy(p);
  }
};

using DeviceListPtr =
    std::unique_ptr<ibv_device*, Deleter<ibv_free_device_list>>;
using ContextPtr = std::unique_ptr<ibv_context, Deleter<ibv_close_device>>;
using PdPtr = std::unique_ptr<ibv_pd, Deleter<ibv_dealloc_pd>>;
using MrPtr = std::unique_ptr<ibv_mr, Deleter<ibv_dereg_mr>>;
using CqPtr = std::unique_ptr<ibv_cq, Deleter<ibv_destroy_cq>>;
using QpPtr = std::unique_ptr<ibv_qp, Deleter<ibv_destroy_qp>>;
using AhPtr = std::unique_ptr<ibv_ah, Deleter<ibv_destroy_ah>>;
using CompChannelPtr =
    std::unique_ptr<ibv_comp_channel, Deleter<ibv_destroy_comp_channel>>;
using CmChannelPtr =
    std::unique_ptr<rdma_event_channel, Deleter<rdma_destroy_event_channel>>;
using CmIdPtr = std::unique_ptr<rdma_cm_id, Deleter<rdma_destroy_id>>;

// A QP created through rdma_create_qp belongs to its cm id.
struct CmQpDeleter {
  void operator()(rdma_cm_id* id) const {
    if (id) rdma_destroy_qp(id);
  }
};
using CmQpPtr = std::unique_ptr<rdma_cm_id, CmQpDeleter>;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using BufferPtr = std::unique_ptr<uint8_t, FreeDeleter>;

inline BufferPtr AllocBuffer(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0) {
    throw std::runtime_error("out of memory allocating " +
                             std::to_string(bytes) + " bytes");
  }
  return BufferPtr(static_cast<uint8_t*>(p));
}

// A GID as the control channel carries it (IPv6 notation).
inline std::string GidString(const ibv_gid& gid) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, gid.raw, buf, sizeof(buf));
  return buf;
}

inline ibv_gid ParseGid(const std::string& s) {
  ibv_gid gid{};
  if (inet_pton(AF_INET6, s.c_str(), gid.raw) != 1) {
    throw std::runtime_error("bad GID from peer: " + s);
  }
  return gid;
}

// Bytes of an MTU (IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5).
inline size_t MtuBytes(int mtu) { return size_t{128} << mtu; }

// The creation attributes of a QP of `type` with one SGE per WR (the RC
// endpoints and lop's UD QP).
inline ibv_qp_init_attr QpAttributes(ibv_qp_type type, ibv_cq* send_cq,
                                     ibv_cq* recv_cq, uint32_t sq_depth,
                                     uint32_t rq_depth, uint32_t max_inline) {
  ibv_qp_init_attr attr{};
  attr.send_cq = send_cq;
  attr.recv_cq = recv_cq;
  attr.qp_type = type;
  attr.cap.max_send_wr = sq_depth;
  attr.cap.max_recv_wr = rq_depth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  attr.cap.max_inline_data = max_inline;
  return attr;
}

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_VERBS_H_
