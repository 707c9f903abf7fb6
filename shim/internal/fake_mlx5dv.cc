#include "shim/internal/fake_mlx5dv.h"

#include <errno.h>

#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp_ex.h"

namespace verbsemu::shim::internal {
namespace {

// What libmlx5 refuses for a DRIVER QP (errno set): anything but a DCI.
bool RefusesDriverQp(const mlx5dv_qp_init_attr* m) {
  const bool dc =
      m != nullptr && (m->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) != 0;
  if (!dc) {
    errno = EINVAL;
    return true;
  }
  if (m->dc_init_attr.dc_type != MLX5DV_DCTYPE_DCI) {
    errno = EOPNOTSUPP;
    return true;
  }
  return false;
}

}  // namespace

ibv_qp* FakeMlx5dvCreateQp(ibv_context* context, ibv_qp_init_attr_ex* a,
                           mlx5dv_qp_init_attr* m) {
  if (a == nullptr || context == nullptr) {
    errno = EINVAL;
    return nullptr;
  }
  if (a->qp_type == IBV_QPT_DRIVER && RefusesDriverQp(m)) return nullptr;
  const RealVerbs fake = FakeDevice::MakeRealVerbs();
  ibv_qp_init_attr init{};
  init.send_cq = a->send_cq;
  init.recv_cq = a->recv_cq;
  init.qp_type = a->qp_type;
  init.cap = a->cap;
  init.sq_sig_all = a->sq_sig_all;
  ibv_qp* qp = fake.create_qp(a->pd, &init);
  if (qp == nullptr) return nullptr;
  auto* f = reinterpret_cast<FakeQp*>(qp);
  const Personality personality = f->ctx->owner->personality;
  if (personality != Personality::kMlx5) {
    fake.destroy_qp(qp);
    errno = EOPNOTSUPP;
    return nullptr;
  }
  if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0) {
    f->ex = true;
    InstallFakeQpEx(f->qpx, personality, a->qp_type);
    ApplyFakePersonality(f, IBV_QPS_RESET);  // created in RESET
  }
  return qp;
}

}  // namespace verbsemu::shim::internal
