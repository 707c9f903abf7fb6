#include "sweep/internal/shim_build.h"

#include <cstdint>
#include <cstdio>

#include "sweep/internal/read_file.h"
#include "version/version.h"

namespace verbsemu::sweep::internal {

std::string Digest(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

ShimBuild IdentifyShim(const std::string& lib_path) {
  bool ok = false;
  const std::string bytes = ReadFile(lib_path, &ok);
  return {lib_path, VERBSEMU_VERSION, ok ? Digest(bytes) : ""};
}

}  // namespace verbsemu::sweep::internal
