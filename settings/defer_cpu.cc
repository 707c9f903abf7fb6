#include "settings/defer_cpu.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>

namespace verbsemu::shim::internal {
namespace {

// The largest CPU number a list may name (CPU_SETSIZE).
constexpr int kMaxCpu = CPU_SETSIZE - 1;

std::optional<int> ParseCpu(std::string_view t) {
  int v = -1;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || v < 0 || v > kMaxCpu)
    return std::nullopt;
  return v;
}

std::vector<int> ThreadCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0)
    return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::vector<int> OnlineCpus() {
  std::ifstream f("/sys/devices/system/cpu/online");
  std::string text;
  std::getline(f, text);
  return ParseCpuList(text).value_or(std::vector<int>{});
}

bool SetThreadCpus(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : cpus) CPU_SET(c, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace

std::optional<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? "" : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) return std::nullopt;
    const size_t dash = part.find('-');
    const auto lo = ParseCpu(part.substr(0, dash));
    const auto hi =
        dash == std::string_view::npos ? lo : ParseCpu(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo) return std::nullopt;
    for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
  }
  if (cpus.empty()) return std::nullopt;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::optional<DeferCpu> ParseDeferCpu(std::string_view text, std::string* why) {
  if (text == "auto") return DeferCpu{};
  if (text == "inherit") return DeferCpu{DeferCpu::Kind::kInherit, {}};
  if (auto cpus = ParseCpuList(text))
    return DeferCpu{DeferCpu::Kind::kList, std::move(*cpus)};
  *why = "neither auto, inherit nor a CPU list such as 3 or 0-3,8";
  return std::nullopt;
}

std::vector<int> ChooseDeferCpus(const DeferCpu& setting,
                                 const std::vector<int>& own,
                                 const std::vector<int>& online) {
  switch (setting.kind) {
    case DeferCpu::Kind::kInherit:
      return {};
    case DeferCpu::Kind::kList:
      return setting.cpus;
    case DeferCpu::Kind::kAuto:
      break;
  }
  std::vector<int> others;
  std::set_difference(online.begin(), online.end(), own.begin(), own.end(),
                      std::back_inserter(others));
  return others;  // empty: the application may run anywhere; stay there
}

std::string PlaceThisThread(const DeferCpu& setting) {
  const std::vector<int> own = ThreadCpus();
  const std::vector<int> want = ChooseDeferCpus(setting, own, OnlineCpus());
  if (want.empty()) {
    return "progress thread on CPUs " + FormatCpuList(own) +
           (setting.kind == DeferCpu::Kind::kInherit
                ? " (inherited)"
                : " (the application's: no other CPU online)");
  }
  if (!SetThreadCpus(want)) {
    return "progress thread on CPUs " + FormatCpuList(own) +
           " (the application's: CPUs " + FormatCpuList(want) +
           " are not allowed here)";
  }
  // The kernel keeps what the cpuset allows: say what it kept.
  return "progress thread on CPUs " + FormatCpuList(ThreadCpus()) +
         (setting.kind == DeferCpu::Kind::kList
              ? " (VERBSEMU_DEFER_CPU)"
              : " (off the application's " + FormatCpuList(own) + ")");
}

}  // namespace verbsemu::shim::internal
