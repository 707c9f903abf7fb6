#include "settings/knobs.h"

#include <csignal>
#include <cstdio>
#include <type_traits>

#include "base/enum_table.h"
#include "emulate/units.h"
#include "settings/file_knobs.h"

namespace verbsemu::shim {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// Stores what a parser accepted; false when it refused.
template <class T, class Field>
bool Store(const std::optional<T>& parsed, Field* field) {
  if (parsed) *field = *parsed;
  return parsed.has_value();
}

// An enum setting of the engine's, spelled as its EnumTable spells it.
template <auto kField>
bool ApplyEnum(std::string_view t, Settings* s, std::string*) {
  using E = std::remove_reference_t<decltype(s->engine.*kField)>;
  return Store(base::ParseEnum<E>(t), &(s->engine.*kField));
}

// A constant duration up to one second, into `field`.
bool StoreDuration(std::string_view t, double* field, std::string* why) {
  const auto ns = units::ParseDurationNs(t, why);
  if (!ns) return false;
  if (*ns > emulate::kMaxDelayNs) {
    *why = "more than one second";
    return false;
  }
  *field = *ns;
  return true;
}

bool ApplyLatency(std::string_view t, Settings* s, std::string* why) {
  // A constant: the duration parser's own messages.
  double ns = 0;
  if (t.find_first_of("(:") == std::string_view::npos &&
      !StoreDuration(t, &ns, why)) {
    return false;
  }
  auto law = emulate::ParseDelayDistribution(t, why);
  if (!law) return false;
  s->engine.latency_ns = law->Mean();
  s->engine.latency = std::move(*law);
  return true;
}

bool ApplyOverhead(std::string_view t, Settings* s, std::string* why) {
  return StoreDuration(t, &s->engine.overhead_ns, why);
}

bool ApplyRecvOverhead(std::string_view t, Settings* s, std::string* why) {
  return StoreDuration(t, &s->engine.recv_overhead_ns, why);
}

bool ApplyGap(std::string_view t, Settings* s, std::string* why) {
  return StoreDuration(t, &s->engine.gap_ns, why);
}

bool ApplySeed(std::string_view t, Settings* s, std::string* why) {
  uint64_t v = 0;
  if (t.empty() || t.size() > 20) return false;
  for (const char c : t) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) {
      *why = "more than 2^64 - 1";
      return false;
    }
    v = v * 10 + digit;
  }
  s->engine.seed = v;
  return true;
}

bool ApplyBandwidth(std::string_view t, Settings* s, std::string* why) {
  return Store(emulate::ParseBandwidth(t, why), &s->engine.bandwidth);
}

bool ApplyPadThreshold(std::string_view t, Settings* s, std::string* why) {
  const auto bytes = units::ParseBytes(t, why);
  if (bytes && *bytes == 0) *why = "must be more than 0 bytes";
  if (!bytes || *bytes == 0) return false;
  s->engine.pad_threshold_bytes = *bytes;
  return true;
}

bool ApplyLinkBandwidth(std::string_view t, Settings* s, std::string* why) {
  return Store(units::ParseBitsPerS(t, why), &s->engine.link_bits_per_s);
}

bool ApplyDevices(std::string_view t, Settings* s, std::string* why) {
  std::vector<std::string> devices;
  for (size_t start = 0; start <= t.size();) {
    size_t comma = t.find(',', start);
    if (comma == std::string_view::npos) comma = t.size();
    const std::string_view name = Trim(t.substr(start, comma - start));
    if (name.empty()) {
      *why = "an empty device name";
      return false;
    }
    devices.emplace_back(name);
    start = comma + 1;
  }
  s->devices = std::move(devices);
  return true;
}

bool ApplyReport(std::string_view t, Settings* s, std::string* why) {
  if (t.empty()) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '%') continue;
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (next != 'p' && next != 'h' && next != '%') {
      *why = "a '%' must be followed by p (pid), h (host name) or %";
      return false;
    }
    ++i;
  }
  s->report = std::string(t);
  return true;
}

