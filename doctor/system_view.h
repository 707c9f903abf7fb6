// What `verbsemu doctor` reads of the machine, behind one small interface so
// that every check can be tested on a made-up machine: files, symbolic
// links, directory listings, the environment, a directory's space, and where
// the dynamic loader finds libibverbs.so.1.
#ifndef VERBSEMU_DOCTOR_SYSTEM_VIEW_H_
#define VERBSEMU_DOCTOR_SYSTEM_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace verbsemu::doctor {

// A directory as the shim would use it for shared memory.
struct DirSpace {
  bool exists = false;      // and is a directory
  bool writable = false;    // by this process
  uint64_t free_bytes = 0;  // available to this user
};

// Where libibverbs.so.1 is loaded from, or why it cannot be.
struct LibraryLocation {
  std::string path;   // realpath; empty when it cannot be loaded
  std::string error;  // dlerror() or similar, when path is empty
};

class SystemView {
 public:
  virtual ~SystemView() = default;
  // The file's bytes (at most `max_bytes`), or nullopt when unreadable.
  virtual std::optional<std::string> ReadFile(const std::string& path,
                                              size_t max_bytes) const = 0;
  // The target of a symbolic link, or nullopt.
  virtual std::optional<std::string> ReadLink(
      const std::string& path) const = 0;
  // Entry names of a directory, sorted, without "." and ".."; empty when the
  // directory is missing.
  virtual std::vector<std::string> ListDir(const std::string& path) const = 0;
  virtual std::optional<std::string> GetEnv(const std::string& name) const = 0;
  virtual DirSpace Space(const std::string& dir) const = 0;
  virtual LibraryLocation Libibverbs() const = 0;
};

// The running machine.
class RealSystemView : public SystemView {
 public:
  std::optional<std::string> ReadFile(const std::string& path,
                                      size_t max_bytes) const override;
  std::optional<std::string> ReadLink(const std::string& path) const override;
  std::vector<std::string> ListDir(const std::string& path) const override;
  std::optional<std::string> GetEnv(const std::string& name) const override;
  DirSpace Space(const std::string& dir) const override;
  LibraryLocation Libibverbs() const override;
};

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_SYSTEM_VIEW_H_
