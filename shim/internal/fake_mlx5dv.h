// libmlx5's mlx5dv_create_qp for the fake device's mlx5 personality, as
// rdma-core v50 makes the QPs the shim meets through it
// (providers/mlx5/verbs.c create_qp, man mlx5dv_create_qp(3) and
// mlx5dv_wr_post(3)): a DC QP is of type IBV_QPT_DRIVER with
// MLX5DV_QP_INIT_ATTR_MASK_DC in the mlx5 attributes; a DCI (the sending
// end) is brought up without an address vector at RTR, and each WR names
// its destination (mlx5dv_wr_set_dc_addr). Other types are made as verbs
// makes them. Not modeled: DCTs (EOPNOTSUPP), DCI streams, the DC address
// setter itself.
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_MLX5DV_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_MLX5DV_H_

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

namespace verbsemu::shim::internal {

// A RealVerbs::mlx5dv_create_qp for fake devices: errno EOPNOTSUPP on a
// device of another personality, EINVAL for a DRIVER QP that is no DC QP.
ibv_qp* FakeMlx5dvCreateQp(ibv_context* context, ibv_qp_init_attr_ex* attr,
                           mlx5dv_qp_init_attr* mlx5_attr);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_MLX5DV_H_