// USR1 and USR2 only: the signals left to applications by convention, so
// asking for a report never takes over another signal.
bool ApplyReportSignal(std::string_view t, Settings* s, std::string*) {
  if (t == "USR1" || t == "SIGUSR1") {
    s->report_signal = SIGUSR1;
  } else if (t == "USR2" || t == "SIGUSR2") {
    s->report_signal = SIGUSR2;
  } else {
    return false;
  }
  return true;
}

bool ApplyDirectVerbs(std::string_view t, Settings* s, std::string*) {
  if (t != "off" && t != "allow") return false;
  s->allow_direct_verbs = t == "allow";
  return true;
}

bool ApplyJob(std::string_view t, Settings* s, std::string* why) {
  if (t.empty() || t.size() > 64) {
    *why = "1 to 64 characters";
    return false;
  }
  for (const char c : t) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  s->job = std::string(t);
  return true;
}

bool ApplyShmDir(std::string_view t, Settings* s, std::string* why) {
  if (t.empty() || t.front() != '/') {
    *why = "not an absolute path";
    return false;
  }
  while (t.size() > 1 && t.back() == '/') t.remove_suffix(1);
  s->shm_dir = std::string(t);
  return true;
}

bool ApplyDeferCpu(std::string_view t, Settings* s, std::string* why) {
  return Store(internal::ParseDeferCpu(t, why), &s->defer_cpu);
}

