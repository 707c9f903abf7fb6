// Command-line handling of the `verbsemu` launcher, separate from main() so
// it can be tested: `verbsemu run [flags] [--] CMD ARGS...`,
// `verbsemu env [flags]` and `verbsemu knobs [--markdown]`. Their options
// are described once (LauncherOptions, from the knob table) and parsed by
// //cli.
#ifndef VERBSEMU_SHIM_LAUNCHER_H_
#define VERBSEMU_SHIM_LAUNCHER_H_

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace verbsemu::shim {

struct LaunchPlan {
  enum class Mode { kRun, kEnv, kKnobs, kHelp };
  Mode mode = Mode::kHelp;
  enum class Format { kLines, kMpirun, kSrun, kMarkdown };
  Format format = Format::kLines;
  // --help was given: print LauncherHelp(mode), nothing else is set.
  bool help = false;
  // VERBSEMU_* settings in flag order, validated.
  std::vector<std::pair<std::string, std::string>> env;
  // Settings of the stacks above verbs that keep their traffic on the verbs
  // the shim interposes (FI_EFA_USE_DATA_PATH_DIRECT=0: libfabric's EFA
  // provider posts through ibv_wr_*), minus those already in the
  // environment: the user's own value wins.
  std::vector<std::pair<std::string, std::string>> stack_env;
  std::vector<std::string> command;  // kRun
  std::string error;                 // one line; empty when ok
  bool ok() const { return error.empty(); }
};

// The options of `verbsemu run` and `verbsemu env`, in the order --help
// lists them: every knob's flag (`--latency D`, its effect, variable and
// default), then --format and --help. A flag given twice: the last counts.
const boost::program_options::options_description& LauncherOptions();

// What `verbsemu run|env|knobs --help` prints: the usage and the options.
std::string LauncherHelp(LaunchPlan::Mode mode);

// Parses argv[1..]. `getenv` reads VERBSEMU_* already in the environment,
// which are validated too (they would reach the shim unchanged).
LaunchPlan ParseLauncherArgs(
    const std::vector<std::string>& args,
    const std::function<const char*(const char*)>& getenv);

// Lines for `verbsemu env`, given the absolute path of libverbsemu.so and
// the current LD_PRELOAD (prepended to, not replaced).
std::vector<std::string> EnvLines(const LaunchPlan& plan,
                                  const std::string& lib_path,
                                  const char* current_preload);

}  // namespace verbsemu::shim

#endif  // VERBSEMU_SHIM_LAUNCHER_H_
