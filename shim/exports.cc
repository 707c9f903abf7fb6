// The shim's boundary with libibverbs: the only extern "C" code in verbsemu.
// Exported under IBVERBS_1.1 (libverbsemu.lds) so that both PLT references
// and dlvsym(RTLD_DEFAULT, ..., "IBVERBS_1.1") reach these wrappers; the
// private hooks stay unversioned so they match whatever IBVERBS_PRIVATE_<PABI>
// the running libibverbs references them under.
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>

#include <exception>

#include "shim/internal/boundary.h"
#include "shim/internal/cm_peer.h"
#include "shim/internal/direct_verbs.h"
#include "shim/internal/efa_verbs.h"
#include "shim/internal/engine.h"

namespace engine = verbsemu::shim::internal;

#define VERBSEMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// For the entry points whose engine side is not noexcept itself (direct
// verbs, EFA): what they throw is caught before the C caller, which gets
// `failed` with errno ENOMEM. They throw only before the provider's call
// (registration after it catches on its own), so no object is lost.
constexpr const char* kRefused = "the call fails with ENOMEM";

template <class R, class F>
R Guard(const char* where, R failed, F&& call) noexcept {
  try {
    return call();
  } catch (const std::exception& ex) {
    engine::BoundaryFault(where, ex.what(), kRefused);
  } catch (...) {
    engine::BoundaryFault(where, "unknown exception", kRefused);
  }
  errno = ENOMEM;
  return failed;
}

}  // namespace

VERBSEMU_EXPORT ibv_context* ibv_open_device(ibv_device* device) noexcept {
  return engine::OpenDevice(device);
}

VERBSEMU_EXPORT int ibv_close_device(ibv_context* context) noexcept {
  return engine::CloseDevice(context);
}

VERBSEMU_EXPORT ibv_qp* ibv_create_qp(ibv_pd* pd,
                                      ibv_qp_init_attr* attr) noexcept {
  return engine::CreateQp(pd, attr);
}

VERBSEMU_EXPORT int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr,
                                  int attr_mask) noexcept {
  return engine::ModifyQp(qp, attr, attr_mask);
}

VERBSEMU_EXPORT int ibv_destroy_qp(ibv_qp* qp) noexcept {
  return engine::DestroyQp(qp);
}

VERBSEMU_EXPORT ibv_ah* ibv_create_ah(ibv_pd* pd, ibv_ah_attr* attr) noexcept {
  return engine::CreateAh(pd, attr);
}

VERBSEMU_EXPORT int ibv_destroy_ah(ibv_ah* ah) noexcept {
  return engine::DestroyAh(ah);
}

VERBSEMU_EXPORT ibv_cq* ibv_create_cq(ibv_context* context, int cqe,
                                      void* cq_context,
                                      ibv_comp_channel* channel,
                                      int comp_vector) noexcept {
  return engine::CreateCq(context, cqe, cq_context, channel, comp_vector);
}

VERBSEMU_EXPORT int ibv_destroy_cq(ibv_cq* cq) noexcept {
  return engine::DestroyCq(cq);
}

VERBSEMU_EXPORT int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq,
                                     void** cq_context) noexcept {
  return engine::GetCqEvent(channel, cq, cq_context);
}

// libmlx5's direct-verbs gate (MLX5_1.8 in libverbsemu.lds).
VERBSEMU_EXPORT bool mlx5dv_is_supported(ibv_device* device) noexcept {
  return Guard("mlx5dv_is_supported", false,
               [&] { return engine::Mlx5dvIsSupported(device); });
}

// Direct-verbs object creation (MLX5_1.3, MLX5_1.7), counted.
VERBSEMU_EXPORT ibv_qp* mlx5dv_create_qp(
    ibv_context* context, ibv_qp_init_attr_ex* attr,
    mlx5dv_qp_init_attr* mlx5_attr) noexcept {
  return Guard("mlx5dv_create_qp", static_cast<ibv_qp*>(nullptr), [&] {
    return engine::Mlx5dvCreateQp(context, attr, mlx5_attr);
  });
}

