// Which build of the shim a sweep runs: the path of libverbsemu.so, the
// tree's `git describe` this binary was stamped with, and a digest of the
// library's bytes (what tells two builds of one dirty tree apart).
#ifndef VERBSEMU_SWEEP_INTERNAL_SHIM_BUILD_H_
#define VERBSEMU_SWEEP_INTERNAL_SHIM_BUILD_H_

#include <string>
#include <string_view>

namespace verbsemu::sweep::internal {

struct ShimBuild {
  std::string path, version, digest;
};

ShimBuild IdentifyShim(const std::string& lib_path);

// 64-bit FNV-1a of `bytes`, in hex.
std::string Digest(std::string_view bytes);

}  // namespace verbsemu::sweep::internal

#endif  // VERBSEMU_SWEEP_INTERNAL_SHIM_BUILD_H_
