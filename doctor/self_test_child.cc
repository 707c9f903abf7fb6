// The self-test's child: libibverbs reached only as NCCL reaches it
// (shim/nccl_style_pingpong.cc is the full client): a private dlopen, every
// verb taken with dlvsym from that handle, posts and polls through
// qp->context->ops. One RC QP connected to itself (its own QPN, a GID of
// port 1, or its LID on InfiniBand), one receive and one signaled
// send, both completions polled for at most 5 s.
#include <dlfcn.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "doctor/self_test.h"

namespace verbsemu::doctor {
namespace {

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

bool Fail(const std::string& why) {
  std::fprintf(stderr, "verbsemu doctor: self-test child: %s\n", why.c_str());
  return false;
}

template <class F>
bool Take(void* h, F*& f, const char* name) {
  f = reinterpret_cast<F*>(dlvsym(h, name, "IBVERBS_1.1"));
  return f != nullptr || Fail(std::string("dlvsym ") + name + " failed");
}

bool Load(Verbs& v) {
  void* h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return Fail(std::string("dlopen: ") + dlerror());
  return Take(h, v.get_device_list, "ibv_get_device_list") &&
         Take(h, v.free_device_list, "ibv_free_device_list") &&
         Take(h, v.open_device, "ibv_open_device") &&
         Take(h, v.close_device, "ibv_close_device") &&
         Take(h, v.query_port, "ibv_query_port") &&
         Take(h, v.query_gid, "ibv_query_gid") &&
         Take(h, v.alloc_pd, "ibv_alloc_pd") &&
         Take(h, v.dealloc_pd, "ibv_dealloc_pd") &&
         Take(h, v.reg_mr, "ibv_reg_mr") &&
         Take(h, v.dereg_mr, "ibv_dereg_mr") &&
         Take(h, v.create_cq, "ibv_create_cq") &&
         Take(h, v.destroy_cq, "ibv_destroy_cq") &&
         Take(h, v.create_qp, "ibv_create_qp") &&
         Take(h, v.modify_qp, "ibv_modify_qp") &&
         Take(h, v.destroy_qp, "ibv_destroy_qp");
}

// Every resource, released in reverse order.
struct Resources {
  const Verbs* v = nullptr;
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_mr* mr = nullptr;
  ibv_qp* qp = nullptr;
  char buf[2][64] = {};  // [0] sent, [1] received
  Resources() = default;
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;
  ~Resources() {
    if (qp) v->destroy_qp(qp);
    if (mr) v->dereg_mr(mr);
    if (cq) v->destroy_cq(cq);
    if (pd) v->dealloc_pd(pd);
    if (ctx) v->close_device(ctx);
  }
};

bool Open(const Verbs& v, const std::string& device, Resources& r) {
  int n = 0;
  ibv_device** list = v.get_device_list(&n);
  for (int i = 0; list != nullptr && i < n && r.ctx == nullptr; ++i) {
    if (device == list[i]->name) r.ctx = v.open_device(list[i]);
  }
  if (list != nullptr) v.free_device_list(list);
  if (r.ctx == nullptr) return Fail("cannot open " + device);
  r.pd = v.alloc_pd(r.ctx);
  r.cq = r.pd ? v.create_cq(r.ctx, 4, nullptr, nullptr, 0) : nullptr;
  r.mr = r.cq ? v.reg_mr(r.pd, r.buf, sizeof(r.buf), IBV_ACCESS_LOCAL_WRITE)
              : nullptr;
  ibv_qp_init_attr init{};
  init.send_cq = r.cq;
  init.recv_cq = r.cq;
  init.qp_type = IBV_QPT_RC;
  init.cap = {.max_send_wr = 1,
              .max_recv_wr = 1,
              .max_send_sge = 1,
              .max_recv_sge = 1,
              .max_inline_data = 0};
  r.qp = r.mr ? v.create_qp(r.pd, &init) : nullptr;
  return r.qp != nullptr || Fail("cannot make a PD, CQ, MR and RC QP");
}

bool IsIpv4Mapped(const ibv_gid& g) {
  static const uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.raw, kPrefix, sizeof(kPrefix)) == 0;
}

// The port's GID to reach itself by: one carrying an IPv4 address (RoCE v2
// over IPv4, as the test bed uses) when there is one, else the first
// non-zero one; -1 when none.
int PickGid(const Verbs& v, Resources& r, int table_len, ibv_gid& out) {
  int first = -1;
  for (int i = 0; i < table_len && i < 256; ++i) {
    ibv_gid gid{};
    if (v.query_gid(r.ctx, 1, i, &gid) != 0 || gid.global.interface_id == 0) {
      continue;
    }
    if (first < 0 || IsIpv4Mapped(gid)) {
      first = i;
      out = gid;
    }
    if (IsIpv4Mapped(gid)) break;
  }
  return first;
}

// The address of port 1 itself: its LID on InfiniBand, else a GID.
bool SelfAddress(const Verbs& v, const std::string& device, Resources& r,
                 ibv_ah_attr& ah) {
  ibv_port_attr port{};
  if (v.query_port(r.ctx, 1, &port) != 0) return Fail("cannot query port 1");
  std::ifstream ll("/sys/class/infiniband/" + device + "/ports/1/link_layer");
  std::string layer;
  ll >> layer;
  ah = {};
  ah.port_num = 1;
  if (layer == "InfiniBand") {
    ah.dlid = port.lid;
    return true;
  }
  ibv_gid gid{};
  const int index = PickGid(v, r, port.gid_tbl_len, gid);
  if (index < 0) return Fail("port 1 has no valid GID");
  ah.is_global = 1;
  ah.grh.dgid = gid;
  ah.grh.sgid_index = static_cast<uint8_t>(index);
  ah.grh.hop_limit = 1;
  return true;
}

bool Connect(const Verbs& v, Resources& r, const ibv_ah_attr& self) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  if (v.modify_qp(r.qp, &a,
                  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0) {
    return Fail("cannot move the QP to INIT");
  }
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.dest_qp_num = r.qp->qp_num;  // itself
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr = self;
  if (v.modify_qp(r.qp, &a,
                  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                      IBV_QP_MIN_RNR_TIMER) != 0) {
    return Fail("cannot move the QP to RTR (connected to itself)");
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
                         IBV_QP_MAX_QP_RD_ATOMIC) == 0 ||
         Fail("cannot move the QP to RTS");
}

// One receive, one signaled send, through the context's ops.
bool Post(Resources& r) {
  ibv_sge rsge{reinterpret_cast<uintptr_t>(r.buf[1]), sizeof(r.buf[1]),
               r.mr->lkey};
  ibv_recv_wr rwr{};
  rwr.sg_list = &rsge;
  rwr.num_sge = 1;
  ibv_recv_wr* rbad = nullptr;
  if (r.qp->context->ops.post_recv(r.qp, &rwr, &rbad) != 0) {
    return Fail("cannot post the receive");
  }
  std::strcpy(r.buf[0], "verbsemu doctor");
  ibv_sge ssge{reinterpret_cast<uintptr_t>(r.buf[0]), sizeof(r.buf[0]),
               r.mr->lkey};
  ibv_send_wr swr{};
  swr.sg_list = &ssge;
  swr.num_sge = 1;
  swr.opcode = IBV_WR_SEND;
  swr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* sbad = nullptr;
  return r.qp->context->ops.post_send(r.qp, &swr, &sbad) == 0 ||
         Fail("cannot post the send");
}

// Both completions, successful, within 5 s.
bool Reap(Resources& r) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int left = 2;
  while (left > 0) {
    ibv_wc wc[2];
    const int k = r.cq->context->ops.poll_cq(r.cq, left, wc);
    if (k < 0) return Fail("polling the CQ failed");
    for (int i = 0; i < k; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        return Fail("completion error " + std::to_string(wc[i].status));
      }
    }
    left -= k;
    if (k == 0 && std::chrono::steady_clock::now() > until) {
      return Fail("no completion within 5 s");
    }
  }
  return std::strcmp(r.buf[1], r.buf[0]) == 0 ||
         Fail("the message arrived changed");
}

}  // namespace

int RunSelfTestChild(const std::string& device) {
  Verbs v{};
  if (!Load(v)) return 1;
  Resources r;
  r.v = &v;
  ibv_ah_attr self{};
  const bool ok = Open(v, device, r) && SelfAddress(v, device, r, self) &&
                  Connect(v, r, self) && Post(r) && Reap(r);
  return ok ? 0 : 1;
}

}  // namespace verbsemu::doctor
