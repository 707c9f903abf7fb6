#include "sweep/cli.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "sweep/analysis.h"
#include "sweep/answer.h"
#include "sweep/coverage.h"
#include "sweep/engine.h"
#include "sweep/internal/read_file.h"
#include "sweep/internal/shim_build.h"
#include "sweep/internal/write_file.h"
#include "sweep/output.h"
#include "sweep/plan.h"
#include "sweep/plot.h"
#include "sweep/precision.h"
#include "sweep/preflight.h"
#include "sweep/presets.h"
#include "sweep/runs_csv.h"
#include "sweep/session.h"

namespace verbsemu::sweep {
namespace {

namespace fs = std::filesystem;

int Refuse(const std::string& line, int status = 2) {
  std::fprintf(stderr, "verbsemu sweep: %s\n", line.c_str());
  return status;
}

// A file the sweep could not write: the disk is full, or DIR went away.
int Failed(const std::string& line) { return Refuse(line, 1); }

bool Stopped() { return SweepInterrupts().any(); }

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

bool RewriteCsv(const std::string& dir, const std::vector<RunRecord>& recs,
                std::string* why) {
  std::string text = RunsCsvHeader() + "\n";
  for (const RunRecord& r : recs) text += RunsCsvRow(r) + "\n";
  return internal::WriteFileAtomic(dir + "/runs.csv", text, why);
}

int Interrupted(const SweepPlan& plan, size_t done) {
  const int sig = SweepInterrupts().signal.load();
  std::fprintf(
      stderr,
      "verbsemu sweep: %s after %zu of %zu runs; go on with: "
      "verbsemu sweep --resume %s\n",
      sig == SIGINT
          ? "interrupted"
          : ("stopped by SIG" + std::string(sigabbrev_np(sig))).c_str(),
      done, plan.order.size(), plan.out_dir.c_str());
  return 128 + sig;
}

// The runs' analysis, with the verdicts of the sweep's end (a run with
// fewer shim reports than others is invalid).
Analysis AnalyzeRuns(const SweepPlan& plan, const Grid& grid,
                     std::vector<RunRecord> records) {
  CheckReportCounts(&records);
  return Analyze(grid, records,
                 LabelFor(plan.metric, plan.metric_name, plan.metric_unit));
}

// Outputs and the exit status once the runs are over (or interrupted).
int Finish(const SweepPlan& plan, const Grid& grid, const CliContext& ctx,
           std::vector<RunRecord>& records, bool interrupted, Stop stop) {
  CheckReportCounts(&records);
  std::string why;
  if (!RewriteCsv(plan.out_dir, records, &why)) return Failed(why);
  const Analysis a = AnalyzeRuns(plan, grid, records);
  std::printf("%s", TableText(a, plan.metric).c_str());
  std::string stop_line;
  const nlohmann::json precision = Outcome(plan, a, records, stop, &stop_line);
  if (!stop_line.empty()) std::printf("%s\n", stop_line.c_str());
  if (!internal::WriteFileAtomic(
          plan.out_dir + "/sweep.json",
          SweepJson(plan, a, records, Reports(plan.out_dir, records.size()),
                    precision),
          &why) ||
      !WriteLlampFiles(a, plan.out_dir, &why)) {
    return Failed(why);
  }
  const PlotResult plot = plan.plot
                              ? Plot(a, plan.metric, plan.out_dir, ctx.executor)
                              : PlotResult{};
  if (!plot.error.empty()) return Failed(plot.error);
  const std::vector<std::string>& pngs = plot.pngs;
  why = plot.note;
  std::printf("runs: %s/runs.csv; everything: %s/sweep.json",
              plan.out_dir.c_str(), plan.out_dir.c_str());
  for (const std::string& p : pngs)
    std::printf("; %s/%s", plan.out_dir.c_str(), p.c_str());
  std::printf("\n");
  if (!why.empty())
    std::fprintf(stderr, "verbsemu sweep: no plots: %s\n", why.c_str());
  if (interrupted) return Interrupted(plan, records.size());
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

// With --precision, at the end of the planned blocks: the line on the
// estimate, and one more block planned (plan.json rewritten) unless the
// sweep is to stop.
Stop NextBlock(SweepPlan& plan, const Grid& grid,
               const std::vector<RunRecord>& records, std::string* why) {
  Estimate e;
  BlockTime t;
  const Stop stop =
      Judge(plan, AnalyzeRuns(plan, grid, records), records, &e, &t);
  std::fprintf(stderr, "verbsemu sweep: %s\n",
               BlockLine(plan.precision, e, plan.repeat).c_str());
  if (stop != Stop::kNo) return stop;
  ++plan.repeat;
  Prepare(grid, &plan);  // the blocks before keep their order
  internal::WriteFileAtomic(plan.out_dir + "/plan.json", PlanToJson(plan), why);
  return stop;
}

int Execute(SweepPlan& plan, const Grid& grid, const Metric& metric,
            const CliContext& ctx, std::vector<RunRecord>& records) {
  const auto start = std::chrono::steady_clock::now();
  const size_t first = records.size();
  const bool adaptive = plan.precision.rel > 0;
  Stop stop = Stop::kNo;
  std::string why;
  while (!Stopped()) {
    if (adaptive && records.size() == plan.order.size()) {
      stop = NextBlock(plan, grid, records, &why);
      if (!why.empty()) return Failed(why);
      if (stop != Stop::kNo) break;
    }
    SweepEngine engine(plan, grid, metric, ctx.executor, Preload(ctx));
    const bool ok = engine.Run(
        &records, SweepInterrupts(),
        [&](const RunRecord& r, size_t done) {
          const double s = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count();
          ShowProgress(ctx, r, done - first, plan.order.size() - first, s);
        },
        &why);
    if (ctx.terminal && Stopped()) std::fputc('\n', stderr);
    if (!ok) {
      return Failed(why + "; the " + std::to_string(records.size()) +
                    " runs before are kept (--resume " + plan.out_dir +
                    " once there is room)");
    }
    if (!adaptive) break;
  }
  return Finish(plan, grid, ctx, records, Stopped(), stop);
}

// One line when `dir` holds anything but what a refused start leaves (its
// pilot, the lock, a temp file of a write cut short).
std::string NotEmpty(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "pilot" || name == DirLock::kName ||
        internal::IsTempName(name)) {
      continue;
    }
    return dir + " is not empty: give another --out, or --resume " + dir +
           " to continue the sweep in it";
  }
  return "";
}

std::string TimeoutText(double s) {
  if (s <= 0) return "no time limit (--timeout none)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g s", s);
  return buf;
}

