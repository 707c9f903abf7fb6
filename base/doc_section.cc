#include "base/doc_section.h"

#include "base/read_file.h"

namespace verbsemu::base {

bool DocSection(const std::string& path, std::string_view name,
                std::string* text, std::string* error) {
  constexpr size_t kMaxDocBytes = 4 << 20;
  std::string doc;
  if (!ReadFileText(path, kMaxDocBytes, &doc, error)) {
    *error = path + ": " + *error;
    return false;
  }
  const std::string begin = "<!-- " + std::string(name) + ":begin -->\n";
  const std::string end = "<!-- " + std::string(name) + ":end -->";
  const size_t b = doc.find(begin);
  const size_t e = b == std::string::npos ? b : doc.find(end, b);
  if (e == std::string::npos) {
    *error = path + " has no section between '" +
             begin.substr(0, begin.size() - 1) + "' and '" + end + "'";
    return false;
  }
  *text = doc.substr(b + begin.size(), e - b - begin.size());
  return true;
}

}  // namespace verbsemu::base
