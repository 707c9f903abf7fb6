#include "sweep/cli.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "sweep/analysis.h"
#include "sweep/answer.h"
#include "sweep/coverage.h"
#include "sweep/engine.h"
#include "sweep/internal/read_file.h"
#include "sweep/launch_check.h"
#include "sweep/output.h"
#include "sweep/plan.h"
#include "sweep/plot.h"
#include "sweep/presets.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void OnInterrupt(int) { g_stop.store(true); }

// Ctrl-C sets g_stop for as long as a sweep runs (the pilot included): each
// run is in a process group of its own, which the terminal's SIGINT does
// not reach, so the sweep must live to pass it on.
class InterruptGuard {
 public:
  InterruptGuard() {
    struct sigaction sa {};
    sa.sa_handler = OnInterrupt;  // no SA_RESTART
    sigaction(SIGINT, &sa, &old_);
    g_stop.store(false);
  }
  ~InterruptGuard() { sigaction(SIGINT, &old_, nullptr); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_ {};
};

int Refuse(const std::string& line) {
  std::fprintf(stderr, "verbsemu sweep: %s\n", line.c_str());
  return 2;
}

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

// What can be refused before anything runs: the command, the forwarding.
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

std::string Preload(const CliContext& ctx) {
  if (ctx.current_preload.empty() ||
      ctx.current_preload.find(ctx.lib_path) != std::string::npos) {
    return ctx.current_preload.empty() ? ctx.lib_path : ctx.current_preload;
  }
  return ctx.lib_path + ":" + ctx.current_preload;
}

void ShowProgress(const CliContext& ctx, const RunRecord& r, size_t done,
                  size_t total, double elapsed_s) {
  const double eta =
      elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
  char metric[48] = "failed";
  if (r.metric) std::snprintf(metric, sizeof metric, "%.6g", *r.metric);
  if (!ctx.terminal) {
    std::fprintf(stderr,
                 "verbsemu sweep: run %zu/%zu %s latency %s bandwidth %s: "
                 "%s%s%s (ETA %.0f s)\n",
                 done, total, r.program.c_str(), r.latency.c_str(),
                 r.bandwidth.c_str(), metric, r.valid ? "" : ", not valid: ",
                 r.valid ? "" : r.reason.c_str(), eta);
    return;
  }
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done / total);
  std::fprintf(stderr, "\r[%.*s%.*s] %zu/%zu runs, ETA %dm%02ds, last: %s   ",
               filled, "##############################", kWidth - filled,
               "..............................", done, total,
               static_cast<int>(eta) / 60, static_cast<int>(eta) % 60, metric);
  if (done == total) std::fputc('\n', stderr);
}

}  // namespace

namespace {

// The baseline once before the sweep, not recorded: the command must run
// and its metric must read, or the sweep stops before it starts.
std::string Pilot(const SweepPlan& plan, const Grid& grid, const Metric& metric,
                  Executor* executor, const std::string& preload) {
  SweepPlan pilot = plan;
  pilot.pingpong.clear();
  pilot.order = {{0, 0, false}};
  for (size_t p = 0; p < grid.points.size(); ++p) {
    if (grid.points[p].baseline()) pilot.order[0].point = static_cast<int>(p);
  }
  pilot.out_dir = plan.out_dir + "/pilot";
  SweepEngine engine(pilot, grid, metric, executor, preload);
  std::vector<RunRecord> records;
  std::string why;
  if (!engine.Run(&records, g_stop, nullptr, &why)) return why;
  if (g_stop.load()) return "interrupted during the pilot run; nothing ran yet";
  if (records.empty()) return "the pilot run did not finish";
  const RunRecord& r = records[0];
  const std::string log = LogPath(pilot.out_dir, 0);
  if (!r.metric) {
    return "the pilot run (the baseline, before the sweep) gave no metric: " +
           r.reason + " (see " + log + ")";
  }
  if (!r.valid) return "the pilot run was " + r.reason + " (see " + log + ")";
  if (r.reports == 0) {
    std::fprintf(stderr,
                 "verbsemu sweep: note: no process of the pilot run opened an "
                 "RDMA device under the shim, so the settings will change "
                 "nothing (see %s)\n",
                 log.c_str());
  }
  return "";
}

std::vector<std::vector<std::pair<std::string, std::string>>> Reports(
    const std::string& dir, size_t runs) {
  std::vector<std::vector<std::pair<std::string, std::string>>> out(runs);
  for (size_t i = 0; i < runs; ++i) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(ReportDir(dir, i), ec)) {
      bool ok = false;
      out[i].emplace_back(e.path().filename().string(),
                          internal::ReadFile(e.path().string(), &ok));
    }
  }
  return out;
}

