#include "shim/internal/report_json.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/enum_table.h"
#include "emulate/units.h"
#include "report/schema.h"
#include "shim/internal/port_traffic.h"
#include "shim/internal/registry.h"
#include "shim/internal/report.h"
#include "shim/internal/report_file.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

using nlohmann::json;

// The command line, its arguments joined by spaces (at most 4 KiB).
std::string Command() {
  char buf[4096];
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0) return "";
  std::string cmd(buf, static_cast<size_t>(n));
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd) c = c == '\0' ? ' ' : c;
  return cmd;
}

json SettingsJson(const Engine& e) {
  const emulate::Config& c = e.settings.engine;
  const auto& topo = e.settings.topology;
  return {
      {"latency_ns", c.latency_ns},
      {"latency_law",
       e.latency_law.varies() ? e.latency_law.law().Describe() : ""},
      {"defer", e.defer.on},
      {"bandwidth", emulate::FormatBandwidth(c.bandwidth)},
      {"bw_mode", e.bw.ShaperName()},
      {"overhead_ns", c.overhead_ns},
      {"recv_overhead_ns", c.recv_overhead_ns},
      {"gap_ns", c.gap_ns},
      {"gap_scope", c.gap_scope == emulate::GapScope::kPort ? "port" : "qp"},
      {"fabric", std::string(base::EnumName(c.fabric))},
      {"topology", topo != nullptr ? topo->path : ""},
      {"tsc_ghz", e.cal.ticks_per_ns}};
}

json CountersJson(const QpCounters& c, const emulate::TscCalibration& cal) {
  return {{"posts", c.posts},
          {"failed_posts", c.failed_posts},
          {"wrs", c.wrs},
          {"bytes", c.bytes},
          {"delay_ns", cal.TicksToNs(c.delay_ticks)},
          {"pad_bytes", c.pad_bytes},
          {"pad_datagrams", c.pad_datagrams},
          {"shim_ns_per_post",
           c.ovh_samples
               ? cal.TicksToNs(c.ovh_ticks) / static_cast<double>(c.ovh_samples)
               : 0.0}};
}

json QpJson(const QpRecord& r, const emulate::TscCalibration& cal) {
  char qpn[16];
  std::snprintf(qpn, sizeof qpn, "0x%06x", r.qpn);
  return {
      {"device", r.device},
      {"qpn", qpn},
      {"type", QpTypeName(r.type)},
      {"emulated", !r.loopback},
      {"why_not", r.loopback ? "loopback QP: connected to its own port" : ""},
      {"counters", CountersJson(r.c, cal)}};
}

// Per device: its ports, and the QPs and counters (QPs folded in count).
json DevicesJson(Engine& e, const std::vector<QpRecord>& qps) {
  json devices = json::array();
  for (const std::string& dev : e.devices_seen) {
    QpCounters sum;
    uint64_t n = 0;
    for (const QpRecord& r : qps) {
      if (r.device != dev) continue;
      ++n;
      sum += r.c;
    }
    for (const FoldedQps& f : e.folded) {
      if (f.device != dev) continue;
      n += f.qps;
      sum += f.c;
    }
    devices.push_back({{"name", dev},
                       {"ports", DevicePorts(e.bypass.paths.sysfs_root, dev)},
                       {"qps", n},
                       {"counters", CountersJson(sum, e.cal)}});
  }
  return devices;
}

