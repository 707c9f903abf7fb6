// One rank of `verbsbench contend`: its device, protection domain, one
// completion queue, one registered buffer (window × wr_size bytes: the
// source of its RDMA writes and the target of the others') and an RC QP
// per slot it is an end of. It connects its QPs to the other ends' and
// runs its part of a graph from a common start time: RDMA WRITEs of
// wr_size, `window` outstanding per QP, posted round-robin over its
// sending edges, the first and the last WRITE WITH IMMEDIATE so that the
// receiver timestamps its start and end. Times are CLOCK_MONOTONIC.
#ifndef VERBSBENCH_INTERNAL_CONTEND_NODE_H_
#define VERBSBENCH_INTERNAL_CONTEND_NODE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verbsbench/contend/schedule.h"
#include "verbsbench/contend/summary.h"
#include "verbsbench/internal/verbs.h"

namespace verbsbench::internal {

struct ContendNodeConfig {
  std::string ib_dev;  // "" = the first device
  int ib_port = 1;
  int gid_index = -1;  // -1: an IPv4-mapped (RoCEv2) GID if any, else 0
  std::int64_t wr_size = 65536;
  int window = 4;
  double timeout_s = 30;  // a run that takes longer fails
  bool yield = false;     // sched_yield() between empty polls
  // --steady: each sender records when each of its WRs completed.
  bool record_completions = false;
};

class ContendNode {
 public:
  explicit ContendNode(ContendNodeConfig config);
  ContendNode(const ContendNode&) = delete;
  ContendNode& operator=(const ContendNode&) = delete;

  static std::int64_t NowNs();  // CLOCK_MONOTONIC

  // {"name", "port"} of the device.
  nlohmann::json Device() const;
  // Creates the QPs of these slots; returns {"SLOT": endpoint} with what
  // the other end needs (QPN, PSN, LID, GID, MTU, buffer address, rkey).
  nlohmann::json Prepare(const std::vector<int>& slots);
  // Brings every prepared QP to RTS against {"SLOT": endpoint} of the
  // other ends.
  void Connect(const nlohmann::json& remote);
  // Posts the receives for the immediates of the plan's receiving edges
  // (before any sender can start).
  void Arm(const std::vector<contend::PlanEdge>& plan);
  // Runs the plan from t0_ns (this rank's clock): each edge's side, its
  // first post or immediate and its last completion, after t0 (and with
  // record_completions each of a sender's WRs' completions).
  std::vector<contend::SideTime> Execute(
      const std::vector<contend::PlanEdge>& plan, std::int64_t t0_ns);

 private:
  struct Sender;
  struct Receiver;
  void OpenDevice();
  void ChooseGid();
  nlohmann::json LocalEndpoint(ibv_qp* qp) const;
  void ToRts(ibv_qp* qp, const nlohmann::json& remote);
  void Post(Sender& s);
  // One poll of the CQ: completions retire senders' WRs and receivers'
  // immediates; *open counts the edges not yet done.
  void Poll(std::vector<Receiver>& receivers, int* open);
  ibv_qp* Qp(int slot) const;

  ContendNodeConfig config_;
  ContextPtr context_;
  ibv_port_attr port_attr_{};
  ibv_gid gid_{};
  int gid_index_ = 0;
  uint32_t psn_ = 0;
  PdPtr pd_;
  CqPtr cq_;
  BufferPtr buffer_;
  MrPtr mr_;
  std::map<int, QpPtr> qps_;              // by slot
  std::map<int, nlohmann::json> remote_;  // by slot: the other end
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_CONTEND_NODE_H_
