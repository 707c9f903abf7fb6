#include "sweep/presets.h"

#include <array>
#include <cctype>

namespace verbsemu::sweep {
namespace {

using Arg = Preset::Arg;

// Each pattern was checked against the tool's own print format (its
// source) and a line it prints (presets_test.cc holds one per preset).
// A number: what printf's %f, %g and %lf write.
#define NUM "[0-9.eE+-]+"
constexpr std::array kPresets = {
    // perftest ib_*_lat (REPORT_FMT_LAT): #bytes #iterations t_min t_max
    // t_typical t_avg t_stdev 99% 99.9%.
    Preset{"perftest_t_min", "perftest ib_*_lat",
           R"(^\s*{size}\s+\d+\s+()" NUM R"()(?:\s+)" NUM R"(){4})",
           Arg::kOptional, "t_min", "us", Better::kLower},
    Preset{"perftest_t_typical", "perftest ib_*_lat",
           R"(^\s*{size}\s+\d+\s+)" NUM R"(\s+)" NUM R"(\s+()" NUM
           R"()(?:\s+)" NUM R"(){2})",
           Arg::kOptional, "t_typical", "us", Better::kLower},
    // perftest ib_*_bw (REPORT_FMT): #bytes #iterations BW peak, BW
    // average, MsgRate (MB/s; Gb/s with --report_gbits).
    Preset{"perftest_bw", "perftest ib_*_bw",
           R"(^\s*{size}\s+\d+\s+)" NUM R"(\s+()" NUM R"()\s+)" NUM
           R"((?:\s+)" NUM R"()?\s*$)",
           Arg::kOptional, "BW average", "MB/s", Better::kHigher},
    // OSU micro-benchmarks: "%-*d%*.*f" (size, then the figure).
    Preset{"osu_latency", "osu_latency", R"(^\s*{size}\s+()" NUM R"())",
           Arg::kRequired, "latency", "us", Better::kLower},
    Preset{"osu_bw", "osu_bw", R"(^\s*{size}\s+()" NUM R"())", Arg::kRequired,
           "bandwidth", "MB/s", Better::kHigher},
    Preset{"osu_allreduce", "osu_allreduce", R"(^\s*{size}\s+()" NUM R"())",
           Arg::kRequired, "avg latency", "us", Better::kLower},
    // Intel MPI Benchmarks: PingPong rows are #bytes #repetitions t[usec]
    // Mbytes/sec; collectives' are #bytes #repetitions t_min t_max t_avg.
    Preset{"imb_pingpong", "IMB-MPI1 PingPong",
           R"(^\s*{size}\s+\d+\s+()" NUM R"()\s+)" NUM R"(\s*$)",
           Arg::kRequired, "t", "us", Better::kLower},
    Preset{"imb_collective", "IMB-MPI1 (collectives)",
           R"(^\s*{size}\s+\d+\s+)" NUM R"(\s+)" NUM R"(\s+()" NUM R"()\s*$)",
           Arg::kRequired, "t_avg", "us", Better::kLower},
    // nccl-tests: "# Avg bus bandwidth    : %g", and the rows' size count
    // type redop root time (out of place) algbw busbw ...
    Preset{"nccl_busbw", "nccl-tests *_perf",
           R"(^#\s*Avg bus bandwidth\s*:\s*()" NUM R"())", Arg::kNone,
           "avg bus bandwidth", "GB/s", Better::kHigher},
    Preset{"nccl_time", "nccl-tests *_perf",
           R"(^\s*{size}\s+\d+\s+\S+\s+\S+\s+-?\d+\s+()" NUM R"()\s)",
           Arg::kRequired, "time (out of place)", "us", Better::kLower},
    // LAMMPS (Finish): "Loop time of %g on %d procs for %d steps ...".
    Preset{"lammps", "lmp", R"(Loop time of ()" NUM R"() on )", Arg::kNone,
           "Loop time", "s", Better::kLower},
    // HPCG's report (ReportResults.cpp: "Final Summary::...=" in 3.x's
    // .txt, ": " in the YAML of 2.x); print it from the command.
    Preset{"hpcg", "xhpcg",
           R"(HPCG result is VALID with a GFLOP/s rating of[=:]\s*()" NUM
           R"())",
           Arg::kNone, "GFLOP/s rating", "GFLOP/s", Better::kHigher},
    Preset{"wall", "any command", "", Arg::kNone, "wall time", "s",
           Better::kLower},
};
#undef NUM

bool AllDigits(std::string_view s) {
  if (s.empty() || s.size() > 15) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Names() {
  std::string out;
  for (const Preset& p : kPresets) {
    out += (out.empty() ? "" : ", ") + std::string(p.name);
  }
  return out;
}

// The regex's literal text before its first group, metacharacters and an
// anchor dropped, trimmed: the words the tool prints before the number.
std::string LiteralPrefix(std::string_view pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '(' || c == '[' || c == '|' || c == '.' || c == '*' || c == '+' ||
        c == '?' || c == '{') {
      break;
    }
    if (c == '\\' && i + 1 < pattern.size()) {
      if (std::isalnum(static_cast<unsigned char>(pattern[i + 1]))) break;
      out += pattern[++i];
    } else if (c != '^') {
      out += c;
    }
  }
  while (!out.empty() &&
         (std::isspace(static_cast<unsigned char>(out.back())) ||
          out.back() == ':' || out.back() == '=')) {
    out.pop_back();
  }
  if (out.ends_with(" of")) out.resize(out.size() - 3);  // "Loop time of"
  const size_t start = out.find_first_not_of(" \t");
  return start == std::string::npos ? "" : out.substr(start);
}

}  // namespace

