#include "shim/internal/direct_verbs.h"

#include "shim/internal/engine.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

bool Mlx5dvIsSupported(ibv_device* device) {
  EnsureConfigured();
  Engine& e = E();
  const Mlx5dvIsSupportedFn real = RealMlx5dvIsSupported();
  const bool emulated = device != nullptr && e.patching && e.wrap.posts &&
                        e.settings.EmulatesDevice(device->name);
  if (emulated && !e.settings.allow_direct_verbs) {
    e.direct_verbs_refused.Add(1);
    return false;
  }
  const bool answer = real != nullptr && real(device);
  if (emulated && answer) {
    e.direct_verbs_allowed.Add(1);
    if (!e.warned_direct_verbs.exchange(true)) {
      Warn(std::string("VERBSEMU_DIRECT_VERBS=allow: ") + device->name +
           " keeps mlx5 direct verbs; traffic posted through them is not "
           "emulated");
    }
  }
  return answer;
}

std::string DirectVerbsReportLine() {
  const Engine& e = E();
  const uint64_t refused = e.direct_verbs_refused.Get();
  const uint64_t allowed = e.direct_verbs_allowed.Get();
  if (refused != 0) {
    return "direct verbs: mlx5dv_is_supported() answered false " +
           std::to_string(refused) +
           " times for emulated devices, so the stack posts through verbs "
           "(VERBSEMU_DIRECT_VERBS=allow keeps direct verbs, unemulated)\n";
  }
  if (allowed != 0) {
    return "WARNING direct verbs allowed on emulated devices (" +
           std::to_string(allowed) +
           " mlx5dv_is_supported() queries): traffic posted through mlx5dv "
           "is NOT emulated\n";
  }
  return "";
}

}  // namespace verbsemu::shim::internal
