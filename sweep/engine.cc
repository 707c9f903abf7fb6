#include "sweep/engine.h"

#include <cstdio>
#include <filesystem>
#include <map>

#include "settings/knobs.h"
#include "sweep/coverage.h"
#include "sweep/internal/read_file.h"

namespace verbsemu::sweep {
namespace {

namespace fs = std::filesystem;

std::string Env(std::string_view flag) {
  return std::string(shim::FindKnobByFlag(flag)->env);
}

}  // namespace

std::string LastLine(const std::string& text) {
  constexpr size_t kMax = 200;
  const size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  const size_t nl = text.rfind('\n', end);
  const size_t start = nl == std::string::npos ? 0 : nl + 1;
  std::string line = text.substr(start, end - start + 1);
  if (line.size() <= kMax) return line;
  size_t cut = kMax;  // back to a byte that starts a character
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return line.substr(0, cut) + "...";
}

std::vector<std::string> SweepVariables() {
  std::vector<std::string> vars = {"LD_PRELOAD", Env("--latency"),
                                   Env("--bandwidth"), Env("--bw-mode"),
                                   Env("--report")};
  for (const DurationAxis& a : kDurationAxes) vars.push_back(Env(a.flag));
  return vars;
}

std::string RunTag(size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "run-%04zu", index);
  return buf;
}
std::string LogPath(const std::string& dir, size_t index) {
  return dir + "/logs/" + RunTag(index) + ".log";
}
std::string ReportDir(const std::string& dir, size_t index) {
  return dir + "/reports/" + RunTag(index);
}

SweepEngine::SweepEngine(const SweepPlan& plan, const Grid& grid,
                         const Metric& metric, Executor* executor,
                         std::string preload)
    : plan_(plan),
      grid_(grid),
      metric_(metric),
      executor_(executor),
      preload_(std::move(preload)) {}

RunRequest SweepEngine::Request(size_t index) const {
  const PlannedRun& planned = plan_.order[index];
  const GridPoint& point = grid_.points[static_cast<size_t>(planned.point)];
  RunRequest req;
  switch (planned.program) {
    case Program::kApp:
      req.argv = plan_.command;
      break;
    case Program::kPingpong:
      req.argv = {"/bin/sh", "-c", plan_.pingpong};
      break;
    case Program::kControl:
      req.argv = {"/bin/sh", "-c",
                  ControlCommand(plan_.control, point.latency_ns)};
      break;
  }
  req.log_path = LogPath(plan_.out_dir, index);
  req.timeout_s = plan_.timeout_s;
  req.interrupt = stop_;
  // Every variable the sweep uses is set on every run, empty when unused
  // ("0" latency, "100%" bandwidth), so nothing inherited leaks into a
  // point; `-x VAR` then always has a value to carry.
  // The control waits on its own: no shim, and nothing for it to add.
  const bool shim = planned.program != Program::kControl;
  req.env = {
      {"LD_PRELOAD", shim ? preload_ : ""},
      {Env("--latency"), shim && point.latency_ns > 0 ? point.latency : "0"},
      {Env("--bandwidth"), point.bandwidth},
      {Env("--bw-mode"), plan_.bw_mode},
      {Env("--report"),
       fs::absolute(ReportDir(plan_.out_dir, index)).string() + "/%h.%p.txt"}};
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    req.env.emplace_back(Env(kDurationAxes[i].flag),
                         point.durations_ns[i] > 0 ? point.durations[i] : "0");
  }
  return req;
}

