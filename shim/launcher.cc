#include "shim/launcher.h"

#include <string_view>

#include "cli/cli.h"
#include "settings/knobs.h"

namespace verbsemu::shim {
namespace {
namespace po = boost::program_options;

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

constexpr const char* kHelpHelp = "print the usage and the options, and exit";

// Every knob's flag with its metavar, and what it does.
void AddKnobs(po::options_description& o) {
  for (const Knob& k : Knobs()) {
    const std::string help = std::string(k.effect) + " (" + std::string(k.env) +
                             "; default " + std::string(k.fallback) + ")";
    o.add_options()(std::string(k.flag.substr(2)).c_str(),
                    po::value<std::vector<std::string>>()->value_name(
                        std::string(k.metavar)),
                    help.c_str());
  }
}

// `group` inside a description of its own: as a group, its widest option
// is printed two spaces clear of its description, not one (help2man then
// reads every line of `verbsemu --help` as an option), after a blank line.
po::options_description AsGroup(const po::options_description& group) {
  po::options_description o;
  o.add(group);
  return o;
}

po::options_description DescribeRunEnv() {
  po::options_description o(
      "FLAGS of run and env (each also read from its variable)");
  AddKnobs(o);
  o.add_options()(
      "format",
      po::value<std::vector<std::string>>()->value_name("lines|mpirun|srun"),
      "how env prints the settings: lines (VAR=VALUE, the default), mpirun "
      "(-x VAR=VALUE, for mpirun's command line) or srun (one "
      "--export=ALL,VAR=VALUE,... for srun's)")("help,h", cli::Switch(),
                                                kHelpHelp);
  return AsGroup(o);
}

// `verbsemu knobs`' options, as its --help lists them.
const po::options_description& KnobsOptions() {
  static const po::options_description options = [] {
    po::options_description o("FLAGS");
    o.add_options()("markdown", cli::Switch(),
                    "the table of docs/shim.md, in Markdown")(
        "format",
        po::value<std::vector<std::string>>()->value_name("lines|markdown"),
        "lines (the default), or markdown (as --markdown)")(
        "help,h", cli::Switch(), kHelpHelp);
    return AsGroup(o);
  }();
  return options;
}

// What `verbsemu knobs` accepts: its own options, and the knobs' flags,
// checked and then unused, as run and env take them.
const po::options_description& KnobsAccepted() {
  static const po::options_description options = [] {
    po::options_description o;
    o.add(KnobsOptions());
    AddKnobs(o);
    return o;
  }();
  return options;
}

// Parses the options after the subcommand's name into `*given` and
// plan.command, and sets plan.help; false with plan.error for a command
// line that cannot be read.
bool ParseOptions(const std::vector<std::string>& args, LaunchPlan& plan,
                  cli::Given* given) {
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    const po::variables_map vm = cli::ParseWithCommand(
        rest,
        plan.mode == LaunchPlan::Mode::kKnobs ? KnobsAccepted()
                                              : LauncherOptions(),
        &plan.command, given);
    plan.help = vm.count("help") > 0;
  } catch (const cli::UsageError& e) {
    plan.error = Printable(e.what()) + " (see verbsemu " + args[0] + " -h)";
    return false;
  }
  return true;
}

// Checks and applies the options given, in the order given: the last of a
// repeated flag counts, the first bad value is the one refused.
bool ApplyGiven(const cli::Given& given, LaunchPlan& plan) {
  for (const auto& [name, value] : given) {
    if (name == "markdown" || name == "format") {
      if (!ApplyFormat(name == "markdown" ? "markdown" : value, plan)) {
        return false;
      }
      continue;
    }
    const Knob* knob = FindKnobByFlag("--" + name);
    if (knob == nullptr) continue;  // --help
    const std::string err = ValidateKnob(*knob, value);
    if (!err.empty()) {
      plan.error = std::string(knob->flag) + ": " + err;
      return false;
    }
    Set(plan, std::string(knob->env), value);
  }
  return true;
}

// The settings as the shim will read them (the given over the inherited):
// knobs that are each right may still disagree (VERBSEMU_FABRIC=ib-hol
// with VERBSEMU_PENALTIES=maxmin), which the shim would refuse at start.
bool CheckTogether(const std::function<const char*(const char*)>& getenv,
                   LaunchPlan& plan) {
  const SettingsResult r = SettingsFromEnv([&](const char* name) {
    for (const auto& [var, value] : plan.env)
      if (var == name) return value.c_str();
    return getenv(name);
  });
  if (r.ok()) return true;
  plan.error = r.error;
  return false;
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

const po::options_description& LauncherOptions() {
  static const po::options_description options = DescribeRunEnv();
  return options;
}

std::string LauncherHelp(LaunchPlan::Mode mode) {
  switch (mode) {
    case LaunchPlan::Mode::kRun:
      return cli::Help(
          "usage: verbsemu run [FLAGS] [--] CMD ARGS...\n"
          "Runs CMD with libverbsemu.so preloaded and FLAGS' settings.",
          LauncherOptions());
    case LaunchPlan::Mode::kEnv:
      return cli::Help(
          "usage: verbsemu env [FLAGS] [--format lines|mpirun|srun]\n"
          "Prints the variables that preload libverbsemu.so with FLAGS' "
          "settings.",
          LauncherOptions());
    case LaunchPlan::Mode::kKnobs:
      return cli::Help(
          "usage: verbsemu knobs [--markdown]\n"
          "Prints every setting: its flag, effect, variable and default.",
          KnobsOptions());
    case LaunchPlan::Mode::kHelp:
      break;
  }
  return "";
}

LaunchPlan ParseLauncherArgs(
    const std::vector<std::string>& args,
    const std::function<const char*(const char*)>& getenv) {
  LaunchPlan plan;
  if (!ParseMode(args, plan)) return plan;
  cli::Given given;
  const bool parsed = ParseOptions(args, plan, &given);
  if (parsed && plan.help) return plan;
  // A bad inherited variable is named before a bad command line.
  if (!CheckInherited(getenv, plan) || !parsed) return plan;
  if (!ApplyGiven(given, plan) || !CheckTogether(getenv, plan)) return plan;
  for (const auto& [var, value] : kStackEnv) {
    if (getenv(var) == nullptr) plan.stack_env.emplace_back(var, value);
  }
  if (plan.format == LaunchPlan::Format::kSrun) {
    plan.error = SrunCannotCarry(plan);
    if (!plan.ok()) return plan;
  }
  if (plan.mode == LaunchPlan::Mode::kRun) {
    if (plan.command.empty()) plan.error = "run: no command given after --";
  } else if (!plan.command.empty()) {
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
