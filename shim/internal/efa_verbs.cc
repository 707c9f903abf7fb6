#include "shim/internal/efa_verbs.h"

#include <errno.h>

#include "shim/internal/real_verbs.h"
#include "shim/internal/registry.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

ibv_qp* EfadvCreateQpEx(ibv_context* context, ibv_qp_init_attr_ex* attr,
                        efadv_qp_init_attr* efa_attr, uint32_t inlen) {
  const auto real =
      RealEfa<&RealVerbs::efadv_create_qp_ex>("efadv_create_qp_ex", "EFA_1.1");
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_qp* qp = real(context, attr, efa_attr, inlen);
  if (qp == nullptr || attr == nullptr) return qp;
  if (ContextState* c = E().contexts.Find(qp->context)) {
    RegisterQpNoThrow(c, qp,
                      (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0,
                      QpOrigin::kVerbs, &attr->cap);
  }
  return qp;
}

ibv_qp* EfadvCreateDriverQp(ibv_pd* pd, ibv_qp_init_attr* attr,
                            uint32_t driver_qp_type) {
  const auto real = RealEfa<&RealVerbs::efadv_create_driver_qp>(
      "efadv_create_driver_qp", "EFA_1.0");
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_qp* qp = real(pd, attr, driver_qp_type);
  if (qp == nullptr || attr == nullptr) return qp;
  if (ContextState* c = E().contexts.Find(qp->context)) {
    RegisterQpNoThrow(c, qp, /*with_send_ops=*/false, QpOrigin::kVerbs,
                      &attr->cap);
  }
  return qp;
}

}  // namespace verbsemu::shim::internal