RunRecord SweepEngine::RunOne(size_t index) {
  const PlannedRun& planned = plan_.order[index];
  const GridPoint& point = grid_.points[static_cast<size_t>(planned.point)];
  RunRecord r;
  r.run = static_cast<int>(index);
  r.block = planned.block;
  r.point = planned.point;
  r.program = ProgramName(planned.program);
  r.latency = point.latency;
  r.latency_ns = point.latency_ns;
  r.bandwidth = point.bandwidth;
  r.bandwidth_share = point.bandwidth_share;
  r.bw_mode = point.bandwidth_share == 1 ? "" : plan_.bw_mode;
  r.durations = point.durations;
  r.durations_ns = point.durations_ns;
  const RunRequest req = Request(index);
  std::error_code ec;
  fs::remove_all(ReportDir(plan_.out_dir, index), ec);
  fs::create_directories(ReportDir(plan_.out_dir, index), ec);
  const bool json = planned.program != Program::kPingpong &&
                    metric_.kind() == Metric::Kind::kJson;
  if (json) fs::remove(metric_.file(), ec);  // never read a stale file
  const RunOutcome out = executor_->Run(req);
  r.wall_s = out.wall_s;
  r.status = out.Describe();
  if (out.leftovers > 0) {
    r.status += " (" + std::to_string(out.leftovers) +
                " of its processes outlived it and were killed)";
  }
  const Coverage cov = JudgeReportDir(ReportDir(plan_.out_dir, index));
  r.reports = cov.reports;
  r.waits = cov.waits.count;
  r.wait_ns = cov.MeanWaitNs();
  r.wait_own_ns = cov.MeanOwnWaitNs();
  std::string why;
  if (!out.ok()) {
    r.reason = r.status + (out.started ? ": " + LastLine(out.output) : "");
    return r;
  }
  if (planned.program == Program::kPingpong) {
    r.metric = out.wall_s;
  } else if (json) {
    bool read = false;
    const std::string text = internal::ReadFile(metric_.file(), &read);
    r.metric = read ? metric_.FromJson(text, &why) : std::nullopt;
    if (!read) why = "the command wrote no " + metric_.file();
  } else {
    r.metric = metric_.FromOutput(out.output, out.wall_s, &why);
  }
  if (!r.metric) {
    r.reason = why;
  } else if (!cov.valid && planned.program != Program::kControl) {
    r.reason = "not emulated: " + cov.reason;
  } else {
    r.valid = true;
  }
  return r;
}

RunRecord SweepEngine::RunAgain(size_t index, const Interrupts& stop) {
  stop_ = &stop;
  RunRecord r = RunOne(index);
  stop_ = nullptr;
  return r;
}

bool SweepEngine::Run(std::vector<RunRecord>* records, const Interrupts& stop,
                      const Progress& progress, std::string* why,
                      const internal::FileOps& ops) {
  const std::string csv = plan_.out_dir + "/runs.csv";
  std::error_code ec;
  fs::create_directories(plan_.out_dir + "/logs", ec);
  const bool fresh = !fs::exists(csv);
  internal::Appender out(ops);
  if (!out.Open(csv, why) || (fresh && !out.Append(RunsCsvHeader(), why))) {
    return false;
  }
  stop_ = &stop;
  bool ok = true;
  for (size_t i = records->size(); ok && i < plan_.order.size(); ++i) {
    if (stop.any()) break;
    RunRecord r = RunOne(i);
    if (stop.any()) break;  // interrupted mid-run: not a measurement
    ok = out.Append(RunsCsvRow(r), why);
    if (!ok) break;
    records->push_back(std::move(r));
    if (progress) progress(records->back(), records->size());
  }
  stop_ = nullptr;
  return ok;
}

void CheckReportCounts(std::vector<RunRecord>* records) {
  std::map<std::string, int> most;
  for (const RunRecord& r : *records) {
    if (r.metric) most[r.program] = std::max(most[r.program], r.reports);
  }
  for (RunRecord& r : *records) {
    // The control runs without the shim.
    if (r.program == ProgramName(Program::kControl)) continue;
    const int expected = most[r.program];
    if (r.valid && expected == 0) {
      // No run of this program wrote a report: no process ever had a device
      // under the shim, so every point measured the same unemulated run.
      r.valid = false;
      r.reason =
          "no shim report in any " + r.program +
          " run: no process opened an RDMA device under the shim (it uses "
          "none, or reaches libibverbs where the shim cannot see it)";
      continue;
    }
    if (!r.valid || r.reports >= expected) continue;
    r.valid = false;
    r.reason = std::to_string(r.reports) + " shim reports where other " +
               r.program + " runs wrote " + std::to_string(expected) +
               ": a process ran without the shim (check mpirun -x / srun "
               "--export)";
  }
}

}  // namespace verbsemu::sweep
