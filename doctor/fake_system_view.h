// A made-up machine for the doctor's tests: files, links, environment and
// directories set by the test.
#ifndef VERBSEMU_DOCTOR_FAKE_SYSTEM_VIEW_H_
#define VERBSEMU_DOCTOR_FAKE_SYSTEM_VIEW_H_

#include <map>
#include <set>
#include <string>

#include "doctor/system_view.h"

namespace verbsemu::doctor {

class FakeSystemView : public SystemView {
 public:
  std::map<std::string, std::string> files, links, env;
  std::map<std::string, DirSpace> spaces;
  LibraryLocation libibverbs;

  std::optional<std::string> ReadFile(const std::string& path,
                                      size_t max_bytes) const override {
    const auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second.substr(0, max_bytes);
  }
  std::optional<std::string> ReadLink(const std::string& path) const override {
    const auto it = links.find(path);
    if (it == links.end()) return std::nullopt;
    return it->second;
  }
  // Directories are implied by the files' and links' paths.
  std::vector<std::string> ListDir(const std::string& path) const override {
    std::set<std::string> names;
    const std::string prefix = path + "/";
    for (const auto* m : {&files, &links}) {
      for (const auto& [p, unused] : *m) {
        if (!p.starts_with(prefix)) continue;
        const std::string rest = p.substr(prefix.size());
        names.insert(rest.substr(0, rest.find('/')));
      }
    }
    return {names.begin(), names.end()};
  }
  std::optional<std::string> GetEnv(const std::string& name) const override {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  DirSpace Space(const std::string& dir) const override {
    const auto it = spaces.find(dir);
    return it == spaces.end() ? DirSpace{} : it->second;
  }
  LibraryLocation Libibverbs() const override { return libibverbs; }

  // A device as sysfs shows it.
  void AddDevice(const std::string& name, const std::string& driver_link,
                 const std::string& node_type, const std::string& link_layer) {
    const std::string dir = "/sys/class/infiniband/" + name;
    files[dir + "/node_type"] = node_type + "\n";
    if (driver_link.empty()) {
      files[dir + "/parent"] = "eth0\n";
    } else {
      links[dir + "/device/driver"] = driver_link;
    }
    files[dir + "/ports/1/link_layer"] = link_layer + "\n";
    files[dir + "/ports/1/rate"] = "100 Gb/sec (4X EDR)\n";
    files[dir + "/ports/1/state"] = "4: ACTIVE\n";
  }
};

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_FAKE_SYSTEM_VIEW_H_
