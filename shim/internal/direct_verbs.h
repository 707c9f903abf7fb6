// Direct verbs (mlx5dv, DEVX) post without any verbs call, so the shim
// cannot emulate what goes through them. By default an emulated device
// answers libmlx5's gate, mlx5dv_is_supported(), with false: UCX (every
// version since 1.9) then falls back from rc_mlx5/dc_mlx5/ud_mlx5 to
// rc_verbs/ud_verbs, and NCCL turns off its mlx5dv-only paths.
// VERBSEMU_DIRECT_VERBS=allow keeps them, and the report says that traffic
// is not emulated.
#ifndef VERBSEMU_SHIM_INTERNAL_DIRECT_VERBS_H_
#define VERBSEMU_SHIM_INTERNAL_DIRECT_VERBS_H_

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <string>

#include "shim/internal/counters.h"

namespace verbsemu::shim::internal {

// Direct verbs' part of the shim's state (Engine::direct): what the report
// counts.
struct DirectVerbsCounts {
  Counter refused, allowed, objects;
};

bool Mlx5dvIsSupported(ibv_device* device);

// Objects made through direct verbs on an emulated device are counted, so
// the report can say when traffic may have gone around the shim. A QP from
// mlx5dv_create_qp is registered like any other (its ibv_post_send and
// ibv_wr_* calls are emulated; its mlx5dv_wr_* calls are not).
ibv_qp* Mlx5dvCreateQp(ibv_context* context, ibv_qp_init_attr_ex* attr,
                       mlx5dv_qp_init_attr* mlx5_attr);
mlx5dv_devx_obj* Mlx5dvDevxObjCreate(ibv_context* context, const void* in,
                                     size_t inlen, void* out, size_t outlen);

// The report's line about direct verbs; empty when nobody asked.
std::string DirectVerbsReportLine();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DIRECT_VERBS_H_
