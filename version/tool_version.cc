#include "version/tool_version.h"

#include <fstream>
#include <iterator>

#include "version/tail.h"

namespace verbsemu::version {

std::string_view Tail() { return VERBSEMU_VERSION_TAIL; }

std::string_view Release() { return VERBSEMU_RELEASE; }

std::string Line(std::string_view name) {
  return std::string(name) + " " + std::string(Tail());
}

bool Asked(int argc, const char* const argv[]) {
  return argc >= 2 && std::string_view(argv[1]) == "--version";
}

int Print(std::string_view name) {
  std::printf("%s\n", Line(name).c_str());
  return 0;
}

std::optional<std::string> FromShimBytes(std::string_view bytes) {
  constexpr std::string_view kMarker = VERBSEMU_SHIM_MARKER;
  const size_t at = bytes.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = bytes.substr(at + kMarker.size());
  const size_t end = rest.find('\0');
  if (end == std::string_view::npos || end == 0) return std::nullopt;
  return std::string(rest.substr(0, end));
}

std::optional<std::string> OfShim(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  return FromShimBytes(bytes);
}

int LauncherVersion(const std::string& shim_path, FILE* out, FILE* err) {
  std::fprintf(out, "%s\n", Line("verbsemu").c_str());
  if (shim_path.empty()) {
    std::fprintf(err,
                 "verbsemu: warning: no libverbsemu.so found (install it in "
                 "../lib/verbsemu/ next to this binary's bin/, or set "
                 "VERBSEMU_LIBRARY)\n");
    return 0;
  }
  const std::optional<std::string> shim = OfShim(shim_path);
  std::fprintf(out, "shim %s: %s\n", shim_path.c_str(),
               shim ? shim->c_str() : "no version");
  if (!shim) {
    std::fprintf(err,
                 "verbsemu: warning: %s carries no version: reinstall it "
                 "with this launcher\n",
                 shim_path.c_str());
  } else if (*shim != Tail()) {
    std::fprintf(err,
                 "verbsemu: warning: the shim is %s, this launcher %s: "
                 "install both from one build\n",
                 shim->c_str(), std::string(Tail()).c_str());
  }
  return 0;
}

}  // namespace verbsemu::version