// The command check and the pilot, before a sweep starts or resumes.
int CheckBeforeRuns(const SweepPlan& plan, const Grid& grid,
                    const Metric& metric, const CliContext& ctx) {
  std::string problem = CheckCommand(plan, ctx.executor);
  if (problem.empty()) problem = CheckDevices(getenv, "/sys/class/infiniband");
  if (!problem.empty()) return Refuse(problem);
  const std::string pilot =
      Pilot(plan, grid, metric, ctx.executor, Preload(ctx));
  if (!pilot.empty() && Stopped()) {
    std::fprintf(stderr, "verbsemu sweep: %s\n", pilot.c_str());
    return 128 + SweepInterrupts().signal.load();
  }
  return pilot.empty() ? 0 : Refuse(pilot);
}

int StartNew(SweepPlan plan, const CliContext& ctx) {
  std::string why = NotEmpty(plan.out_dir);
  if (!why.empty()) return Refuse(why);
  const std::optional<Grid> grid = PlanGrid(plan, &why);
  const std::optional<Metric> metric =
      Metric::Parse(plan.metric, plan.metric_file, &why);
  if (!grid || !metric) return Refuse(why);
  const std::optional<SweepPlan> kept = PlanFromJson(PlanToJson(plan), &why);
  if (!kept || kept->command != plan.command ||
      kept->pingpong != plan.pingpong || kept->control != plan.control) {
    return Refuse(
        "the command is not valid UTF-8, which plan.json cannot "
        "keep for --resume: run it through a script");
  }
  std::error_code ec;
  fs::create_directories(plan.out_dir, ec);
  if (ec) return Refuse("cannot create " + plan.out_dir + ": " + ec.message());
  DirLock lock;
  if (!lock.Take(plan.out_dir, &why)) return Refuse(why);
  why = NotEmpty(plan.out_dir);  // another sweep may have been quicker
  if (!why.empty()) return Refuse(why);
  if (const int rc = CheckBeforeRuns(plan, *grid, *metric, ctx)) return rc;
  Prepare(*grid, &plan);
  const internal::ShimBuild shim = internal::IdentifyShim(ctx.lib_path);
  plan.shim_path = shim.path;
  plan.shim_version = shim.version;
  plan.shim_digest = shim.digest;
  if (!internal::WriteFileAtomic(plan.out_dir + "/plan.json", PlanToJson(plan),
                                 &why)) {
    return Failed(why);
  }
  std::fprintf(
      stderr,
      "verbsemu sweep: %zu points x %d blocks = %zu runs into %s%s; "
      "a run is ended after %s\n",
      grid->points.size(), plan.repeat, plan.order.size(), plan.out_dir.c_str(),
      plan.precision.rel > 0
          ? (", then blocks added up to " + GoalText(plan.precision)).c_str()
          : "",
      TimeoutText(plan.timeout_s).c_str());
  std::vector<RunRecord> records;
  return Execute(plan, *grid, *metric, ctx, records);
}

