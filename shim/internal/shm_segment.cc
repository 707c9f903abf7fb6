#include "shim/internal/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace verbsemu::shim::internal {
namespace {

// Closes the descriptor when the mapping is done (or refused).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens (creating with mode 0600) the object; glibc's shm_open adds
// O_NOFOLLOW itself, and a file in VERBSEMU_SHM_DIR gets it here.
int OpenObject(const std::string& dir, const std::string& name) {
  if (dir.empty()) return shm_open(name.c_str(), O_RDWR | O_CREAT, 0600);
  const std::string path = dir + name;
  return open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
}

// SegmentRefusal of the open object for this process's user.
std::string Refusal(int fd, size_t bytes) {
  struct stat st;
  if (fstat(fd, &st) != 0) return std::string("fstat: ") + std::strerror(errno);
  return SegmentRefusal(st, geteuid(), bytes);
}

}  // namespace

std::string SegmentRefusal(const struct stat& st, uid_t user, size_t bytes) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_uid != user) {
    return "owned by uid " + std::to_string(st.st_uid) + ", not " +
           std::to_string(user);
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%04o",
             static_cast<unsigned>(st.st_mode & 07777));
    return std::string("mode ") + mode + ", not 0600";
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size != 0 && size != bytes) {
    return std::to_string(size) + " bytes, not " + std::to_string(bytes) +
           " (another verbsemu build's layout?)";
  }
  return "";
}

void* MapSharedObject(const std::string& dir, const std::string& name,
                      size_t bytes, uint64_t tag, std::string* why) {
  const std::string where = dir.empty() ? "shm_open " + name : dir + name;
  const Fd fd(OpenObject(dir, name));
  if (fd.get() < 0) {
    *why = where + ": " + std::strerror(errno);
    return nullptr;
  }
  if (const std::string no = Refusal(fd.get(), bytes); !no.empty()) {
    *why = where + ": refused: " + no;
    return nullptr;
  }
  // Sizes a new object (zero-filled: the initial state of everything kept
  // there) and allocates its pages now, so that a full tmpfs is this error
  // rather than a SIGBUS at the first store.
  if (const int err = posix_fallocate(fd.get(), 0, static_cast<off_t>(bytes));
      err != 0) {
    *why = where + ": posix_fallocate: " + std::strerror(err);
    return nullptr;
  }
  void* addr =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (addr == MAP_FAILED) {
    *why = where + ": mmap: " + std::strerror(errno);
    return nullptr;
  }
  // New (all zero): this mapper tags it. Else the tag must be this layout's.
  auto* word = static_cast<std::atomic<uint64_t>*>(addr);
  uint64_t seen = 0;
  if (!word->compare_exchange_strong(seen, tag, std::memory_order_acq_rel) &&
      seen != tag) {
    munmap(addr, bytes);
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(seen));
    *why = where + ": refused: tag " + hex +
           ", not this layout's (garbage, or another verbsemu build's)";
    return nullptr;
  }
  return addr;
}

void UnmapSharedObject(void* addr, size_t bytes) {
  if (addr != nullptr) munmap(addr, bytes);
}

void UnlinkSharedObject(const std::string& dir, const std::string& name) {
  if (dir.empty()) {
    shm_unlink(name.c_str());
  } else {
    unlink((dir + name).c_str());
  }
}

}  // namespace verbsemu::shim::internal