std::span<const Preset> Presets() { return kPresets; }

std::string MetricLabel::Axis() const {
  return unit.empty() ? name : name + " (" + unit + ")";
}

std::optional<ResolvedPreset> ResolvePreset(std::string_view name_arg,
                                            std::string* why) {
  const size_t colon = name_arg.find(':');
  const std::string_view name = name_arg.substr(0, colon);
  const std::string_view arg =
      colon == std::string_view::npos ? "" : name_arg.substr(colon + 1);
  for (const Preset& p : kPresets) {
    if (p.name != name) continue;
    const std::string spec = "preset:" + std::string(name);
    if (p.arg == Arg::kNone && colon != std::string_view::npos) {
      *why = "--metric " + spec + " takes no :ARG";
      return std::nullopt;
    }
    if ((p.arg == Arg::kRequired || !arg.empty()) && !AllDigits(arg)) {
      *why = "--metric " + spec + ":SIZE needs the message size in bytes, " +
             "such as " + spec + ":8192";
      return std::nullopt;
    }
    ResolvedPreset r;
    r.pattern = p.pattern;
    if (const size_t at = r.pattern.find("{size}"); at != std::string::npos) {
      r.pattern.replace(at, 6, arg.empty() ? "\\d+" : std::string(arg));
    }
    r.label.name = std::string(p.quantity);
    if (!arg.empty()) r.label.name += " at " + std::string(arg) + " B";
    r.label.unit = p.unit;
    r.label.better = p.better;
    r.label.wall_time = p.pattern.empty();
    return r;
  }
  *why = "--metric preset:" + std::string(name) +
         " is not a preset; the presets are " + Names();
  return std::nullopt;
}

MetricLabel LabelFor(std::string_view spec, std::string_view name,
                     std::string_view unit) {
  MetricLabel l;
  std::string ignored;
  if (spec == "runtime") {
    l = {"wall time", "s", Better::kLower, true};
  } else if (spec.starts_with("preset:")) {
    if (auto r = ResolvePreset(spec.substr(7), &ignored)) l = r->label;
  } else if (spec.starts_with("regex:")) {
    l.name = LiteralPrefix(spec.substr(6));
  } else if (spec.starts_with("json:")) {
    l.name = std::string(spec.substr(spec.rfind('/') + 1));
  }
  if (l.name.empty()) l.name = std::string(spec);
  if (!name.empty()) l.name = name;
  if (!unit.empty()) l.unit = unit;
  return l;
}

}  // namespace verbsemu::sweep
