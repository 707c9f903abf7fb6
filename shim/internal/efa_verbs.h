// libefa's QP creation. EFA's SRD QPs (qp_type IBV_QPT_DRIVER) are made only
// through efadv_create_qp_ex or efadv_create_driver_qp, which create the QP
// inside libefa without going through the verbs_context hook the shim
// patches. The shim answers both, so these QPs are registered like
// ibv_create_qp_ex's: their ibv_post_send is emulated, and so are their
// ibv_wr_* batches when the QP has send ops (libfabric's EFA provider posts
// only that way). A QP made some other way behind the shim's back is still
// adopted at its first ibv_modify_qp.
#ifndef VERBSEMU_SHIM_INTERNAL_EFA_VERBS_H_
#define VERBSEMU_SHIM_INTERNAL_EFA_VERBS_H_

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include <cstdint>

namespace verbsemu::shim::internal {

ibv_qp* EfadvCreateQpEx(ibv_context* context, ibv_qp_init_attr_ex* attr,
                        efadv_qp_init_attr* efa_attr, uint32_t inlen);
ibv_qp* EfadvCreateDriverQp(ibv_pd* pd, ibv_qp_init_attr* attr,
                            uint32_t driver_qp_type);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_EFA_VERBS_H_
