// Test-bed client written the way NCCL's ibvsymbols.cc/ibvwrap.h use
// libibverbs: the library is dlopen()ed privately (RTLD_LOCAL), every verb
// is taken with dlvsym() from that handle, and posts and polls go through
// qp->context->ops. The program itself never links libibverbs, so the shim
// can see it only through libibverbs' own calls (verbs_open_device on
// Debian's build) or the provider's (verbs_set_ops on a -Bsymbolic build).
// An RC send/receive ping-pong over a TCP exchange of QP numbers and GIDs:
//   nccl_style_pingpong -d DEV -x GID_INDEX -p PORT [-n ITERS] [-s BYTES]
//                       [--hide] [SERVER_ADDRESS]
// Without SERVER_ADDRESS it serves one client. --hide runs the ping-pong
// through a second libibverbs loaded in a link namespace of its own
// (dlmopen), which no preload reaches, while the device is also opened
// through the usual one: a QP the shim cannot see beside a context it sees.
// The client prints
//   device DEV iters N bytes S t_min_us X t_median_us Y
// one-way latencies (half the round trip), and both ends exit 0 on success.
#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The out-of-band TCP exchange: the server accepts one client.
class OobSocket {
 public:
  OobSocket() = default;
  OobSocket(const OobSocket&) = delete;
  OobSocket& operator=(const OobSocket&) = delete;
  ~OobSocket() {
    if (fd_ >= 0) close(fd_);
  }
  // Serves on `port` when `host` is empty, else connects to it (retrying for
  // 30 s while the server is not listening yet).
  bool Open(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = host.empty() ? AI_PASSIVE : 0;
    addrinfo* ai = nullptr;
    const std::string service = std::to_string(port);
    if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(),
                    &hints, &ai) != 0) {
      return false;
    }
    const bool ok = host.empty() ? Accept(ai) : ConnectRetrying(ai);
    freeaddrinfo(ai);
    return ok;
  }
  bool Exchange(const void* mine, void* theirs, size_t n) {
    return write(fd_, mine, n) == static_cast<ssize_t>(n) && ReadAll(theirs, n);
  }
  bool Barrier() {
    char mine = 'b', theirs = 0;
    return Exchange(&mine, &theirs, 1) && theirs == 'b';
  }

 private:
  bool Accept(const addrinfo* ai) {
    const int l = socket(ai->ai_family, ai->ai_socktype, 0);
    const int one = 1;
    const bool ok =
        l >= 0 &&
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
        bind(l, ai->ai_addr, ai->ai_addrlen) == 0 && listen(l, 1) == 0;
    if (ok) fd_ = accept(l, nullptr, nullptr);
    if (l >= 0) close(l);
    return fd_ >= 0;
  }
  bool ConnectRetrying(const addrinfo* ai) {
    for (int i = 0; i < 300; ++i) {
      fd_ = socket(ai->ai_family, ai->ai_socktype, 0);
      if (fd_ >= 0 && connect(fd_, ai->ai_addr, ai->ai_addrlen) == 0) {
        return true;
      }
      if (fd_ >= 0) close(fd_);
      fd_ = -1;
      usleep(100'000);
    }
    return false;
  }
  bool ReadAll(void* p, size_t n) {
    auto* c = static_cast<char*>(p);
    while (n > 0) {
      const ssize_t k = read(fd_, c, n);
      if (k <= 0) return false;
      c += k;
      n -= static_cast<size_t>(k);
    }
    return true;
  }
  int fd_ = -1;
};

// The verbs this client takes from its private handle, NCCL-style.
struct Verbs {
  ibv_device** (*get_device_list)(int*);
  void (*free_device_list)(ibv_device**);
  ibv_context* (*open_device)(ibv_device*);
  int (*close_device)(ibv_context*);
  ibv_pd* (*alloc_pd)(ibv_context*);
  int (*dealloc_pd)(ibv_pd*);
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int);
  int (*dereg_mr)(ibv_mr*);
  ibv_cq* (*create_cq)(ibv_context*, int, void*, ibv_comp_channel*, int);
  int (*destroy_cq)(ibv_cq*);
  ibv_qp* (*create_qp)(ibv_pd*, ibv_qp_init_attr*);
  int (*modify_qp)(ibv_qp*, ibv_qp_attr*, int);
  int (*destroy_qp)(ibv_qp*);
  int (*query_gid)(ibv_context*, uint8_t, int, ibv_gid*);
};

template <class F>
bool Take(void* h, F*& f, const char* name) {
  f = reinterpret_cast<F*>(dlvsym(h, name, "IBVERBS_1.1"));
  if (f == nullptr) std::fprintf(stderr, "dlvsym %s failed\n", name);
  return f != nullptr;
}