// The runs recorded must be the plan's first ones, in its order, at the
// points the grid has at those indices.
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
    const RunRecord& r = records[i];
    const PlannedRun& planned = plan.order[i];
    const GridPoint& point = grid.points[static_cast<size_t>(planned.point)];
    if (r.run != static_cast<int>(i) || r.point != planned.point ||
        r.latency != point.latency || r.bandwidth != point.bandwidth ||
        r.durations != point.durations ||
        r.program != ProgramName(planned.program)) {
      return false;
    }
  }
  return true;
}

// Temp files of writes a kill cut short.
void RemoveTemps(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (internal::IsTempName(e.path().filename().string())) {
      fs::remove(e.path(), ec);
    }
  }
}

// "" when this shim is the build the sweep started with.
std::string ShimChanged(const SweepPlan& plan, const CliContext& ctx) {
  const internal::ShimBuild now = internal::IdentifyShim(ctx.lib_path);
  if (plan.shim_path.empty() && plan.shim_digest.empty()) {
    return plan.out_dir +
           "/plan.json does not say which shim build ran the "
           "sweep (an older verbsemu wrote it): --force to go on anyway";
  }
  if (now.path == plan.shim_path && now.digest == plan.shim_digest) return "";
  return plan.out_dir + " was swept with the shim " + plan.shim_path +
         " (build " + plan.shim_version + ", digest " + plan.shim_digest +
         "); this is " + now.path + " (build " + now.version + ", digest " +
         now.digest +
         "): a fit across both would mix two shims; --force "
         "to go on anyway";
}

struct Loaded {
  std::optional<SweepPlan> plan;
  std::optional<Grid> grid;
  std::optional<Metric> metric;
  std::optional<std::vector<RunRecord>> records;
};

// DIR's plan and runs, checked against each other; one line in `why`.
Loaded Load(const std::string& dir, std::string* why) {
  Loaded l;
  bool ok = false;
  const std::string plan_text = internal::ReadFile(dir + "/plan.json", &ok);
  if (!ok) {
    *why = dir + " holds no plan.json: not a sweep directory";
    return {};
  }
  l.plan = PlanFromJson(plan_text, why);
  if (!l.plan) {
    *why = dir + "/" + *why;
    return {};
  }
  l.plan->out_dir = dir;
  l.grid = PlanGrid(*l.plan, why);
  l.metric = Metric::Parse(l.plan->metric, l.plan->metric_file, why);
  if (!l.grid || !l.metric) {
    *why = dir + "/plan.json: " + *why;
    return {};
  }
  const std::string csv = internal::ReadFile(dir + "/runs.csv", &ok);
  l.records = ok ? ReadRunsCsv(csv, why) : std::vector<RunRecord>{};
  if (!l.records) {
    *why = dir + "/" + *why;
  } else if (!MatchesPlan(*l.plan, *l.grid, *l.records)) {
    *why = dir + "/runs.csv does not follow " + dir + "/plan.json";
    l.records.reset();
  }
  return l;
}

