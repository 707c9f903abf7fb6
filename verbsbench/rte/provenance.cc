#include "verbsbench/rte/provenance.h"

#include <dlfcn.h>
#include <limits.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <ctime>

#include "base/read_file.h"
#include "verbsbench/rte/version.h"

namespace verbsbench::rte {
namespace {

// rdma-core of the libibverbs this process loaded (the real file behind
// libibverbs.so.1).
std::string LoadedRdmaCore() {
  void* symbol = dlsym(RTLD_DEFAULT, "ibv_get_device_list");
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  char resolved[PATH_MAX];
  const char* path = realpath(info.dli_fname, resolved);
  return RdmaCoreFromLibraryPath(path ? path : info.dli_fname);
}

std::string CpuModel() {
  std::string text, error;
  if (!verbsemu::base::ReadFileText("/proc/cpuinfo", 16 << 20, &text, &error)) {
    return "";
  }
  return CpuModelFromCpuinfo(text);
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string OrUnknown(const std::string& s) {
  return s.empty() ? "unknown" : s;
}

}  // namespace

const char* Version() { return VERBSEMU_VERSION; }

std::string RdmaCoreFromLibraryPath(const std::string& path) {
  static const std::string kName = "libibverbs.so.1.";
  const size_t name = path.rfind(kName);
  if (name == std::string::npos) return "";
  const std::string rest = path.substr(name + kName.size());  // "14.44.0"
  const size_t dot = rest.find('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string release = rest.substr(dot + 1);
  if (release.empty() || !std::isdigit(static_cast<unsigned char>(release[0])))
    return "";
  for (char c : release) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return "";
  }
  return release;
}

std::string CpuModelFromCpuinfo(const std::string& text) {
  size_t line = 0;
  while (line < text.size()) {
    const size_t end = std::min(text.find('\n', line), text.size());
    const std::string row = text.substr(line, end - line);
    line = end + 1;
    if (row.rfind("model name", 0) != 0) continue;
    const size_t colon = row.find(':');
    if (colon == std::string::npos) continue;
    const size_t first = row.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? "" : row.substr(first);
  }
  return "";
}

nlohmann::json LocalIdentity() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  utsname uts{};
  const bool have_uts = uname(&uts) == 0;
  return {{"host", OrUnknown(host)},
          {"pid", static_cast<int>(getpid())},
          {"kernel", have_uts ? uts.release : "unknown"},
          {"arch", have_uts ? uts.machine : "unknown"},
          {"rdma_core", OrUnknown(LoadedRdmaCore())},
          {"cpu", OrUnknown(CpuModel())}};
}

nlohmann::json Provenance(const std::vector<std::string>& argv,
                          const nlohmann::json& rte) {
  nlohmann::json j = {{"version", Version()},
                      {"argv", argv},
                      {"time_utc", UtcNow()},
                      {"rte", rte}};
  j.update(LocalIdentity());
  return j;
}

}  // namespace verbsbench::rte