void RewriteCsv(const std::string& dir, const std::vector<RunRecord>& recs) {
  const std::string tmp = dir + "/runs.csv.tmp";
  {
    std::ofstream out(tmp);
    out << RunsCsvHeader() << "\n";
    for (const RunRecord& r : recs) out << RunsCsvRow(r) << "\n";
  }
  std::error_code ec;
  fs::rename(tmp, dir + "/runs.csv", ec);
}

// Outputs and the exit status once the runs are over (or interrupted).
int Finish(const SweepPlan& plan, const Grid& grid, const CliContext& ctx,
           std::vector<RunRecord>& records, bool interrupted) {
  CheckReportCounts(&records);
  RewriteCsv(plan.out_dir, records);
  const Analysis a = Analyze(
      grid, records, LabelFor(plan.metric, plan.metric_name, plan.metric_unit));
  std::printf("%s", TableText(a, plan.metric).c_str());
  std::ofstream(plan.out_dir + "/sweep.json")
      << SweepJson(plan, a, records, Reports(plan.out_dir, records.size()));
  std::string why;
  if (!WriteLlampFiles(a, plan.out_dir, &why)) {
    std::fprintf(stderr, "verbsemu sweep: %s\n", why.c_str());
    why.clear();
  }
  const std::vector<std::string> pngs =
      plan.plot ? Plot(a, plan.metric, plan.out_dir, ctx.executor, &why)
                : std::vector<std::string>{};
  std::printf("runs: %s/runs.csv; everything: %s/sweep.json",
              plan.out_dir.c_str(), plan.out_dir.c_str());
  for (const std::string& p : pngs)
    std::printf("; %s/%s", plan.out_dir.c_str(), p.c_str());
  std::printf("\n");
  if (!why.empty())
    std::fprintf(stderr, "verbsemu sweep: no plots: %s\n", why.c_str());
  if (interrupted) {
    std::fprintf(stderr,
                 "verbsemu sweep: interrupted after %zu of %zu runs; go on "
                 "with: verbsemu sweep --resume %s\n",
                 records.size(), plan.order.size(), plan.out_dir.c_str());
    return 130;
  }
  if (!a.all_valid || a.failed_runs > 0) {
    std::fprintf(stderr,
                 "verbsemu sweep: %d runs failed and %d were not emulated; "
                 "points marked INVALID or with failures are not to be "
                 "trusted (reasons in runs.csv)\n",
                 a.failed_runs, a.invalid_runs);
    return 1;
  }
  return 0;
}

int Execute(const SweepPlan& plan, const Grid& grid, const Metric& metric,
            const CliContext& ctx, std::vector<RunRecord>& records) {
  SweepEngine engine(plan, grid, metric, ctx.executor, Preload(ctx));
  const auto start = std::chrono::steady_clock::now();
  const size_t first = records.size();
  std::string why;
  const bool ok = engine.Run(
      &records, g_stop,
      [&](const RunRecord& r, size_t done) {
        const double s = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count();
        ShowProgress(ctx, r, done - first, plan.order.size() - first, s);
      },
      &why);
  if (ctx.terminal && g_stop.load()) std::fputc('\n', stderr);
  if (!ok) return Refuse(why);
  return Finish(plan, grid, ctx, records, g_stop.load());
}