// The size follows the rows: no row can be left value-initialized.
constexpr Knob kKnobs[] = {
    {"VERBSEMU_LATENCY", "--latency", "D",
     "a duration up to 1s such as 2us, 1500ns, 0.5ms, 0; or a law of one: "
     "normal(MEAN,SD), lognormal(MEDIAN,SIGMA), uniform(A,B), "
     "pareto(SCALE,SHAPE), replay:FILE (the one-way histogram of a "
     "verbsbench lat --json report)",
     "0", "one-way latency added to every send-side post, drawn per post",
     ApplyLatency},
    {"VERBSEMU_LATENCY_MODE", "--latency-mode",
     base::kEnumBar<emulate::LatencyMode>,
     base::kEnumChoices<emulate::LatencyMode>, "spin",
     "spin: the posting thread waits out the latency; defer: the post "
     "returns at once and reaches the device the latency later, so the "
     "message rate stays",
     ApplyEnum<&emulate::Config::latency_mode>},
    {"VERBSEMU_OVERHEAD", "--overhead", "D",
     "a duration up to 1s such as 1us, 500ns, 0", "0",
     "LogGP's o (send side): CPU time spun inside ibv_post_send and "
     "ibv_wr_complete per WR posted, before the post reaches the device",
     ApplyOverhead},
    {"VERBSEMU_RECV_OVERHEAD", "--recv-overhead", "D",
     "a duration up to 1s such as 1us, 500ns, 0", "0",
     "LogGP's o (receive side): CPU time spun inside ibv_poll_cq per "
     "receive completion it returns",
     ApplyRecvOverhead},
    {"VERBSEMU_GAP", "--gap", "D", "a duration up to 1s such as 1us, 250ns, 0",
     "0",
     "LogGP's g: the least time between the starts of two messages (a "
     "message-rate limit of 1/D), per QP or per port",
     ApplyGap},
    {"VERBSEMU_GAP_SCOPE", "--gap-scope", base::kEnumBar<emulate::GapScope>,
     base::kEnumChoices<emulate::GapScope>, "qp",
     "qp: each QP has its own gap; port: every QP of the node's processes "
     "on a port shares one",
     ApplyEnum<&emulate::Config::gap_scope>},
    {"VERBSEMU_SEED", "--seed", "N", "a whole number such as 42",
     "random (the report prints it)",
     "seed of the latency draws, so a run can be repeated", ApplySeed},
    {"VERBSEMU_BANDWIDTH", "--bandwidth", "B",
     "a rate such as 25Gbit/s, 800Mbit/s, 3GiB/s, or a share of the link "
     "such as 40%",
     "native", "bandwidth the link is narrowed to", ApplyBandwidth},
    {"VERBSEMU_BW_MODE", "--bw-mode", base::kEnumBar<emulate::BwMode>,
     base::kEnumChoices<emulate::BwMode>, "pad",
     "how bandwidth is taken away: padding traffic, or pacing posts",
     ApplyEnum<&emulate::Config::bw_mode>},
    {"VERBSEMU_FABRIC", "--fabric", "egress|links|penalty[:P]|ib-hol",
     "egress, links, penalty, penalty:P with P a model or a penalties file "
     "(as --penalties), or ib-hol (penalty:ib-hol)",
     "egress",
     "which links a transfer's bandwidth is limited on: egress, its sending "
     "port's; links, also its receiving port's, so that senders into one "
     "port share its rate; penalty (defer mode), each transfer at B/rho "
     "from the contention model over the node's active transfers (within "
     "one node's shared memory)",
     ApplyFabric},
    {"VERBSEMU_PENALTIES", "--penalties", "MODEL|FILE",
     "mm2011-node, mm2011-edge, maxmin, ib-hol, or a penalties file "
     "(contentionfit export)",
     "mm2011-node",
     "where --fabric penalty takes each transfer's penalty from: a "
     "contention model, or a file of measured penalties by shape (its model "
     "for the rest)",
     ApplyPenalties},
    {"VERBSEMU_PAD_THRESHOLD", "--pad-threshold", "S",
     "a size such as 65536, 64KiB, 1MiB", "64KiB",
     "padding owed is sent once it reaches this many bytes", ApplyPadThreshold},
    {"VERBSEMU_DEVICES", "--devices", "LIST",
     "a comma-separated list of device names such as rxe0,mlx5_1",
     "every device", "devices to emulate; others pass through untouched",
     ApplyDevices},
    {"VERBSEMU_REPORT", "--report", "stderr|PATH",
     "stderr or a file path (appended; %p: pid, %h: host name)", "no report",
     "where the per-QP report goes at exit", ApplyReport},
    {"VERBSEMU_REPORT_SIGNAL", "--report-signal", "USR1|USR2",
     "USR1 or USR2 (also SIGUSR1, SIGUSR2)", "at exit only",
     "signal on which the report is also written", ApplyReportSignal},
    {"VERBSEMU_LINK_BANDWIDTH", "--link-bandwidth", "R",
     "a rate such as 100Gbit/s, 5GiB/s", "the port's (see Link rate)",
     "the real link's rate, when the port cannot tell it", ApplyLinkBandwidth},
    {"VERBSEMU_TOPOLOGY", "--topology", "FILE",
     "a file of link classes and the routes that pick them "
     "(docs/topology.md)",
     "one class", "per-peer latency and bandwidth classes", ApplyTopology},
    {"VERBSEMU_DIRECT_VERBS", "--direct-verbs", "off|allow", "off or allow",
     "off",
     "off: emulated devices answer mlx5dv_is_supported() with false, so UCX "
     "and NCCL post through the verbs the shim emulates; allow: direct "
     "verbs stay, unemulated (the report warns)",
     ApplyDirectVerbs},
    {"VERBSEMU_JOB", "--job", "ID",
     "1 to 64 letters, digits, '.', '_' or '-', such as sweep-3",
     "SLURM_JOB_ID, else OMPI_MCA_ess_base_jobid, else PMIX_NAMESPACE, else "
     "none (one scope per user)",
     "processes of one user share a physical port's link and packet counts "
     "only within one job",
     ApplyJob},
    {"VERBSEMU_SHM_DIR", "--shm-dir", "DIR",
     "an absolute directory path such as /run/verbsemu (every pod of a node "
     "pointed at one host mount)",
     "/dev/shm (shm_open)",
     "directory where the shared segments are files (mode 0600)", ApplyShmDir},
    {"VERBSEMU_DEFER_CPU", "--defer-cpu", "CPUS",
     "auto, inherit, or a CPU list such as 3 or 0-3,8", "auto",
     "where the defer mode's progress thread runs: auto puts it on the "
     "node's other CPUs when the application is bound to some (mpirun "
     "--bind-to core), inherit keeps the application's; the report says "
     "where it ran",
     ApplyDeferCpu},
};

}  // namespace

