#include "sweep/internal/write_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace verbsemu::sweep::internal {
namespace {

constexpr std::string_view kTempMark = ".tmp-";

std::string Error(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

// Every byte of `text`, through short writes and EINTR.
bool WriteAll(const FileOps& ops, int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ops.write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// ".NAME.tmp-XXXXXX" in NAME's directory, created exclusively.
int CreateTemp(const FileOps& ops, const std::string& path, std::string* tmp) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = path.substr(dir.size());
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffff);
    *tmp = dir + "." + name + std::string(kTempMark) + suffix;
    const int fd =
        ops.open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

bool SyncDir(const FileOps& ops, const std::string& dir) {
  const int fd = ops.open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool ok = ops.fsync(fd) == 0;
  const int saved = errno;
  ops.close(fd);
  errno = saved;
  return ok;
}

}  // namespace

const FileOps& SystemFileOps() {
  static const FileOps ops{
      [](const char* p, int f, mode_t m) { return ::open(p, f, m); },
      [](int fd, const void* d, size_t n) { return ::write(fd, d, n); },
      [](int fd) { return ::fsync(fd); },
      [](const char* a, const char* b) { return ::rename(a, b); },
      [](int fd) { return ::close(fd); },
      [](int fd, off_t size) { return ::ftruncate(fd, size); }};
  return ops;
}

bool IsTempName(std::string_view filename) {
  return filename.starts_with(".") &&
         filename.find(kTempMark) != std::string_view::npos;
}

bool WriteFileAtomic(const std::string& path, std::string_view text,
                     std::string* why, const FileOps& ops) {
  std::string tmp;
  const int fd = CreateTemp(ops, path, &tmp);
  if (fd < 0) {
    *why = Error("create a file beside", path);
    return false;
  }
  bool ok = WriteAll(ops, fd, text);
  if (!ok) *why = Error("write", path);
  if (ok && ops.fsync(fd) != 0) {
    ok = false;
    *why = Error("sync", path);
  }
  if (ops.close(fd) != 0 && ok) {
    ok = false;
    *why = Error("close", path);
  }
  if (ok && ops.rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    *why = Error("rename a file over", path);
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  if (!SyncDir(ops, DirOf(path))) {
    *why = Error("sync the directory of", path);
    return false;
  }
  return true;
}

Appender::~Appender() {
  if (fd_ >= 0) ops_.close(fd_);
}

bool Appender::Open(const std::string& path, std::string* why) {
  path_ = path;
  fd_ =
      ops_.open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *why = Error("open", path);
    return false;
  }
  return true;
}

bool Appender::Append(std::string_view line, std::string* why) {
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  std::string text(line);
  text += '\n';
  if (WriteAll(ops_, fd_, text) && ops_.fsync(fd_) == 0) return true;
  *why = Error("append to", path_);
  if (before >= 0) ops_.ftruncate(fd_, before);  // the rows before stay whole
  return false;
}

}  // namespace verbsemu::sweep::internal
