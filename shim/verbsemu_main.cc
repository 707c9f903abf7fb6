// verbsemu: runs a command under libverbsemu.so (`verbsemu run ... -- CMD`),
// prints the environment that does so (`verbsemu env ...`), sweeps a
// command across latency and bandwidth settings (`verbsemu sweep`, in
// //sweep), or checks that emulation will reach this machine's stack
// (`verbsemu doctor`, in //doctor), or lists and removes the shim's shared
// segments (`verbsemu shm-clean`). `verbsemu --version` prints its version
// and that of the shim it would load.
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "doctor/doctor.h"
#include "settings/knobs.h"
#include "shim/launcher.h"
#include "shim/shm_clean.h"
#include "sweep/cli.h"
#include "sweep/executor.h"
#include "version/tool_version.h"

namespace {

std::string Dirname(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

bool Exists(const std::string& p) { return access(p.c_str(), R_OK) == 0; }

// This binary's path, as the kernel resolved it.
std::string SelfExe() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  return self;
}

// libverbsemu.so: VERBSEMU_LIBRARY, else next to this binary
// (bazel-bin/shim/), in its runfiles, or where tools/install puts it
// (PREFIX/lib/verbsemu/ for PREFIX/bin/verbsemu).
std::string FindLibrary() {
  if (const char* lib = getenv("VERBSEMU_LIBRARY"); lib && Exists(lib)) {
    char buf[PATH_MAX];
    return realpath(lib, buf) ? buf : lib;
  }
  const std::string exe = SelfExe();
  if (exe.empty()) return "";
  for (const std::string& c :
       {Dirname(exe) + "/libverbsemu.so",
        exe + ".runfiles/verbsemu/shim/libverbsemu.so",
        Dirname(exe) + "/../lib/verbsemu/libverbsemu.so"}) {
    char buf[PATH_MAX];
    if (Exists(c) && realpath(c.c_str(), buf)) return buf;
  }
  return "";
}

int Sweep(const std::vector<std::string>& args) {
  verbsemu::sweep::ProcessExecutor executor;
  verbsemu::sweep::CliContext ctx;
  ctx.lib_path = FindLibrary();
  if (ctx.lib_path.empty()) {
    std::fprintf(stderr,
                 "verbsemu sweep: cannot find libverbsemu.so next to this "
                 "binary (build //shim:libverbsemu.so or set "
                 "VERBSEMU_LIBRARY)\n");
    return 2;
  }
  const char* preload = getenv("LD_PRELOAD");
  ctx.current_preload = preload ? preload : "";
  ctx.executor = &executor;
  ctx.terminal = isatty(2) != 0;
  return verbsemu::sweep::SweepMain(args, ctx);
}

// run, env and knobs: the launcher parses them, the subcommand included.
int Launch(const std::string& command, const std::vector<std::string>& rest) {
  std::vector<std::string> args{command};
  args.insert(args.end(), rest.begin(), rest.end());
  const verbsemu::shim::LaunchPlan plan = verbsemu::shim::ParseLauncherArgs(
      args,
      [](const char* name) { return static_cast<const char*>(getenv(name)); });
  if (!plan.ok()) {
    std::fprintf(stderr, "verbsemu: %s\n", plan.error.c_str());
    return 2;
  }
  if (plan.help) {
    std::fputs(verbsemu::shim::LauncherHelp(plan.mode).c_str(), stdout);
    return 0;
  }
  if (plan.mode == verbsemu::shim::LaunchPlan::Mode::kKnobs) {
    std::fputs(plan.format == verbsemu::shim::LaunchPlan::Format::kMarkdown
                   ? verbsemu::shim::KnobsMarkdownTable().c_str()
                   : verbsemu::shim::KnobsUsage().c_str(),
               stdout);
    return 0;
  }
  const std::string lib = FindLibrary();
  if (lib.empty()) {
    std::fprintf(stderr,
                 "verbsemu: cannot find libverbsemu.so next to this binary "
                 "(build //shim:libverbsemu.so or set VERBSEMU_LIBRARY)\n");
    return 2;
  }
  const std::vector<std::string> lines =
      verbsemu::shim::EnvLines(plan, lib, getenv("LD_PRELOAD"));
  if (plan.mode == verbsemu::shim::LaunchPlan::Mode::kEnv) {
    for (const std::string& l : lines) std::printf("%s\n", l.c_str());
    return 0;
  }
  for (const std::string& l : lines) {
    const size_t eq = l.find('=');
    setenv(l.substr(0, eq).c_str(), l.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> cargv;
  cargv.reserve(plan.command.size() + 1);
  for (const std::string& a : plan.command) {
    cargv.push_back(const_cast<char*>(a.c_str()));
  }
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  std::fprintf(stderr, "verbsemu: cannot run '%s': %m\n", cargv[0]);
  return 127;
}

// The subcommands: the dispatch and the usage come from this one table.
const std::vector<verbsemu::cli::Subcommand>& Commands() {
  using Args = std::vector<std::string>;
  static const std::string doctor = verbsemu::doctor::DoctorSynopsis();
  static const std::vector<verbsemu::cli::Subcommand> table = {
      {"run", "[FLAGS] -- CMD ARGS...", "",
       [](const Args& a) { return Launch("run", a); }},
      {"env", "[FLAGS] [--format lines|mpirun|srun]", "",
       [](const Args& a) { return Launch("env", a); }},
      {"knobs", "[--markdown]", "",
       [](const Args& a) { return Launch("knobs", a); }},
      {"sweep", "[SWEEP FLAGS] -- CMD ARGS...", "verbsemu sweep -h", Sweep},
      {"doctor", doctor,
       "checks this machine; exit 0: emulation reaches what it sees",
       [](const Args& a) {
         return verbsemu::doctor::DoctorCommand(a, SelfExe());
       }},
      {"shm-clean", "[--unlink]", "lists, or removes, your shared segments",
       [](const Args& a) {
         return verbsemu::shim::ShmCleanCommand(a, getenv("VERBSEMU_SHM_DIR"),
                                                stdout, stderr);
       }},
  };
  return table;
}

std::string Usage() {
  std::ostringstream flags;
  flags << verbsemu::shim::LauncherOptions();
  return verbsemu::cli::SubcommandUsage("verbsemu", Commands()) +
         "       verbsemu --version  (this launcher's version and that of "
         "the shim it would load)\n" +
         flags.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (verbsemu::version::Asked(argc, argv)) {
    return verbsemu::version::LauncherVersion(FindLibrary(), stdout, stderr);
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(Usage().c_str(), stderr);
    return 2;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  std::string why;
  const verbsemu::cli::Subcommand* command =
      verbsemu::cli::FindSubcommand(Commands(), args[0], &why);
  if (command == nullptr) {
    std::fprintf(stderr, "verbsemu: %s\n", why.c_str());
    return 2;
  }
  return command->run(std::vector<std::string>(args.begin() + 1, args.end()));
}
