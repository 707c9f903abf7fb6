#include "shim/internal/fake_qp.h"

#include "shim/internal/engine.h"
#include "shim/internal/real_verbs.h"

namespace verbsemu::shim::internal {
namespace {

ibv_qp* CreateRcQp(const FakeQpEnv& e, const FakeQpOptions& o) {
  if (o.wr_api) {
    ibv_qp_init_attr_ex a{};
    a.send_cq = e.cq;
    a.recv_cq = e.cq;
    a.qp_type = IBV_QPT_RC;
    a.pd = e.pd;
    a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    a.send_ops_flags = o.send_ops;
    return ibv_create_qp_ex(e.ctx, &a);  // inline: verbs_context slot
  }
  ibv_qp_init_attr init{};
  init.send_cq = e.cq;
  init.recv_cq = e.cq;
  init.qp_type = IBV_QPT_RC;
  // The exported ibv_create_qp: the shim's entry point or the device's.
  return o.through_shim ? CreateQp(e.pd, &init) : Real().create_qp(e.pd, &init);
}

}  // namespace

FakeQpEnv MakeFakeQp(FakeDevice& d, const FakeQpOptions& o) {
  FakeQpEnv e;
  e.ctx =
      o.through_shim ? OpenDevice(d.device()) : Real().open_device(d.device());
  if (e.ctx == nullptr) return e;
  e.pd = Real().alloc_pd(e.ctx);
  e.cq = o.through_shim
             ? CreateCq(e.ctx, o.cq_depth, nullptr, nullptr, 0)
             : Real().create_cq(e.ctx, o.cq_depth, nullptr, nullptr, 0);
  e.qp = CreateRcQp(e, o);
  if (e.qp == nullptr) return e;
  if (o.wr_api) e.qpx = Real().qp_to_qp_ex(e.qp);
  if (o.connect && !ConnectFakeQp(e.qp, o.through_shim)) e.qp = nullptr;
  return e;
}

bool ConnectFakeQp(ibv_qp* qp, bool through_shim, bool with_av) {
  auto modify = through_shim ? ModifyQp : Real().modify_qp;
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PORT) != 0) return false;
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.ah_attr.port_num = 1;
  a.ah_attr.dlid = 7;
  a.ah_attr.is_global = 1;
  a.ah_attr.grh.sgid_index = 1;
  const int av = with_av ? IBV_QP_AV : 0;
  if (modify(qp, &a, IBV_QP_STATE | av | IBV_QP_PATH_MTU) != 0) {
    return false;
  }
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTS;
  return modify(qp, &a, IBV_QP_STATE) == 0;
}

}  // namespace verbsemu::shim::internal
