#include "shim/shm_clean.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace verbsemu::shim {
namespace {

constexpr const char* kUsage =
    "usage: verbsemu shm-clean [--unlink]: lists (and with --unlink "
    "removes) your verbsemu-* segments in VERBSEMU_SHM_DIR or /dev/shm";

struct Segment {
  std::string name;
  long long bytes;
};

// The caller's own regular files named verbsemu-* in the directory `fd`.
std::vector<Segment> OwnSegments(int fd) {
  std::vector<Segment> found;
  DIR* d = fdopendir(dup(fd));
  if (d == nullptr) return found;
  const std::unique_ptr<DIR, int (*)(DIR*)> close_dir(d, &closedir);
  while (const dirent* ent = readdir(d)) {
    const std::string name = ent->d_name;
    if (!name.starts_with("verbsemu-")) continue;
    struct stat st;
    if (fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
    found.push_back({name, static_cast<long long>(st.st_size)});
  }
  std::sort(found.begin(), found.end(),
            [](const Segment& a, const Segment& b) { return a.name < b.name; });
  return found;
}

}  // namespace

int ShmCleanCommand(const std::vector<std::string>& args, const char* shm_dir,
                    FILE* out, FILE* err) {
  bool unlink_them = false;
  for (const std::string& a : args) {
    if (a == "--unlink") {
      unlink_them = true;
    } else {
      std::fprintf(err, "verbsemu shm-clean: unknown argument '%s'; %s\n",
                   a.c_str(), kUsage);
      return 2;
    }
  }
  const std::string dir =
      shm_dir != nullptr && *shm_dir != '\0' ? shm_dir : "/dev/shm";
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(err, "verbsemu shm-clean: cannot read %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    return 1;
  }
  int status = 0;
  for (const Segment& s : OwnSegments(fd)) {
    const std::string path = dir + "/" + s.name;
    if (!unlink_them) {
      std::fprintf(out, "%s (%lld bytes)\n", path.c_str(), s.bytes);
    } else if (unlinkat(fd, s.name.c_str(), 0) == 0) {
      std::fprintf(out, "removed %s\n", path.c_str());
    } else {
      std::fprintf(err, "verbsemu shm-clean: cannot remove %s: %s\n",
                   path.c_str(), std::strerror(errno));
      status = 1;
    }
  }
  close(fd);
  return status;
}

}  // namespace verbsemu::shim