bool Load(Verbs& v, bool hide) {
  void* h = hide
                ? dlmopen(LM_ID_NEWLM, "libibverbs.so.1", RTLD_NOW | RTLD_LOCAL)
                : dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return false;
  }
  return Take(h, v.get_device_list, "ibv_get_device_list") &&
         Take(h, v.free_device_list, "ibv_free_device_list") &&
         Take(h, v.open_device, "ibv_open_device") &&
         Take(h, v.close_device, "ibv_close_device") &&
         Take(h, v.alloc_pd, "ibv_alloc_pd") &&
         Take(h, v.dealloc_pd, "ibv_dealloc_pd") &&
         Take(h, v.reg_mr, "ibv_reg_mr") &&
         Take(h, v.dereg_mr, "ibv_dereg_mr") &&
         Take(h, v.create_cq, "ibv_create_cq") &&
         Take(h, v.destroy_cq, "ibv_destroy_cq") &&
         Take(h, v.create_qp, "ibv_create_qp") &&
         Take(h, v.modify_qp, "ibv_modify_qp") &&
         Take(h, v.destroy_qp, "ibv_destroy_qp") &&
         Take(h, v.query_gid, "ibv_query_gid");
}

struct Options {
  std::string device;
  int gid_index = 0;
  int port = 18515;
  int iters = 1000;
  int bytes = 8;
  std::string server;  // empty: serve
  bool hide = false;
};

bool Parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "-d" && has_value) {
      o.device = argv[++i];
    } else if (a == "-x" && has_value) {
      o.gid_index = std::atoi(argv[++i]);
    } else if (a == "-p" && has_value) {
      o.port = std::atoi(argv[++i]);
    } else if (a == "-n" && has_value) {
      o.iters = std::atoi(argv[++i]);
    } else if (a == "-s" && has_value) {
      o.bytes = std::atoi(argv[++i]);
    } else if (a == "--hide") {
      o.hide = true;
    } else if (!a.empty() && a[0] != '-' && o.server.empty()) {
      o.server = a;
    } else {
      return false;
    }
  }
  return !o.device.empty() && o.iters > 0 && o.bytes > 0 && o.port > 0;
}

// What each end tells the other.
struct Endpoint {
  uint32_t qpn;
  ibv_gid gid;
};

// Every resource of one end, released in reverse order.
struct Resources {
  const Verbs* v = nullptr;
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
  ibv_mr* mr = nullptr;
  std::vector<char> buf;
  ~Resources() {
    if (qp) v->destroy_qp(qp);
    if (mr) v->dereg_mr(mr);
    if (cq) v->destroy_cq(cq);
    if (pd) v->dealloc_pd(pd);
    if (ctx) v->close_device(ctx);
  }
};

bool Open(const Verbs& v, const Options& o, Resources& r) {
  int n = 0;
  ibv_device** list = v.get_device_list(&n);
  for (int i = 0; list != nullptr && i < n && r.ctx == nullptr; ++i) {
    if (o.device == list[i]->name) r.ctx = v.open_device(list[i]);
  }
  if (list != nullptr) v.free_device_list(list);
  if (r.ctx == nullptr) {
    std::fprintf(stderr, "cannot open RDMA device %s\n", o.device.c_str());
    return false;
  }
  r.buf.assign(static_cast<size_t>(o.bytes), 0);
  r.pd = v.alloc_pd(r.ctx);
  r.cq = r.pd ? v.create_cq(r.ctx, 16, nullptr, nullptr, 0) : nullptr;
  r.mr =
      r.cq ? v.reg_mr(r.pd, r.buf.data(), r.buf.size(), IBV_ACCESS_LOCAL_WRITE)
           : nullptr;
  ibv_qp_init_attr init{};
  init.send_cq = r.cq;
  init.recv_cq = r.cq;
  init.qp_type = IBV_QPT_RC;
  init.cap = {.max_send_wr = 4,
              .max_recv_wr = 4,
              .max_send_sge = 1,
              .max_recv_sge = 1,
              .max_inline_data = 0};
  r.qp = r.mr ? v.create_qp(r.pd, &init) : nullptr;
  if (r.qp == nullptr) std::fprintf(stderr, "cannot set up the QP\n");
  return r.qp != nullptr;
}

bool Connect(const Verbs& v, const Options& o, Resources& r,
             const Endpoint& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  if (v.modify_qp(r.qp, &a,
                  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0) {
    return false;
  }
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.dest_qp_num = peer.qpn;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.is_global = 1;
  a.ah_attr.grh.dgid = peer.gid;
  a.ah_attr.grh.sgid_index = static_cast<uint8_t>(o.gid_index);
  a.ah_attr.grh.hop_limit = 1;
  a.ah_attr.port_num = 1;
  if (v.modify_qp(r.qp, &a,
                  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                      IBV_QP_MIN_RNR_TIMER) != 0) {
    return false;
  }
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.max_rd_atomic = 1;
  return v.modify_qp(r.qp, &a,
                     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                         IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                         IBV_QP_MAX_QP_RD_ATOMIC) == 0;
}

// Posts and polls through the context's ops, as NCCL's wrappers do.
bool PostRecv(Resources& r) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(r.buf.data()),
              static_cast<uint32_t>(r.buf.size()), r.mr->lkey};
  ibv_recv_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return r.qp->context->ops.post_recv(r.qp, &wr, &bad) == 0;
}

