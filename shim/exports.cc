// The shim's boundary with libibverbs: the only extern "C" code in verbsemu.
// Exported under IBVERBS_1.1 (libverbsemu.lds) so that both PLT references
// and dlvsym(RTLD_DEFAULT, ..., "IBVERBS_1.1") reach these wrappers; the
// private hooks stay unversioned so they match whatever IBVERBS_PRIVATE_<PABI>
// the running libibverbs references them under.
#include <infiniband/verbs.h>
#include <pthread.h>

#include "shim/internal/direct_verbs.h"
#include "shim/internal/efa_verbs.h"
#include "shim/internal/engine.h"

namespace engine = verbsemu::shim::internal;

#define VERBSEMU_EXPORT extern "C" __attribute__((visibility("default")))

VERBSEMU_EXPORT ibv_context* ibv_open_device(ibv_device* device) {
  return engine::OpenDevice(device);
}

VERBSEMU_EXPORT int ibv_close_device(ibv_context* context) {
  return engine::CloseDevice(context);
}

VERBSEMU_EXPORT ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) {
  return engine::CreateQp(pd, attr);
}

VERBSEMU_EXPORT int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr,
                                  int attr_mask) {
  return engine::ModifyQp(qp, attr, attr_mask);
}

VERBSEMU_EXPORT int ibv_destroy_qp(ibv_qp* qp) { return engine::DestroyQp(qp); }

VERBSEMU_EXPORT ibv_ah* ibv_create_ah(ibv_pd* pd, ibv_ah_attr* attr) {
  return engine::CreateAh(pd, attr);
}

VERBSEMU_EXPORT int ibv_destroy_ah(ibv_ah* ah) { return engine::DestroyAh(ah); }

VERBSEMU_EXPORT ibv_cq* ibv_create_cq(ibv_context* context, int cqe,
                                      void* cq_context,
                                      ibv_comp_channel* channel,
                                      int comp_vector) {
  return engine::CreateCq(context, cqe, cq_context, channel, comp_vector);
}

VERBSEMU_EXPORT int ibv_destroy_cq(ibv_cq* cq) { return engine::DestroyCq(cq); }

VERBSEMU_EXPORT int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq,
                                     void** cq_context) {
  return engine::GetCqEvent(channel, cq, cq_context);
}

// libmlx5's direct-verbs gate (MLX5_1.8 in libverbsemu.lds).
VERBSEMU_EXPORT bool mlx5dv_is_supported(ibv_device* device) {
  return engine::Mlx5dvIsSupported(device);
}

// Direct-verbs object creation (MLX5_1.3, MLX5_1.7), counted.
VERBSEMU_EXPORT ibv_qp* mlx5dv_create_qp(ibv_context* context,
                                         ibv_qp_init_attr_ex* attr,
                                         mlx5dv_qp_init_attr* mlx5_attr) {
  return engine::Mlx5dvCreateQp(context, attr, mlx5_attr);
}

VERBSEMU_EXPORT mlx5dv_devx_obj* mlx5dv_devx_obj_create(ibv_context* context,
                                                        const void* in,
                                                        size_t inlen, void* out,
                                                        size_t outlen) {
  return engine::Mlx5dvDevxObjCreate(context, in, inlen, out, outlen);
}

// libefa's QP creation (EFA_1.0, EFA_1.1): EFA's SRD QPs are made only
// through these, so the shim registers them here.
VERBSEMU_EXPORT ibv_qp* efadv_create_driver_qp(ibv_pd* pd,
                                               ibv_qp_init_attr* attr,
                                               uint32_t driver_qp_type) {
  return engine::EfadvCreateDriverQp(pd, attr, driver_qp_type);
}

VERBSEMU_EXPORT ibv_qp* efadv_create_qp_ex(ibv_context* context,
                                           ibv_qp_init_attr_ex* attr,
                                           efadv_qp_init_attr* efa_attr,
                                           uint32_t inlen) {
  return engine::EfadvCreateQpEx(context, attr, efa_attr, inlen);
}

// Private libibverbs entry points (driver.h), reached by libibverbs' own PLT
// even when the application loaded libibverbs with dlopen (NCCL-style).
VERBSEMU_EXPORT ibv_context* verbs_open_device(ibv_device* device,
                                               void* private_data) {
  return engine::VerbsOpenDevice(device, private_data);
}

VERBSEMU_EXPORT void verbs_uninit_context(verbs_context* context) {
  engine::VerbsUninitContext(context);
}

// Called by providers across the library boundary, so reached even where
// libibverbs binds its own calls inside itself (-Bsymbolic-functions builds,
// Ubuntu's): every context a provider sets up, every QP it destroys.
struct verbs_context_ops;
VERBSEMU_EXPORT void verbs_set_ops(verbs_context* context,
                                   const verbs_context_ops* ops) {
  engine::VerbsSetOps(context, ops);
}

VERBSEMU_EXPORT int ibv_cmd_destroy_qp(ibv_qp* qp) {
  return engine::CmdDestroyQp(qp);
}

namespace {

void AtForkPrepare() { engine::AtForkPrepare(); }
void AtForkParent() { engine::AtForkParent(); }
void AtForkChild() { engine::AtForkChild(); }

// Settings are read on first use (engine::EnsureConfigured), since the
// program's own libraries' constructors may open a device before this runs;
// here only so that a bad value is reported even by a process that never
// opens a device.
__attribute__((constructor)) void VerbsemuLoad() {
  engine::EnsureConfigured();
  pthread_atfork(AtForkPrepare, AtForkParent, AtForkChild);
}

__attribute__((destructor)) void VerbsemuUnload() { engine::WriteReport(); }

}  // namespace