int StartNew(SweepPlan plan, const CliContext& ctx) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(plan.out_dir, ec)) {
    // What a refused start leaves (its pilot) may be overwritten.
    if (e.path().filename() == "pilot") continue;
    return Refuse(plan.out_dir +
                  " is not empty: give another --out, or --resume " +
                  plan.out_dir + " to continue the sweep in it");
  }
  std::string why;
  const std::optional<Grid> grid = PlanGrid(plan, &why);
  const std::optional<Metric> metric =
      Metric::Parse(plan.metric, plan.metric_file, &why);
  if (!grid || !metric) return Refuse(why);
  fs::create_directories(plan.out_dir, ec);
  if (ec) return Refuse("cannot create " + plan.out_dir + ": " + ec.message());
  const std::string problem = CheckCommand(plan, ctx.executor);
  if (!problem.empty()) return Refuse(problem);
  const std::string pilot =
      Pilot(plan, *grid, *metric, ctx.executor, Preload(ctx));
  if (!pilot.empty() && g_stop.load()) {
    std::fprintf(stderr, "verbsemu sweep: %s\n", pilot.c_str());
    return 130;
  }
  if (!pilot.empty()) return Refuse(pilot);
  Prepare(*grid, &plan);
  std::ofstream(plan.out_dir + "/plan.json") << PlanToJson(plan);
  std::fprintf(stderr,
               "verbsemu sweep: %zu points x %d blocks = %zu runs into %s\n",
               grid->points.size(), plan.repeat, plan.order.size(),
               plan.out_dir.c_str());
  std::vector<RunRecord> records;
  return Execute(plan, *grid, *metric, ctx, records);
}

// The runs recorded must be the plan's first ones, in its order.
bool MatchesPlan(const SweepPlan& plan, const Grid& grid,
                 const std::vector<RunRecord>& records) {
  if (records.size() > plan.order.size()) return false;
  for (size_t i = 0; i < plan.order.size(); ++i) {
    if (plan.order[i].point < 0 ||
        static_cast<size_t>(plan.order[i].point) >= grid.points.size()) {
      return false;
    }
  }
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].run != static_cast<int>(i) ||
        records[i].point != plan.order[i].point) {
      return false;
    }
  }
  return true;
}

int Resume(const std::string& dir, const CliContext& ctx) {
  bool ok = false;
  const std::string plan_text = internal::ReadFile(dir + "/plan.json", &ok);
  if (!ok) return Refuse(dir + " holds no plan.json: not a sweep directory");
  std::string why;
  std::optional<SweepPlan> plan = PlanFromJson(plan_text, &why);
  if (!plan) return Refuse(dir + "/" + why);
  plan->out_dir = dir;
  const std::optional<Grid> grid = PlanGrid(*plan, &why);
  const std::optional<Metric> metric =
      Metric::Parse(plan->metric, plan->metric_file, &why);
  if (!grid || !metric) return Refuse(dir + "/plan.json: " + why);
  const std::string csv = internal::ReadFile(dir + "/runs.csv", &ok);
  std::optional<std::vector<RunRecord>> records =
      ok ? ReadRunsCsv(csv, &why) : std::vector<RunRecord>{};
  if (!records) return Refuse(dir + "/" + why);
  if (!MatchesPlan(*plan, *grid, *records)) {
    return Refuse(dir + "/runs.csv does not follow " + dir + "/plan.json");
  }
  RewriteCsv(dir, *records);  // drops a row cut short by a kill
  std::fprintf(stderr, "verbsemu sweep: resuming %s at run %zu of %zu\n",
               dir.c_str(), records->size() + 1, plan->order.size());
  return Execute(*plan, *grid, *metric, ctx, *records);
}

}  // namespace

int SweepMain(const std::vector<std::string>& args, const CliContext& ctx) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "sweep-%Y%m%d-%H%M%S",
                std::localtime(&now));
  const ParsedArgs parsed = ParseSweepArgs(
      args, stamp,
      static_cast<uint64_t>(now) ^ static_cast<uint64_t>(getpid()));
  if (parsed.help) {
    std::fputs(SweepUsage().c_str(), stdout);
    return 0;
  }
  if (!parsed.error.empty()) return Refuse(parsed.error);
  const InterruptGuard guard;
  if (!parsed.resume_dir.empty()) return Resume(parsed.resume_dir, ctx);
  return StartNew(*parsed.plan, ctx);
}

}  // namespace verbsemu::sweep
