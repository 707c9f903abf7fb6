#include "doctor/shm_check.h"

#include <string>

namespace verbsemu::doctor {

Findings CheckSharedMemory(const SystemView& view) {
  const std::string dir = view.GetEnv("VERBSEMU_SHM_DIR").value_or("/dev/shm");
  const DirSpace s = view.Space(dir);
  const std::string what = "shared memory " + dir + ": ";
  const std::string effect =
      ": shim processes cannot share a port's link and packet counts (each "
      "paces on a link of its own)";
  if (!s.exists) return {Finding::Problem(what + "no such directory" + effect)};
  if (!s.writable) return {Finding::Problem(what + "not writable" + effect)};
  const uint64_t mib = s.free_bytes >> 20;
  if (s.free_bytes < kMinShmFree) {
    return {Finding::Problem(what + std::to_string(mib) +
                             " MiB free, under 16 MiB" + effect)};
  }
  return {Finding::Ok(what + "writable, " + std::to_string(mib) + " MiB free")};
}

}  // namespace verbsemu::doctor
