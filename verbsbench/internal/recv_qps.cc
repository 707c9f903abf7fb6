#include "verbsbench/internal/recv_qps.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace verbsbench::internal {

void RecvQps::Ensure(int p) {
  if (!cq_) {
    cq_.reset(ibv_create_cq(fabric_.context(), 16, nullptr, nullptr, 0));
    if (!cq_) throw std::runtime_error("ibv_create_cq (o_r)");
    ibv_device_attr dev{};
    ibv_query_device(fabric_.context(), &dev);
    depth_ = std::min<uint32_t>(1024, static_cast<uint32_t>(dev.max_qp_wr));
  }
  while (static_cast<int>(qps_.size()) < p) {
    ibv_qp_init_attr attr{};
    attr.send_cq = cq_.get();
    attr.recv_cq = cq_.get();
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 1;
    attr.cap.max_recv_wr = depth_;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    QpPtr qp(ibv_create_qp(fabric_.pd(), &attr));
    if (!qp) Fail("ibv_create_qp (o_r)");
    depth_ = std::min(depth_, attr.cap.max_recv_wr);
    qps_.push_back(std::move(qp));
    posted_.push_back(0);
    ToInit(qps_.back().get());
  }
}

void RecvQps::ToInit(ibv_qp* qp) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = static_cast<uint8_t>(fabric_.config().ib_port);
  attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
  if (int err = ibv_modify_qp(qp, &attr,
                              IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                  IBV_QP_ACCESS_FLAGS)) {
    Fail("ibv_modify_qp INIT (o_r)", err);
  }
}

void RecvQps::Reset(int q) {
  ibv_qp* qp = qps_[static_cast<size_t>(q)].get();
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RESET;
  if (int err = ibv_modify_qp(qp, &attr, IBV_QP_STATE)) {
    Fail("ibv_modify_qp RESET (o_r)", err);
  }
  ToInit(qp);
  posted_[static_cast<size_t>(q)] = 0;
}

void RecvQps::Stage(int p, bool list) {
  Ensure(p);
  const size_t n = static_cast<size_t>(p);
  if (wrs_.size() < n) {
    wrs_.resize(n);
    sges_.resize(n);
  }
  const int qps = list ? 1 : p;
  const uint32_t per_qp = list ? static_cast<uint32_t>(p) : 1;
  for (int q = 0; q < qps; ++q) {
    if (posted_[static_cast<size_t>(q)] + per_qp > depth_) Reset(q);
  }
  Endpoint& ep = *fabric_.endpoints().at(0);
  for (size_t j = 0; j < n; ++j) {
    sges_[j] = {reinterpret_cast<uintptr_t>(ep.recv_buf), 8, ep.mr->lkey};
    wrs_[j] = {};
    wrs_[j].wr_id = j;
    wrs_[j].sg_list = &sges_[j];
    wrs_[j].num_sge = 1;
    wrs_[j].next = list && j + 1 < n ? &wrs_[j + 1] : nullptr;
  }
}

int RecvQps::Post(int p, bool list) {
  ibv_recv_wr* bad = nullptr;
  if (list) return ibv_post_recv(qps_[0].get(), &wrs_[0], &bad);
  int err = 0;
  for (size_t q = 0; q < static_cast<size_t>(p) && !err; ++q) {
    err = ibv_post_recv(qps_[q].get(), &wrs_[q], &bad);
  }
  return err;
}

void RecvQps::Finish(int p, bool list, int err) {
  if (err) Fail("ibv_post_recv", err);
  const int qps = list ? 1 : p;
  const uint32_t per_qp = list ? static_cast<uint32_t>(p) : 1;
  for (int q = 0; q < qps; ++q) posted_[static_cast<size_t>(q)] += per_qp;
}

}  // namespace verbsbench::internal