json OtherCountersJson(const Engine& e) {
  json defer = json::object();
#define VERBSEMU_PART(name, what) defer[#name] = e.defer.counts.name.Get();
  VERBSEMU_DEFER_COUNTERS(VERBSEMU_PART)
#undef VERBSEMU_PART
  json tables = json::object();
  for (size_t i = 0; i < kTableCount; ++i) {
    tables[kTables[i].what] = e.tables_full[i].load(std::memory_order_relaxed);
  }
  return {{"loopback_qps", e.loopback_qps},
          {"link_resets", e.bw.resets.load(std::memory_order_relaxed)},
          {"tables_full", tables},
          {"direct_verbs",
           {{"refused", e.direct.refused.Get()},
            {"allowed", e.direct.allowed.Get()},
            {"objects", e.direct.objects.Get()}}},
          {"waits", e.lateness.count()},
          {"delays_drawn", e.latency_law.count()},
          {"poll_overhead_samples", e.poll_ovh_samples.Get()},
          {"defer", e.defer.on ? defer : json(nullptr)}};
}

// The waits (wait_lateness.h): how long they lasted from their start,
// and the lateness of those that lost the CPU for over `lost_cpu_above_ns`.
// A reader takes the delay the process waited per wait (waited / count)
// and the spin's own part (without the lost CPU's lateness) from them.
json WaitsJson(const Engine& e) {
  const WaitLateness& l = e.lateness;
  const auto ns = [&e](uint64_t ticks) { return e.cal.TicksToNs(ticks); };
  return {{"count", l.count()},
          {"waited_ns", ns(l.waited_ticks())},
          {"late_ns", ns(l.sum_ticks())},
          {"lost_cpu", l.tail_count()},
          {"lost_cpu_late_ns", ns(l.tail_sum_ticks())},
          {"lost_cpu_above_ns", l.tail_ticks() == UINT64_MAX
                                    ? json(nullptr)
                                    : json(ns(l.tail_ticks()))}};
}

json WarningsJson() {
  json out = json::array();
  for (const RecordedWarning& w : RecordedWarnings()) {
    const WarningInfo& info = Info(w.code);
    out.push_back({{"code", info.code},
                   {"severity", SeverityName(info.severity)},
                   {"invalidates", info.invalidates},
                   {"text", w.text}});
  }
  return out;
}

}  // namespace

std::vector<QpRecord> QpRecordsLocked(Engine& e) {
  std::vector<QpRecord> all(e.retired.begin(), e.retired.end());
  for (auto& [key, q] : e.qp_owner) {
    all.push_back({q->ctx->device, q->qpn, q->type, q->stats.Snapshot(),
                   q->loopback.load(std::memory_order_relaxed)});
  }
  return all;
}

std::string ReportJson() {
  json doc = {{"schema", std::string(report::kSchema)},
              {"pid", static_cast<int>(getpid())},
              {"command", Command()}};
  {
    Engine& e = E();
    std::lock_guard<std::mutex> lock(e.mu);
    (void)EnsureCalibratedLocked();
    const std::vector<QpRecord> qps = QpRecordsLocked(e);
    doc["emulated"] = e.patching;
    doc["config_error"] = e.config_error;
    doc["settings"] = SettingsJson(e);
    doc["devices"] = DevicesJson(e, qps);
    json list = json::array();
    for (const QpRecord& r : qps) list.push_back(QpJson(r, e.cal));
    doc["qps"] = std::move(list);
    doc["counters"] = OtherCountersJson(e);
    doc["waits"] = WaitsJson(e);
  }
  doc["warnings"] = WarningsJson();
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string JsonReportPath(std::string_view pattern, const std::string& path,
                           int pid) {
  const bool per_pid = pattern.find("%p") != std::string_view::npos;
  return path + (per_pid ? "" : "." + std::to_string(pid)) +
         std::string(report::kJsonSuffix);
}

bool WriteJsonReport(const std::string& path, std::string_view text,
                     std::string* why) {
  // Per thread: the report signal's watcher and the exit may both write.
  const std::string tmp = path + ".tmp" + std::to_string(gettid());
  if (unlink(tmp.c_str()) != 0 && errno != ENOENT) {
    *why = "cannot write the JSON report " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!AppendReportFile(tmp, text, why)) return false;
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *why = "cannot write the JSON report " + path + ": " + std::strerror(errno);
    (void)unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace verbsemu::shim::internal
