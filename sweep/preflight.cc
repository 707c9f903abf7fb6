#include "sweep/preflight.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "settings/knobs.h"
#include "sweep/engine.h"
#include "sweep/launch_check.h"
#include "sweep/session.h"

namespace verbsemu::sweep {
namespace {

namespace fs = std::filesystem;

// argv[0] as execvp would find it; "" when it would not.
std::string Resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? program : "";
  }
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = std::min(dirs.find(':', start), dirs.size());
    std::string c = colon == start ? "." : dirs.substr(start, colon - start);
    c += "/";
    c += program;
    if (access(c.c_str(), X_OK) == 0) return c;
    start = colon + 1;
  }
  return "";
}

MpiFlavour Flavour(const std::string& resolved, Executor* executor,
                   const std::string& scratch_log) {
  std::error_code ec;
  const MpiFlavour by_path =
      FlavourFromText(fs::canonical(resolved, ec).string());
  if (by_path != MpiFlavour::kUnknown) return by_path;
  const RunOutcome out =
      executor->Run({{resolved, "--version"}, {}, scratch_log});
  fs::remove(scratch_log, ec);
  return FlavourFromText(out.output);
}

}  // namespace

std::string CheckCommand(const SweepPlan& plan, Executor* executor) {
  const std::string resolved = Resolve(plan.command[0]);
  if (resolved.empty()) {
    return "cannot run '" + plan.command[0] + "': not found or not executable";
  }
  if (!IsMpiLauncher(plan.command) && plan.command[0] != "srun" &&
      !plan.command[0].ends_with("/srun")) {
    return "";
  }
  const MpiFlavour flavour =
      IsMpiLauncher(plan.command)
          ? Flavour(resolved, executor, plan.out_dir + "/mpirun-version.log")
          : MpiFlavour::kUnknown;
  const char* slurm = getenv("SLURM_EXPORT_ENV");
  std::string problem = ForwardingProblem(plan.command, SweepVariables(),
                                          flavour, slurm ? slurm : "");
  if (problem.empty() && flavour == MpiFlavour::kUnknown &&
      IsMpiLauncher(plan.command)) {
    std::fprintf(stderr,
                 "verbsemu sweep: note: cannot tell which MPI %s is; make "
                 "sure it forwards LD_PRELOAD and VERBSEMU_* to every rank\n",
                 plan.command[0].c_str());
  }
  return problem;
}

std::string CheckDevices(const std::function<const char*(const char*)>& getenv,
                         const std::string& sysfs) {
  const shim::SettingsResult s = shim::SettingsFromEnv(getenv);
  if (!s.ok()) return s.error;
  if (s.settings.devices.empty()) return "";
  std::error_code ec;
  std::string here;
  for (const auto& e : fs::directory_iterator(sysfs, ec)) {
    const std::string name = e.path().filename().string();
    if (s.settings.EmulatesDevice(name)) return "";
    here += (here.empty() ? "" : ",") + name;
  }
  if (here.empty()) return "";  // no device here: the ranks run elsewhere
  return "VERBSEMU_DEVICES=" + shim::Printable(getenv("VERBSEMU_DEVICES")) +
         " names none of this host's RDMA devices (" + here +
         "): no run would be emulated";
}

std::string Pilot(const SweepPlan& plan, const Grid& grid, const Metric& metric,
                  Executor* executor, const std::string& preload) {
  SweepPlan pilot = plan;
  pilot.pingpong.clear();
  pilot.control.clear();
  pilot.order = {{0, 0, Program::kApp}};
  for (size_t p = 0; p < grid.points.size(); ++p) {
    if (grid.points[p].baseline()) pilot.order[0].point = static_cast<int>(p);
  }
  pilot.out_dir = plan.out_dir + "/pilot";
  std::error_code ec;
  fs::remove(pilot.out_dir + "/runs.csv", ec);  // an earlier pilot's
  SweepEngine engine(pilot, grid, metric, executor, preload);
  std::vector<RunRecord> records;
  std::string why;
  if (!engine.Run(&records, SweepInterrupts(), nullptr, &why)) return why;
  if (SweepInterrupts().any()) {
    return "interrupted during the pilot run; nothing ran yet";
  }
  if (records.empty()) return "the pilot run did not finish";
  const RunRecord& r = records[0];
  const std::string log = LogPath(pilot.out_dir, 0);
  if (!r.metric) {
    return "the pilot run (the baseline, before the sweep) gave no metric: " +
           r.reason + " (see " + log + ")";
  }
  if (!r.valid) return "the pilot run was " + r.reason + " (see " + log + ")";
  if (r.reports == 0 && !plan.allow_unemulated) {
    const char* devices = getenv("VERBSEMU_DEVICES");
    return "no process of the pilot run opened an RDMA device under the "
           "shim, so the settings would change nothing (" +
           (devices
                ? "check VERBSEMU_DEVICES=" + shim::Printable(devices) + ", or "
                : std::string("")) +
           "see " + log + "; --allow-unemulated to sweep anyway)";
  }
  return "";
}

}  // namespace verbsemu::sweep
