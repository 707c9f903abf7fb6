// The real libibverbs entry points the shim forwards to, resolved by version
// (IBVERBS_1.1 etc.) with dlvsym(RTLD_NEXT), falling back to the handle of an
// already loaded libibverbs.so.1 (stacks that dlopen it privately). Tests
// install a fake table instead.
#ifndef VERBSEMU_SHIM_INTERNAL_REAL_VERBS_H_
#define VERBSEMU_SHIM_INTERNAL_REAL_VERBS_H_

#include <infiniband/verbs.h>

namespace verbsemu::shim::internal {

struct RealVerbs {
  ibv_context* (*open_device)(ibv_device*) = nullptr;
  int (*close_device)(ibv_context*) = nullptr;
  ibv_qp* (*create_qp)(ibv_pd*, ibv_qp_init_attr*) = nullptr;
  int (*modify_qp)(ibv_qp*, ibv_qp_attr*, int) = nullptr;
  int (*query_qp)(ibv_qp*, ibv_qp_attr*, int, ibv_qp_init_attr*) = nullptr;
  int (*destroy_qp)(ibv_qp*) = nullptr;
  ibv_cq* (*create_cq)(ibv_context*, int, void*, ibv_comp_channel*,
                       int) = nullptr;
  int (*destroy_cq)(ibv_cq*) = nullptr;
  int (*get_cq_event)(ibv_comp_channel*, ibv_cq**, void**) = nullptr;
  ibv_qp_ex* (*qp_to_qp_ex)(ibv_qp*) = nullptr;  // IBVERBS_1.6
  int (*query_port)(ibv_context*, uint8_t, ibv_port_attr*) = nullptr;
  ibv_pd* (*alloc_pd)(ibv_context*) = nullptr;
  int (*dealloc_pd)(ibv_pd*) = nullptr;
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int) = nullptr;
  int (*dereg_mr)(ibv_mr*) = nullptr;
  ibv_ah* (*create_ah)(ibv_pd*, ibv_ah_attr*) = nullptr;
  int (*destroy_ah)(ibv_ah*) = nullptr;
  // Private, unversioned in the shim (their version node follows the PABI).
  ibv_context* (*verbs_open_device)(ibv_device*, void*) = nullptr;
  void (*verbs_uninit_context)(verbs_context*) = nullptr;
  // libmlx5's direct-verbs gate (MLX5_1.8); found once libmlx5 is loaded.
  bool (*mlx5dv_is_supported)(ibv_device*) = nullptr;
  // rdma-core release of the running libibverbs (e.g. 44), 0 if unknown.
  int rdma_core_version = 0;
};

// The resolved table. Resolution is retried until every mandatory entry is
// found; missing entries stay nullptr and callers must check.
const RealVerbs& Real();

// libmlx5's mlx5dv_is_supported, looked up on each call until libmlx5 is
// loaded (stacks such as NCCL dlopen it late); nullptr until then.
using Mlx5dvIsSupportedFn = bool (*)(ibv_device*);
Mlx5dvIsSupportedFn RealMlx5dvIsSupported();

// Replaces the table (tests and benchmarks with a fake device).
void SetRealVerbsForTesting(const RealVerbs& fake);

// Parses "…/libibverbs.so.1.14.44.0" into 44; 0 when it does not match.
int RdmaCoreVersionFromPath(const char* path);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REAL_VERBS_H_
