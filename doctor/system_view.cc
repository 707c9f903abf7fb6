#include "doctor/system_view.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>

namespace verbsemu::doctor {

std::optional<std::string> RealSystemView::ReadFile(const std::string& path,
                                                    size_t max_bytes) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes(max_bytes, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(max_bytes));
  if (in.bad()) return std::nullopt;
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

std::optional<std::string> RealSystemView::ReadLink(
    const std::string& path) const {
  char buf[PATH_MAX];
  const ssize_t n = readlink(path.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::vector<std::string> RealSystemView::ListDir(
    const std::string& path) const {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
  if (!dir) return names;
  while (const dirent* e = readdir(dir.get())) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> RealSystemView::GetEnv(
    const std::string& name) const {
  const char* v = getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

DirSpace RealSystemView::Space(const std::string& dir) const {
  DirSpace s;
  struct stat st {};
  s.exists = stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (!s.exists) return s;
  s.writable = access(dir.c_str(), W_OK | X_OK) == 0;
  struct statvfs vfs {};
  if (statvfs(dir.c_str(), &vfs) == 0) {
    s.free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  }
  return s;
}

// The library a verbs program would load: dlopen it as one would, then ask
// the loader which file one of its symbols came from.
LibraryLocation RealSystemView::Libibverbs() const {
  LibraryLocation loc;
  void* h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    loc.error = err ? err : "dlopen failed";
    return loc;
  }
  void* sym = dlsym(h, "ibv_get_device_list");
  Dl_info info{};
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) {
    loc.error = "the loader does not say which file ibv_get_device_list is in";
  } else {
    char buf[PATH_MAX];
    loc.path = realpath(info.dli_fname, buf) ? buf : info.dli_fname;
  }
  dlclose(h);
  return loc;
}

}  // namespace verbsemu::doctor