bool Settings::bandwidth_enabled() const {
  if (engine.bandwidth.enabled()) return true;
  if (!topology) return false;
  for (const emulate::LinkClass& c : topology->topology.classes()) {
    if (c.bandwidth.enabled()) return true;
  }
  return false;
}

bool Settings::EmulatesDevice(std::string_view name) const {
  if (devices.empty()) return true;
  for (const std::string& d : devices) {
    if (d == name) return true;
  }
  return false;
}

std::span<const Knob> Knobs() { return kKnobs; }

const Knob* FindKnobByEnv(std::string_view env) {
  for (const Knob& k : kKnobs) {
    if (k.env == env) return &k;
  }
  return nullptr;
}

const Knob* FindKnobByFlag(std::string_view flag) {
  for (const Knob& k : kKnobs) {
    if (k.flag == flag) return &k;
  }
  return nullptr;
}

namespace {

// `why` may quote the value (a topology file's path, say): control bytes
// are escaped there too, so the refusal stays one line.
std::string OneLine(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
      continue;
    }
    char esc[8];
    std::snprintf(esc, sizeof esc, "\\x%02x", c);
    out += esc;
  }
  return out;
}

std::string Refusal(const Knob& k, std::string_view value,
                    const std::string& why) {
  std::string line =
      std::string(k.env) + "='" + Printable(value) + "' is not accepted";
  if (!why.empty()) line += " (" + OneLine(why) + ")";
  return line + "; expected " + std::string(k.accepts);
}

}  // namespace

std::string ValidateKnob(const Knob& knob, std::string_view value) {
  Settings scratch;
  std::string why;
  if (knob.apply(Trim(value), &scratch, &why)) return "";
  return Refusal(knob, value, why);
}

SettingsResult SettingsFromEnv(
    const std::function<const char*(const char*)>& getenv) {
  SettingsResult result;
  for (const Knob& k : kKnobs) {
    const char* raw = getenv(std::string(k.env).c_str());
    if (raw == nullptr) continue;
    std::string why;
    if (!k.apply(Trim(raw), &result.settings, &why)) {
      result.error = Refusal(k, raw, why);
      return result;
    }
  }
  if (result.settings.job.empty())
    result.settings.job = JobFromLauncher(getenv);
  return result;
}

std::string JobFromLauncher(
    const std::function<const char*(const char*)>& getenv) {
  for (const char* name :
       {"SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE"}) {
    const char* v = getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  return "";
}

std::string ExpandReportPath(std::string_view pattern, int pid,
                             std::string_view host) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char next = pattern[++i];
    if (next == 'p') {
      out += std::to_string(pid);
    } else if (next == 'h') {
      out += host;
    } else {
      out += next;
    }
  }
  return out;
}

std::string Printable(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    }
  }
  return out;
}

std::string KnobsMarkdownTable() {
  std::string out =
      "| variable | launcher flag | accepts | default | effect |\n"
      "|---|---|---|---|---|\n";
  for (const Knob& k : kKnobs) {
    out += "| `" + std::string(k.env) + "` | `" + std::string(k.flag) + "` | " +
           std::string(k.accepts) + " | " + std::string(k.fallback) + " | " +
           std::string(k.effect) + " |\n";
  }
  return out;
}

std::string KnobsUsage() {
  std::string out;
  for (const Knob& k : kKnobs) {
    std::string left =
        "  " + std::string(k.flag) + " " + std::string(k.metavar);
    if (left.size() < 30) left.resize(30, ' ');
    out += left + std::string(k.effect) + " (" + std::string(k.env) +
           "; default " + std::string(k.fallback) + ")\n";
  }
  return out;
}

}  // namespace verbsemu::shim
