#include "verbsbench/internal/ud.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace verbsbench::internal {

std::string UdTooLarge(size_t size, size_t mtu_bytes) {
  return "lop's list round sends UD messages, which carry at most one MTU: " +
         std::to_string(size) + " bytes exceed the path MTU of " +
         std::to_string(mtu_bytes) + " (use -s " + std::to_string(mtu_bytes) +
         " or less, or --op write)";
}

UdQp::UdQp(const UdConfig& config) : config_(config) {
  const size_t mtu = MtuBytes(config_.port_attr.active_mtu);
  if (config_.max_size > mtu) {
    throw std::runtime_error(UdTooLarge(config_.max_size, mtu));
  }
  CreateCqs();
  slot_bytes_ = kGrhBytes + config_.max_size;
  const size_t bytes = config_.max_size + config_.rq_depth * slot_bytes_;
  buffer_ = AllocBuffer(bytes);
  std::memset(buffer_.get(), 0, bytes);
  mr_.reset(
      ibv_reg_mr(config_.pd, buffer_.get(), bytes, IBV_ACCESS_LOCAL_WRITE));
  if (!mr_) Fail("ibv_reg_mr (UD, " + std::to_string(bytes) + " bytes)");
  CreateQp();
  ToRts();
  PostRecvs(config_.rq_depth);
}

void UdQp::CreateCqs() {
  ibv_context* ctx = config_.context;
  recv_channel_.reset(ibv_create_comp_channel(ctx));
  if (!recv_channel_) Fail("ibv_create_comp_channel (UD)");
  send_cq_.reset(ibv_create_cq(ctx, static_cast<int>(config_.sq_depth) + 16,
                               nullptr, nullptr, 0));
  if (!send_cq_) Fail("ibv_create_cq (UD send)");
  recv_cq_.reset(ibv_create_cq(ctx, static_cast<int>(config_.rq_depth) + 16,
                               nullptr, recv_channel_.get(), 0));
  if (!recv_cq_) Fail("ibv_create_cq (UD recv)");
}

void UdQp::CreateQp() {
  // The largest inline size the device grants a UD QP (it may differ from
  // RC's).
  for (uint32_t want :
       {config_.max_inline, 512u, 256u, 220u, 128u, 64u, 32u, 0u}) {
    if (want > config_.max_inline) continue;
    ibv_qp_init_attr attr =
        QpAttributes(IBV_QPT_UD, send_cq_.get(), recv_cq_.get(),
                     config_.sq_depth, config_.rq_depth, want);
    qp_.reset(ibv_create_qp(config_.pd, &attr));
    if (qp_) {
      max_inline_ = attr.cap.max_inline_data;
      return;
    }
  }
  Fail("ibv_create_qp (UD)");
}

void UdQp::ToRts() {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = config_.port;
  attr.qkey = kQkey;
  if (int err = ibv_modify_qp(
          qp_.get(), &attr,
          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) {
    Fail("ibv_modify_qp INIT (UD)", err);
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTR;
  if (int err = ibv_modify_qp(qp_.get(), &attr, IBV_QP_STATE)) {
    Fail("ibv_modify_qp RTR (UD)", err);
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = 0;
  if (int err = ibv_modify_qp(qp_.get(), &attr, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
    Fail("ibv_modify_qp RTS (UD)", err);
  }
}

nlohmann::json UdQp::LocalAddress() const {
  return {{"type", "ud"},
          {"qpn", qp_->qp_num},
          {"qkey", kQkey},
          {"lid", config_.port_attr.lid},
          {"gid", GidString(config_.gid)},
          {"mtu", static_cast<int>(config_.port_attr.active_mtu)}};
}

void UdQp::AddDestination(const nlohmann::json& remote) {
  const size_t mtu = MtuBytes(
      std::min<int>(config_.port_attr.active_mtu, remote.at("mtu").get<int>()));
  if (config_.max_size > mtu) {
    throw std::runtime_error(UdTooLarge(config_.max_size, mtu));
  }
  ibv_ah_attr attr{};
  attr.dlid = remote.at("lid").get<uint16_t>();
  attr.port_num = config_.port;
  if (config_.global) {
    attr.is_global = 1;
    attr.grh.dgid = ParseGid(remote.at("gid").get<std::string>());
    attr.grh.sgid_index = config_.gid_index;
    attr.grh.hop_limit = 64;
  }
  AhPtr ah(ibv_create_ah(config_.pd, &attr));
  if (!ah) Fail("ibv_create_ah");
  destinations_.push_back({std::move(ah), remote.at("qpn").get<uint32_t>(),
                           remote.at("qkey").get<uint32_t>()});
}

void UdQp::PostRecvs(uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t* slot = buffer_.get() + config_.max_size +
                    static_cast<size_t>(next_slot_) * slot_bytes_;
    next_slot_ = (next_slot_ + 1) % config_.rq_depth;
    ibv_sge sge{reinterpret_cast<uintptr_t>(slot),
                static_cast<uint32_t>(slot_bytes_), mr_->lkey};
    ibv_recv_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (int err = ibv_post_recv(qp_.get(), &wr, &bad)) {
      Fail("ibv_post_recv (UD)", err);
    }
    posted_recvs_++;
  }
}

}  // namespace verbsbench::internal
