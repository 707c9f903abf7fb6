// Fuzzes the launcher variables: line i of the input is the value of the
// i-th variable of kLaunchers (rank, then count, row by row); a line "-"
// leaves it unset. Every input gives no launch, a launch whose rank is below
// its count, or one line that names the variable; nothing else may throw.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "verbsbench/rte/launcher.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using verbsbench::rte::kLaunchers;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> env;
  for (const auto& row : kLaunchers) {
    for (const char* name : {row.rank, row.size}) {
      if (name == nullptr) continue;
      const size_t nl = input.find('\n');
      const std::string_view value = input.substr(0, nl);
      if (value != "-") env[name] = std::string(value);
      input = nl == std::string_view::npos ? std::string_view()
                                           : input.substr(nl + 1);
    }
  }
  const verbsbench::rte::Getenv getenv = [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  try {
    const auto launch = verbsbench::rte::DetectLauncher(getenv);
    if (launch && (launch->rank < 0 || launch->size == 0 || launch->size == 1 ||
                   (launch->size > 0 && launch->rank >= launch->size))) {
      std::abort();
    }
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.empty() || what.find('\n') != std::string::npos) std::abort();
    bool names_one = false;
    for (const auto& [name, value] : env) {
      names_one = names_one || what.rfind(name, 0) == 0;
    }
    if (!names_one) std::abort();
  }
  return 0;
}