bool PostSend(Resources& r) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(r.buf.data()),
              static_cast<uint32_t>(r.buf.size()), r.mr->lkey};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  return r.qp->context->ops.post_send(r.qp, &wr, &bad) == 0;
}

// Waits for `n` successful completions (10 s at most), taking no more than
// `n`: the next message's may already be there.
bool Reap(Resources& r, int n) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (n > 0) {
    ibv_wc wc[2];
    const int k = r.cq->context->ops.poll_cq(r.cq, std::min(n, 2), wc);
    if (k < 0) return false;
    for (int i = 0; i < k; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        std::fprintf(stderr, "completion error %d\n", wc[i].status);
        return false;
      }
    }
    n -= k;
    if (k == 0 && std::chrono::steady_clock::now() > until) {
      std::fprintf(stderr, "no completion within 10 s\n");
      return false;
    }
  }
  return true;
}

// The client's timed loop: send, then wait for the echo and our own send's
// completion; returns one-way latencies in µs.
bool Run(Resources& r, const Options& o, std::vector<double>* one_way) {
  for (int i = 0; i < o.iters; ++i) {
    if (!PostRecv(r)) return false;
    const auto t0 = std::chrono::steady_clock::now();
    if (!PostSend(r) || !Reap(r, 2)) return false;
    const auto t1 = std::chrono::steady_clock::now();
    one_way->push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
  }
  return true;
}

bool Serve(Resources& r, const Options& o) {
  for (int i = 0; i < o.iters; ++i) {
    if (!Reap(r, 1) || !PostRecv(r) || !PostSend(r) || !Reap(r, 1)) {
      return false;
    }
  }
  return true;
}

// The device opened through the usual libibverbs, the one a preload sees.
ibv_context* OpenVisible(const Options& o, Verbs& visible) {
  if (!Load(visible, /*hide=*/false)) return nullptr;
  int n = 0;
  ibv_device** list = visible.get_device_list(&n);
  ibv_context* ctx = nullptr;
  for (int i = 0; list != nullptr && i < n && ctx == nullptr; ++i) {
    if (o.device == list[i]->name) ctx = visible.open_device(list[i]);
  }
  if (list != nullptr) visible.free_device_list(list);
  return ctx;
}

int Main(const Options& o) {
  Verbs visible{};
  ibv_context* seen = o.hide ? OpenVisible(o, visible) : nullptr;
  if (o.hide && seen == nullptr) {
    std::fprintf(stderr, "cannot open %s through the usual libibverbs\n",
                 o.device.c_str());
    return 1;
  }
  Verbs v{};
  if (!Load(v, o.hide)) return 1;
  Resources r;
  r.v = &v;
  if (!Open(v, o, r)) return 1;
  Endpoint me{r.qp->qp_num, {}};
  if (v.query_gid(r.ctx, 1, o.gid_index, &me.gid) != 0) {
    std::fprintf(stderr, "cannot read GID %d\n", o.gid_index);
    return 1;
  }
  OobSocket sock;
  Endpoint peer{};
  if (!sock.Open(o.server, o.port) || !sock.Exchange(&me, &peer, sizeof(me))) {
    std::fprintf(stderr, "TCP exchange failed on port %d\n", o.port);
    return 1;
  }
  // The server's first receive is posted before the client may send.
  if (!Connect(v, o, r, peer) || (o.server.empty() && !PostRecv(r)) ||
      !sock.Barrier()) {
    std::fprintf(stderr, "cannot connect the QP\n");
    return 1;
  }
  if (o.server.empty()) {
    const bool ok = Serve(r, o) && sock.Barrier();
    if (seen != nullptr) visible.close_device(seen);
    return ok ? 0 : 1;
  }
  std::vector<double> one_way;
  if (!Run(r, o, &one_way) || !sock.Barrier()) return 1;
  if (seen != nullptr) visible.close_device(seen);
  std::sort(one_way.begin(), one_way.end());
  std::printf("device %s iters %d bytes %d t_min_us %.3f t_median_us %.3f\n",
              o.device.c_str(), o.iters, o.bytes, one_way.front(),
              one_way[one_way.size() / 2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: nccl_style_pingpong -d DEV -x GID_INDEX -p PORT "
                 "[-n ITERS] [-s BYTES] [--hide] [SERVER_ADDRESS]\n");
    return 2;
  }
  return Main(o);
}
