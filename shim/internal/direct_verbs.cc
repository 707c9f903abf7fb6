#include "shim/internal/direct_verbs.h"

#include <errno.h>

#include "shim/internal/engine.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/registry.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

bool Mlx5dvIsSupported(ibv_device* device) {
  EnsureConfigured();
  Engine& e = E();
  const auto real = RealMlx5<&RealVerbs::mlx5dv_is_supported>(
      "mlx5dv_is_supported", "MLX5_1.8");
  const bool emulated = device != nullptr && e.patching && e.wrap.posts &&
                        e.settings.EmulatesDevice(device->name);
  if (emulated && !e.settings.allow_direct_verbs) {
    e.direct.refused.Add(1);
    return false;
  }
  const bool answer = real != nullptr && real(device);
  if (emulated && answer) {
    e.direct.allowed.Add(1);
    WarnOnce(WarningCode::kDirectVerbsKept, {device->name});
  }
  return answer;
}

ibv_qp* Mlx5dvCreateQp(ibv_context* context, ibv_qp_init_attr_ex* attr,
                       mlx5dv_qp_init_attr* mlx5_attr) {
  const auto real =
      RealMlx5<&RealVerbs::mlx5dv_create_qp>("mlx5dv_create_qp", "MLX5_1.3");
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  ibv_qp* qp = real(context, attr, mlx5_attr);
  if (qp == nullptr) return qp;
  if (ContextState* c = E().contexts.Find(context)) {
    E().direct.objects.Add(1);
    RegisterQpNoThrow(c, qp,
                      (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0,
                      QpOrigin::kDirectVerbs);
  }
  return qp;
}

mlx5dv_devx_obj* Mlx5dvDevxObjCreate(ibv_context* context, const void* in,
                                     size_t inlen, void* out, size_t outlen) {
  const auto real = RealMlx5<&RealVerbs::mlx5dv_devx_obj_create>(
      "mlx5dv_devx_obj_create", "MLX5_1.7");
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  mlx5dv_devx_obj* obj = real(context, in, inlen, out, outlen);
  if (obj != nullptr && E().contexts.Find(context) != nullptr) {
    E().direct.objects.Add(1);
  }
  return obj;
}

std::string DirectVerbsReportLine() {
  const Engine& e = E();
  const uint64_t refused = e.direct.refused.Get();
  const uint64_t allowed = e.direct.allowed.Get();
  const uint64_t objects = e.direct.objects.Get();
  if (objects != 0) {
    return NoteWarning(WarningCode::kDirectVerbsObjects,
                       {std::to_string(objects)}) +
           "\n";
  }
  if (refused != 0) {
    return "direct verbs: mlx5dv_is_supported() answered false " +
           std::to_string(refused) +
           " times for emulated devices, so the stack posts through verbs "
           "(VERBSEMU_DIRECT_VERBS=allow keeps direct verbs, unemulated)\n";
  }
  if (allowed != 0) {
    return NoteWarning(WarningCode::kDirectVerbsAllowed,
                       {std::to_string(allowed)}) +
           "\n";
  }
  return "";
}

}  // namespace verbsemu::shim::internal
