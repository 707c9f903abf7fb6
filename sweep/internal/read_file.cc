#include "sweep/internal/read_file.h"

#include <fstream>
#include <iterator>

namespace verbsemu::sweep::internal {

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  if (ok != nullptr) *ok = static_cast<bool>(in);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

}  // namespace verbsemu::sweep::internal
