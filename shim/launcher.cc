#include "shim/launcher.h"

#include <string_view>

#include "emulate/config.h"

namespace verbsemu::shim {
namespace {

struct Flag {
  std::string_view name;
  const char* var;
};

constexpr Flag kFlags[] = {
    {"--latency", "VERBSEMU_LATENCY"},
    {"--bandwidth", "VERBSEMU_BANDWIDTH"},
    {"--bw-mode", "VERBSEMU_BW_MODE"},
    {"--pad-threshold", "VERBSEMU_PAD_THRESHOLD"},
    {"--devices", "VERBSEMU_DEVICES"},
    {"--report", "VERBSEMU_REPORT"},
    {"--report-signal", "VERBSEMU_REPORT_SIGNAL"},
    {"--link-bandwidth", "VERBSEMU_LINK_BANDWIDTH"},
};

void Set(LaunchPlan& plan, const std::string& var, const std::string& value) {
  for (auto& kv : plan.env) {
    if (kv.first == var) {
      kv.second = value;
      return;
    }
  }
  plan.env.emplace_back(var, value);
}

}  // namespace

std::string LauncherUsage() {
  return "usage: verbsemu run [--latency D] [--bandwidth B] "
         "[--bw-mode pad|pace] [--pad-threshold S] [--devices LIST] "
         "[--report stderr|PATH] [--report-signal USR1|USR2] "
         "[--link-bandwidth R] -- CMD ARGS...\n"
         "       verbsemu env [same flags] [--format lines|mpirun|srun]\n"
         "D: 2us, 1500ns; B: 25Gbit/s, 3GB/s, 40%; S: 64KiB\n";
}

LaunchPlan ParseLauncherArgs(
    const std::vector<std::string>& args,
    const std::function<const char*(const char*)>& getenv) {
  LaunchPlan plan;
  if (args.empty() || args[0] == "-h" || args[0] == "--help" ||
      args[0] == "help") {
    plan.mode = LaunchPlan::Mode::kHelp;
    if (args.empty()) plan.error = "missing command: run or env";
    return plan;
  }
  if (args[0] == "run") {
    plan.mode = LaunchPlan::Mode::kRun;
  } else if (args[0] == "env") {
    plan.mode = LaunchPlan::Mode::kEnv;
  } else {
    plan.error = "unknown command '" + args[0] + "' (expected run or env)";
    return plan;
  }
  // Variables already exported reach the shim as they are: check them too.
  for (const emulate::ConfigVar& v : emulate::ConfigVars()) {
    if (const char* value = getenv(v.name)) {
      std::string err = emulate::ValidateVar(v.name, value);
      if (!err.empty()) {
        plan.error = err + " (from the environment)";
        return plan;
      }
    }
  }
  size_t i = 1;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    std::string name = a, value;
    bool has_value = false;
    if (const size_t eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (name == "--format") {
      if (!has_value) {
        if (i + 1 >= args.size()) {
          plan.error = "--format needs a value: lines, mpirun or srun";
          return plan;
        }
        value = args[++i];
      }
      if (value == "lines") {
        plan.format = LaunchPlan::Format::kLines;
      } else if (value == "mpirun") {
        plan.format = LaunchPlan::Format::kMpirun;
      } else if (value == "srun") {
        plan.format = LaunchPlan::Format::kSrun;
      } else {
        plan.error = "--format='" + value +
                     "' is not accepted; expected "
                     "lines, mpirun or srun";
        return plan;
      }
      continue;
    }
    const Flag* flag = nullptr;
    for (const Flag& f : kFlags) {
      if (name == f.name) flag = &f;
    }
    if (flag == nullptr) {
      if (plan.mode == LaunchPlan::Mode::kRun && !a.starts_with("-")) break;
      plan.error = "unknown option '" + a + "'";
      return plan;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        plan.error = std::string(flag->name) + " needs a value";
        return plan;
      }
      value = args[++i];
    }
    std::string err = emulate::ValidateVar(flag->var, value);
    if (!err.empty()) {
      plan.error = std::string(flag->name) + ": " + err;
      return plan;
    }
    Set(plan, flag->var, value);
  }
  if (plan.mode == LaunchPlan::Mode::kRun) {
    plan.command.assign(args.begin() + static_cast<long>(i), args.end());
    if (plan.command.empty()) plan.error = "run: no command given after --";
  } else if (i < args.size()) {
    plan.error = "env takes no command";
  }
  return plan;
}

std::vector<std::string> EnvLines(const LaunchPlan& plan,
                                  const std::string& lib_path,
                                  const char* current_preload) {
  std::vector<std::pair<std::string, std::string>> kv;
  std::string preload = lib_path;
  if (current_preload != nullptr && *current_preload != '\0' &&
      std::string_view(current_preload).find(lib_path) ==
          std::string_view::npos) {
    preload += ":";
    preload += current_preload;
  }
  kv.emplace_back("LD_PRELOAD", preload);
  for (const auto& e : plan.env) kv.push_back(e);
  std::vector<std::string> lines;
  if (plan.format == LaunchPlan::Format::kSrun) {
    std::string line = "--export=ALL";
    for (const auto& [k, v] : kv) line += "," + k + "=" + v;
    lines.push_back(line);
    return lines;
  }
  for (const auto& [k, v] : kv) {
    lines.push_back((plan.format == LaunchPlan::Format::kMpirun ? "-x " : "") +
                    k + "=" + v);
  }
  return lines;
}

}  // namespace verbsemu::shim
