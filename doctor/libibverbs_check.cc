#include "doctor/libibverbs_check.h"

#include <cstdlib>
#include <string>

#include "doctor/elf_binding.h"

namespace verbsemu::doctor {

const char kBindsThroughPlt[] =
    "libibverbs calls verbs_open_device through its PLT: contexts are caught "
    "at verbs_open_device and at the provider's verbs_set_ops";
const char kBindsInside[] =
    "libibverbs binds its own calls inside itself: contexts opened through a "
    "private handle (NCCL) are caught at the provider's verbs_set_ops only";

namespace {

// Larger than any libibverbs (Debian's is 131 KiB).
constexpr size_t kMaxImage = 64 << 20;

}  // namespace

// The shim reads the release the same way (RdmaCoreVersionFromPath in
// shim/internal/real_verbs.cc), without linking libibverbs into the
// launcher, which this would.
int RdmaCoreRelease(const std::string& path) {
  const std::string marker = "libibverbs.so.1.";
  const size_t at = path.rfind(marker);
  if (at == std::string::npos) return 0;
  // ABI minor, then the rdma-core release: "14.44.0".
  const size_t dot = path.find('.', at + marker.size());
  if (dot == std::string::npos) return 0;
  return std::atoi(path.c_str() + dot + 1);
}

namespace {

std::string Release(const std::string& path) {
  const int v = RdmaCoreRelease(path);
  return v > 0 ? "rdma-core " + std::to_string(v)
               : "rdma-core release unknown (the file name has no "
                 "libibverbs.so.1.ABI.RELEASE.0 version)";
}

}  // namespace

Findings CheckLibibverbs(const SystemView& view) {
  Findings out;
  const LibraryLocation loc = view.Libibverbs();
  if (loc.path.empty()) {
    out.push_back(Finding::Problem("libibverbs.so.1 cannot be loaded (" +
                                   loc.error +
                                   "): verbs programs cannot run here"));
    return out;
  }
  out.push_back(
      Finding::Info("libibverbs: " + loc.path + ", " + Release(loc.path)));
  const std::optional<std::string> image = view.ReadFile(loc.path, kMaxImage);
  if (!image) {
    out.push_back(Finding::Problem("cannot read " + loc.path +
                                   ": how it binds verbs_open_device is "
                                   "unknown"));
    return out;
  }
  const ElfBinding b = ReadElfBinding(*image, "verbs_open_device");
  if (!b.ok()) {
    out.push_back(Finding::Problem(loc.path + ": " + b.error +
                                   ": how it binds verbs_open_device is "
                                   "unknown"));
  } else {
    out.push_back(Finding::Info(b.relocated && !b.symbolic ? kBindsThroughPlt
                                                           : kBindsInside));
  }
  return out;
}

}  // namespace verbsemu::doctor
