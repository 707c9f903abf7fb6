// Fuzzes the settings parsers: every knob (durations, rates, shares, sizes,
// device lists, signals) and the launcher's argument parser. Bad text must
// give one line naming the variable, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "settings/knobs.h"
#include "shim/launcher.h"

namespace {

void CheckKnobs(std::string_view text) {
  for (const verbsemu::shim::Knob& k : verbsemu::shim::Knobs()) {
    const std::string err = verbsemu::shim::ValidateKnob(k, text);
    if (!err.empty() &&
        (err.find(k.env) != 0 || err.find('\n') != std::string::npos)) {
      std::abort();
    }
  }
}

// Splits the input at NUL bytes into launcher arguments.
void CheckLauncher(std::string_view text) {
  std::vector<std::string> args;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\0') {
      args.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  const auto plan = verbsemu::shim::ParseLauncherArgs(
      args, [](const char*) -> const char* { return nullptr; });
  if (plan.error.find('\n') != std::string::npos) std::abort();
  // A run with no command is refused, unless it asked for its help.
  if (plan.ok() && plan.mode == verbsemu::shim::LaunchPlan::Mode::kRun &&
      !plan.help && plan.command.empty()) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckKnobs(text);
  CheckLauncher(text);
  return 0;
}