VERBSEMU_EXPORT mlx5dv_devx_obj* mlx5dv_devx_obj_create(
    ibv_context* context, const void* in, size_t inlen, void* out,
    size_t outlen) noexcept {
  return Guard(
      "mlx5dv_devx_obj_create", static_cast<mlx5dv_devx_obj*>(nullptr), [&] {
        return engine::Mlx5dvDevxObjCreate(context, in, inlen, out, outlen);
      });
}

// libefa's QP creation (EFA_1.0, EFA_1.1): EFA's SRD QPs are made only
// through these, so the shim registers them here.
VERBSEMU_EXPORT ibv_qp* efadv_create_driver_qp(
    ibv_pd* pd, ibv_qp_init_attr* attr, uint32_t driver_qp_type) noexcept {
  return Guard("efadv_create_driver_qp", static_cast<ibv_qp*>(nullptr), [&] {
    return engine::EfadvCreateDriverQp(pd, attr, driver_qp_type);
  });
}

VERBSEMU_EXPORT ibv_qp* efadv_create_qp_ex(ibv_context* context,
                                           ibv_qp_init_attr_ex* attr,
                                           efadv_qp_init_attr* efa_attr,
                                           uint32_t inlen) noexcept {
  return Guard("efadv_create_qp_ex", static_cast<ibv_qp*>(nullptr), [&] {
    return engine::EfadvCreateQpEx(context, attr, efa_attr, inlen);
  });
}

// librdmacm's connection calls (RDMACM_1.0): where a QP without an address
// vector (iWARP) gets its peer's class (cm_peer.h).
VERBSEMU_EXPORT int rdma_connect(rdma_cm_id* id,
                                 rdma_conn_param* conn_param) noexcept {
  return engine::CmConnect(id, conn_param);
}

VERBSEMU_EXPORT int rdma_accept(rdma_cm_id* id,
                                rdma_conn_param* conn_param) noexcept {
  return engine::CmAccept(id, conn_param);
}

// Private libibverbs entry points (driver.h), reached by libibverbs' own PLT
// even when the application loaded libibverbs with dlopen (NCCL-style).
VERBSEMU_EXPORT ibv_context* verbs_open_device(ibv_device* device,
                                               void* private_data) noexcept {
  return engine::VerbsOpenDevice(device, private_data);
}

VERBSEMU_EXPORT void verbs_uninit_context(verbs_context* context) noexcept {
  engine::VerbsUninitContext(context);
}

// Called by providers across the library boundary, so reached even where
// libibverbs binds its own calls inside itself (-Bsymbolic-functions builds,
// Ubuntu's): every context a provider sets up, every QP it destroys.
struct verbs_context_ops;
VERBSEMU_EXPORT void verbs_set_ops(verbs_context* context,
                                   const verbs_context_ops* ops) noexcept {
  engine::VerbsSetOps(context, ops);
}

VERBSEMU_EXPORT int ibv_cmd_destroy_qp(ibv_qp* qp) noexcept {
  return engine::CmdDestroyQp(qp);
}

namespace {

void AtForkPrepare() noexcept { engine::AtForkPrepare(); }
void AtForkParent() noexcept { engine::AtForkParent(); }
void AtForkChild() noexcept {
  engine::ShimStep("fork (child)", [] { engine::AtForkChild(); });
}

// Settings are read on first use (engine::EnsureConfigured), since the
// program's own libraries' constructors may open a device before this runs;
// here only so that a bad value is reported even by a process that never
// opens a device.
__attribute__((constructor)) void VerbsemuLoad() noexcept {
  engine::EnsureConfigured();
  pthread_atfork(AtForkPrepare, AtForkParent, AtForkChild);
}

__attribute__((destructor)) void VerbsemuUnload() noexcept {
  engine::ShimStep("writing the report", [] { engine::WriteReport(); });
}

}  // namespace
