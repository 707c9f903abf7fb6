#include "base/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

namespace verbsemu::base {

bool ReadFileText(const std::string& path, size_t max_bytes, std::string* text,
                  std::string* error) {
  // O_NONBLOCK: a FIFO (or a tty) must not block the open; it is refused
  // below with anything else that is not a regular file.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    *error = "not a regular file";
    close(fd);
    return false;
  }
  ssize_t got = fd < 0 ? -1 : 1;
  char buffer[16384];
  while (got != 0 && fd >= 0 && text->size() <= max_bytes) {
    got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno != EINTR) break;
    if (got > 0) text->append(buffer, static_cast<size_t>(got));
  }
  if (got != 0) {
    *error = got < 0 ? std::generic_category().message(errno)
                     : "it is larger than " + std::to_string(max_bytes >> 20) +
                           " MiB";
  }
  if (fd >= 0) close(fd);  // after errno has been read
  return got == 0;
}

}  // namespace verbsemu::base
