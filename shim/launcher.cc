#include "shim/launcher.h"

#include <string_view>

#include "settings/knobs.h"

namespace verbsemu::shim {
namespace {

void Set(LaunchPlan& plan, const std::string& var, const std::string& value) {
  for (auto& kv : plan.env) {
    if (kv.first == var) {
      kv.second = value;
      return;
    }
  }
  plan.env.emplace_back(var, value);
}

// libfabric 2.3 and later write EFA work requests into the device's queues
// themselves unless FI_EFA_USE_DATA_PATH_DIRECT=0: no verb is called per
// message, so nothing would be emulated.
constexpr std::pair<const char*, const char*> kStackEnv[] = {
    {"FI_EFA_USE_DATA_PATH_DIRECT", "0"},
};

// Sets plan.mode from the subcommand; false (with plan.error) otherwise.
bool ParseMode(const std::vector<std::string>& args, LaunchPlan& plan) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" ||
      args[0] == "help") {
    plan.mode = LaunchPlan::Mode::kHelp;
    if (args.empty()) plan.error = "missing command: run, env or knobs";
    return false;
  }
  if (args[0] == "run") {
    plan.mode = LaunchPlan::Mode::kRun;
  } else if (args[0] == "env") {
    plan.mode = LaunchPlan::Mode::kEnv;
  } else if (args[0] == "knobs") {
    plan.mode = LaunchPlan::Mode::kKnobs;
  } else {
    plan.error = "unknown command '" + Printable(args[0]) +
                 "' (expected run, env or knobs)";
    return false;
  }
  return true;
}

// Variables already exported reach the shim as they are: check them too.
bool CheckInherited(const std::function<const char*(const char*)>& getenv,
                    LaunchPlan& plan) {
  for (const Knob& k : Knobs()) {
    if (const char* value = getenv(std::string(k.env).c_str())) {
      std::string err = ValidateKnob(k, value);
      if (!err.empty()) {
        plan.error = err + " (from the environment)";
        return false;
      }
    }
  }
  return true;
}

bool ApplyFormat(const std::string& value, LaunchPlan& plan) {
  if (value == "lines") {
    plan.format = LaunchPlan::Format::kLines;
  } else if (value == "mpirun") {
    plan.format = LaunchPlan::Format::kMpirun;
  } else if (value == "srun") {
    plan.format = LaunchPlan::Format::kSrun;
  } else if (value == "markdown" && plan.mode == LaunchPlan::Mode::kKnobs) {
    plan.format = LaunchPlan::Format::kMarkdown;
  } else {
    plan.error = "--format='" + Printable(value) +
                 "' is not accepted; expected lines, mpirun or srun";
    return false;
  }
  return true;
}

enum class Step { kNext, kStop, kError };

// Consumes the option at args[i] (and its value); kStop at the command.
Step ParseOption(const std::vector<std::string>& args, size_t& i,
                 LaunchPlan& plan) {
  const std::string& a = args[i];
  if (a == "--markdown" && plan.mode == LaunchPlan::Mode::kKnobs) {
    return ApplyFormat("markdown", plan) ? Step::kNext : Step::kError;
  }
  std::string name = a, value;
  const size_t eq = a.find('=');
  if (eq != std::string::npos) {
    name = a.substr(0, eq);
    value = a.substr(eq + 1);
  }
  const Knob* knob = FindKnobByFlag(name);
  if (knob == nullptr && name != "--format") {
    if (plan.mode == LaunchPlan::Mode::kRun && !a.starts_with("-")) {
      return Step::kStop;
    }
    plan.error = "unknown option '" + Printable(a) + "'";
    return Step::kError;
  }
  if (eq == std::string::npos) {
    if (i + 1 >= args.size()) {
      plan.error = Printable(name) + " needs a value";
      return Step::kError;
    }
    value = args[++i];
  }
  if (knob == nullptr) {
    return ApplyFormat(value, plan) ? Step::kNext : Step::kError;
  }
  std::string err = ValidateKnob(*knob, value);
  if (!err.empty()) {
    plan.error = std::string(knob->flag) + ": " + err;
    return Step::kError;
  }
  Set(plan, std::string(knob->env), value);
  return Step::kNext;
}

// srun's --export=ALL,K=V,... list is split at every comma, so a value
// with one (normal(10us,2us), a device list) would reach the ranks cut
// short, and the shim would refuse it there.
std::string SrunCannotCarry(const LaunchPlan& plan) {
  for (const auto* list : {&plan.env, &plan.stack_env}) {
    for (const auto& [k, v] : *list) {
      if (v.find(',') == std::string::npos) continue;
      return "--format srun: " + k + "=" + Printable(v) +
             " has a comma, at which srun's --export list would cut it; "
             "export the variables (export $(verbsemu env FLAGS)) and run "
             "srun --export=ALL";
    }
  }
  return "";
}

}  // namespace

LaunchPlan ParseLauncherArgs(
    const std::vector<std::string>& args,
    const std::function<const char*(const char*)>& getenv) {
  LaunchPlan plan;
  if (!ParseMode(args, plan) || !CheckInherited(getenv, plan)) return plan;
  size_t i = 1;
  for (; i < args.size(); ++i) {
    if (args[i] == "--") {
      ++i;
      break;
    }
    const Step step = ParseOption(args, i, plan);
    if (step == Step::kError) return plan;
    if (step == Step::kStop) break;
  }
  for (const auto& [var, value] : kStackEnv) {
    if (getenv(var) == nullptr) plan.stack_env.emplace_back(var, value);
  }
  if (plan.format == LaunchPlan::Format::kSrun) {
    plan.error = SrunCannotCarry(plan);
    if (!plan.ok()) return plan;
  }
  if (plan.mode == LaunchPlan::Mode::kRun) {
    plan.command.assign(args.begin() + static_cast<long>(i), args.end());
    if (plan.command.empty()) plan.error = "run: no command given after --";
  } else if (i < args.size()) {
    plan.error = Printable(args[0]) + " takes no command";
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
  for (const auto& e : plan.stack_env) kv.push_back(e);
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
