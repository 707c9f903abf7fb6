#include "shim/internal/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace verbsemu::shim::internal {

void* MapSharedObject(const std::string& name, size_t bytes, std::string* why) {
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    *why = "shm_open " + name + ": " + std::strerror(errno);
    return nullptr;
  }
  // Every process sizes it alike; ftruncate of a new object zero-fills it,
  // which is the initial state of everything kept there.
  void* addr = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(bytes)) == 0) {
    addr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  const int err = errno;
  close(fd);
  if (addr == MAP_FAILED) {
    *why = "mapping " + name + ": " + std::strerror(err);
    return nullptr;
  }
  return addr;
}

void UnmapSharedObject(void* addr, size_t bytes) {
  if (addr != nullptr) munmap(addr, bytes);
}

}  // namespace verbsemu::shim::internal
