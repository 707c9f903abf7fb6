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

std::string ReadFileTail(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff skip = size > static_cast<std::streamoff>(max)
                                  ? size - static_cast<std::streamoff>(max)
                                  : 0;
  in.seekg(skip);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

}  // namespace verbsemu::sweep::internal
