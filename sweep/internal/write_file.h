// The sweep's one writer of files: whole files replaced atomically (a temp
// file in the same directory, every write checked, fsync, rename, fsync of
// the directory) and rows appended one at a time, each checked and synced.
// On any error: false, one line in `why`, and the old file as it was.
// The system calls go through a table, so a test can fail any of them.
#ifndef VERBSEMU_SWEEP_INTERNAL_WRITE_FILE_H_
#define VERBSEMU_SWEEP_INTERNAL_WRITE_FILE_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

namespace verbsemu::sweep::internal {

struct FileOps {
  std::function<int(const char* path, int flags, mode_t mode)> open;
  std::function<ssize_t(int fd, const void* data, size_t n)> write;
  std::function<int(int fd)> fsync;
  std::function<int(const char* from, const char* to)> rename;
  std::function<int(int fd)> close;
  std::function<int(int fd, off_t size)> ftruncate;
};

// The real system calls.
const FileOps& SystemFileOps();

// Temp files are named ".NAME.tmp-XXXXXX" beside NAME: true for such a name.
bool IsTempName(std::string_view filename);

// Replaces `path` with `text`.
bool WriteFileAtomic(const std::string& path, std::string_view text,
                     std::string* why, const FileOps& ops = SystemFileOps());

// Appends whole lines to one file, each synced before Append returns.
class Appender {
 public:
  explicit Appender(const FileOps& ops = SystemFileOps()) : ops_(ops) {}
  ~Appender();
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;

  // Opens (creating) `path` for appending.
  bool Open(const std::string& path, std::string* why);
  // Writes `line` and a newline; on failure cuts the file back to where it
  // was, so what came before stays whole.
  bool Append(std::string_view line, std::string* why);

 private:
  const FileOps& ops_;
  std::string path_;
  int fd_ = -1;
};

}  // namespace verbsemu::sweep::internal

#endif  // VERBSEMU_SWEEP_INTERNAL_WRITE_FILE_H_
