#include "nccl_style/nccl_style.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

namespace verbsemu::nccl_style {
namespace {

template <class F>
bool Take(void* h, F*& f, const char* name, std::string* why) {
  f = reinterpret_cast<F*>(dlvsym(h, name, "IBVERBS_1.1"));
  if (f == nullptr) *why = std::string("dlvsym ") + name + " failed";
  return f != nullptr;
}

bool Modify(const Verbs& v, ibv_qp* qp, ibv_qp_attr& a, int mask,
            const char* state, std::string* why) {
  if (v.modify_qp(qp, &a, mask) == 0) return true;
  *why = std::string("cannot move the QP to ") + state;
  return false;
}

}  // namespace

bool Load(Verbs& v, Namespace ns, std::string* why) {
  void* h = ns == Namespace::kOwn
                ? dlmopen(LM_ID_NEWLM, "libibverbs.so.1", RTLD_NOW | RTLD_LOCAL)
                : dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    *why = std::string("dlopen: ") + dlerror();
    return false;
  }
  return Take(h, v.get_device_list, "ibv_get_device_list", why) &&
         Take(h, v.free_device_list, "ibv_free_device_list", why) &&
         Take(h, v.open_device, "ibv_open_device", why) &&
         Take(h, v.close_device, "ibv_close_device", why) &&
         Take(h, v.query_port, "ibv_query_port", why) &&
         Take(h, v.query_gid, "ibv_query_gid", why) &&
         Take(h, v.alloc_pd, "ibv_alloc_pd", why) &&
         Take(h, v.dealloc_pd, "ibv_dealloc_pd", why) &&
         Take(h, v.reg_mr, "ibv_reg_mr", why) &&
         Take(h, v.dereg_mr, "ibv_dereg_mr", why) &&
         Take(h, v.create_cq, "ibv_create_cq", why) &&
         Take(h, v.destroy_cq, "ibv_destroy_cq", why) &&
         Take(h, v.create_qp, "ibv_create_qp", why) &&
         Take(h, v.modify_qp, "ibv_modify_qp", why) &&
         Take(h, v.destroy_qp, "ibv_destroy_qp", why);
}

ibv_context* OpenByName(const Verbs& v, const std::string& name) {
  int n = 0;
  ibv_device** list = v.get_device_list(&n);
  ibv_context* ctx = nullptr;
  for (int i = 0; list != nullptr && i < n && ctx == nullptr; ++i) {
    if (name == list[i]->name) ctx = v.open_device(list[i]);
  }
  if (list != nullptr) v.free_device_list(list);
  return ctx;
}

RcEndpoint::~RcEndpoint() {
  if (qp_ != nullptr) v_.destroy_qp(qp_);
  if (mr_ != nullptr) v_.dereg_mr(mr_);
  if (cq_ != nullptr) v_.destroy_cq(cq_);
  if (pd_ != nullptr) v_.dealloc_pd(pd_);
  if (ctx_ != nullptr) v_.close_device(ctx_);
}

bool RcEndpoint::Open(const std::string& device, size_t bytes, int depth,
                      std::string* why) {
  ctx_ = OpenByName(v_, device);
  if (ctx_ == nullptr) {
    *why = "cannot open " + device;
    return false;
  }
  bytes_ = bytes;
  buf_.assign(2 * bytes, 0);
  pd_ = v_.alloc_pd(ctx_);
  cq_ = pd_ != nullptr ? v_.create_cq(ctx_, 4 * depth, nullptr, nullptr, 0)
                       : nullptr;
  mr_ = cq_ != nullptr
            ? v_.reg_mr(pd_, buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE)
            : nullptr;
  ibv_qp_init_attr init{};
  init.send_cq = cq_;
  init.recv_cq = cq_;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = static_cast<uint32_t>(depth);
  init.cap.max_recv_wr = static_cast<uint32_t>(depth);
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_ = mr_ != nullptr ? v_.create_qp(pd_, &init) : nullptr;
  if (qp_ == nullptr) *why = "cannot make a PD, CQ, MR and RC QP";
  return qp_ != nullptr;
}

bool RcEndpoint::Connect(uint32_t dest_qpn, const ibv_ah_attr& ah,
                         std::string* why) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  if (!Modify(
          v_, qp_, a,
          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
          "INIT", why)) {
    return false;
  }
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.dest_qp_num = dest_qpn;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr = ah;
  if (!Modify(v_, qp_, a,
              IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                  IBV_QP_MIN_RNR_TIMER,
              "RTR", why)) {
    return false;
  }
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.max_rd_atomic = 1;
  return Modify(v_, qp_, a,
                IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
                "RTS", why);
}

bool RcEndpoint::PostRecv() {
  ibv_sge sge{reinterpret_cast<uintptr_t>(received()),
              static_cast<uint32_t>(bytes_), mr_->lkey};
  ibv_recv_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return qp_->context->ops.post_recv(qp_, &wr, &bad) == 0;
}

bool RcEndpoint::PostSend() {
  ibv_sge sge{reinterpret_cast<uintptr_t>(sent()),
              static_cast<uint32_t>(bytes_), mr_->lkey};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  return qp_->context->ops.post_send(qp_, &wr, &bad) == 0;
}

bool RcEndpoint::Reap(int n, int seconds, std::string* why) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (n > 0) {
    ibv_wc wc[2];
    const int k = cq_->context->ops.poll_cq(cq_, std::min(n, 2), wc);
    if (k < 0) {
      *why = "polling the CQ failed";
      return false;
    }
    for (int i = 0; i < k; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        *why = "completion error " + std::to_string(wc[i].status);
        return false;
      }
    }
    n -= k;
    if (k == 0 && std::chrono::steady_clock::now() > until) {
      *why = "no completion within " + std::to_string(seconds) + " s";
      return false;
    }
  }
  return true;
}

}  // namespace verbsemu::nccl_style