// The recorded runs that gave no metric, run again; runs.csv is rewritten
// as each ends.
bool RetryFailed(const Loaded& l, const CliContext& ctx,
                 std::vector<RunRecord>* records, std::string* why) {
  SweepEngine engine(*l.plan, *l.grid, *l.metric, ctx.executor, Preload(ctx));
  for (RunRecord& r : *records) {
    if (r.metric || Stopped()) continue;
    RunRecord again =
        engine.RunAgain(static_cast<size_t>(r.run), SweepInterrupts());
    if (Stopped()) break;  // interrupted mid-run: the old row stays
    r = std::move(again);
    if (!RewriteCsv(l.plan->out_dir, *records, why)) return false;
  }
  return true;
}

// --precision, --max-blocks or --budget on --resume, kept in plan.json.
std::string ChangeGoal(const ParsedArgs& args, SweepPlan* plan) {
  PrecisionGoal goal;
  std::string why = ResumeGoal(*plan, args, &goal);
  if (!why.empty() || goal == plan->precision) return why;
  plan->precision = goal;
  internal::WriteFileAtomic(plan->out_dir + "/plan.json", PlanToJson(*plan),
                            &why);
  return why;
}

// Whether a resume has runs to make: planned ones left, failed ones to
// retry, or (--precision) a block to add.
bool MoreToRun(const Loaded& l, bool retry) {
  const std::vector<RunRecord>& records = *l.records;
  if (records.size() < l.plan->order.size() || retry) return true;
  if (l.plan->precision.rel <= 0) return false;
  Estimate e;
  BlockTime t;
  return Judge(*l.plan, AnalyzeRuns(*l.plan, *l.grid, records), records, &e,
               &t) == Stop::kNo;
}

int Resume(const ParsedArgs& args, const CliContext& ctx) {
  const std::string& dir = args.resume_dir;
  std::string why;
  DirLock lock;
  if (!fs::is_directory(dir)) return Refuse(dir + " is not a sweep directory");
  if (!lock.Take(dir, &why)) return Refuse(why);
  RemoveTemps(dir);
  Loaded l = Load(dir, &why);
  if (!l.records) return Refuse(why);
  std::vector<RunRecord>& records = *l.records;
  // Drops a row cut short by a kill.
  if (!RewriteCsv(dir, records, &why)) return Failed(why);
  const bool retry = args.retry_failed &&
                     std::any_of(records.begin(), records.end(),
                                 [](const RunRecord& r) { return !r.metric; });
  why = ChangeGoal(args, &*l.plan);
  if (!why.empty()) return Refuse(why);
  if (MoreToRun(l, retry)) {
    why = args.force ? "" : ShimChanged(*l.plan, ctx);
    if (!why.empty()) return Refuse(why);
    if (const int rc = CheckBeforeRuns(*l.plan, *l.grid, *l.metric, ctx)) {
      return rc;
    }
  }
  if (retry && !RetryFailed(l, ctx, &records, &why)) return Failed(why);
  if (records.size() == l.plan->order.size() && l.plan->precision.rel > 0) {
    std::fprintf(stderr, "verbsemu sweep: resuming %s after block %d\n",
                 dir.c_str(), l.plan->repeat);
  } else {
    std::fprintf(stderr, "verbsemu sweep: resuming %s at run %zu of %zu\n",
                 dir.c_str(), records.size() + 1, l.plan->order.size());
  }
  return Execute(*l.plan, *l.grid, *l.metric, ctx, records);
}

int Main(const std::vector<std::string>& args, const CliContext& ctx) {
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
  const SignalGuard guard;
  if (!parsed.resume_dir.empty()) return Resume(parsed, ctx);
  return StartNew(*parsed.plan, ctx);
}

}  // namespace

int SweepMain(const std::vector<std::string>& args, const CliContext& ctx) {
  try {
    return Main(args, ctx);
  } catch (const std::exception& e) {
    return Failed(std::string("internal error: ") + e.what());
  }
}

}  // namespace verbsemu::sweep
