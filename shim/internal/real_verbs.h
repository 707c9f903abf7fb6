// The real libibverbs entry points the shim forwards to, resolved by version
// (IBVERBS_1.1 etc.) with dlvsym(RTLD_NEXT), falling back to the handle of an
// already loaded libibverbs.so.1 (stacks that dlopen it privately). Tests
// install a fake table instead.
#ifndef VERBSEMU_SHIM_INTERNAL_REAL_VERBS_H_
#define VERBSEMU_SHIM_INTERNAL_REAL_VERBS_H_

#include <infiniband/efadv.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <type_traits>
#include <utility>

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
  int (*query_gid)(ibv_context*, uint8_t, int, ibv_gid*) = nullptr;
  ibv_pd* (*alloc_pd)(ibv_context*) = nullptr;
  int (*dealloc_pd)(ibv_pd*) = nullptr;
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int) = nullptr;
  int (*dereg_mr)(ibv_mr*) = nullptr;
  ibv_ah* (*create_ah)(ibv_pd*, ibv_ah_attr*) = nullptr;
  int (*destroy_ah)(ibv_ah*) = nullptr;
  // Private, unversioned in the shim (their version node follows the PABI).
  ibv_context* (*verbs_open_device)(ibv_device*, void*) = nullptr;
  void (*verbs_uninit_context)(verbs_context*) = nullptr;
  // Called by every provider across the library boundary, so they reach the
  // shim even where libibverbs binds its own calls inside itself
  // (-Bsymbolic-functions, as Ubuntu builds it). The ops table is opaque
  // here (driver.h is not installed): the shim reads the context afterwards.
  void (*verbs_set_ops)(verbs_context*, const void*) = nullptr;
  int (*ibv_cmd_destroy_qp)(ibv_qp*) = nullptr;
  // libmlx5's direct verbs the shim answers or counts (tests set them; the
  // real ones are found through RealMlx5 once libmlx5 is loaded).
  bool (*mlx5dv_is_supported)(ibv_device*) = nullptr;
  ibv_qp* (*mlx5dv_create_qp)(ibv_context*, ibv_qp_init_attr_ex*,
                              mlx5dv_qp_init_attr*) = nullptr;
  mlx5dv_devx_obj* (*mlx5dv_devx_obj_create)(ibv_context*, const void*, size_t,
                                             void*, size_t) = nullptr;
  // libefa's QP creation (found through RealEfa once libefa is loaded).
  ibv_qp* (*efadv_create_qp_ex)(ibv_context*, ibv_qp_init_attr_ex*,
                                efadv_qp_init_attr*, uint32_t) = nullptr;
  ibv_qp* (*efadv_create_driver_qp)(ibv_pd*, ibv_qp_init_attr*,
                                    uint32_t) = nullptr;
  // librdmacm's connection calls (found through RealRdmaCm): the shim reads
  // the two ends' IP addresses there for QPs that get no address vector.
  int (*rdma_connect)(rdma_cm_id*, rdma_conn_param*) = nullptr;
  int (*rdma_accept)(rdma_cm_id*, rdma_conn_param*) = nullptr;
  // rdma-core release of the running libibverbs (e.g. 44), 0 if unknown.
  int rdma_core_version = 0;
};

// The resolved table. Resolution is retried until every mandatory entry is
// found; missing entries stay nullptr and callers must check.
const RealVerbs& Real();

// A provider library's entry `member` of RealVerbs, looked up by
// `name`@`version` in `library` until that library is loaded (stacks such
// as NCCL and libfabric dlopen it late); nullptr until then. With a test
// table, that table's entry.
template <auto Member>
auto RealProvider(const char* library, const char* name, const char* version);

// libmlx5's and libefa's entries.
template <auto Member>
auto RealMlx5(const char* name, const char* version) {
  return RealProvider<Member>("libmlx5.so.1", name, version);
}
template <auto Member>
auto RealEfa(const char* name, const char* version) {
  return RealProvider<Member>("libefa.so.1", name, version);
}

template <auto Member>
auto RealRdmaCm(const char* name) {
  return RealProvider<Member>("librdmacm.so.1", name, "RDMACM_1.0");
}

// Non-template part of RealProvider.
bool RealVerbsAreFake();
void* LookupProvider(const char* library, const char* name,
                     const char* version);

template <auto Member>
auto RealProvider(const char* library, const char* name, const char* version) {
  using Fn =
      std::remove_reference_t<decltype(std::declval<RealVerbs>().*Member)>;
  static std::atomic<Fn> found{nullptr};
  if (RealVerbsAreFake()) return Real().*Member;
  Fn fn = found.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(LookupProvider(library, name, version));
    found.store(fn, std::memory_order_release);
  }
  return fn;
}

// Replaces the table (tests and benchmarks with a fake device).
void SetRealVerbsForTesting(const RealVerbs& fake);

// Parses "…/libibverbs.so.1.14.44.0" into 44; 0 when it does not match.
int RdmaCoreVersionFromPath(const char* path);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REAL_VERBS_H_
