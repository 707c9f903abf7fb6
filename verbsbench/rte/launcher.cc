#include "verbsbench/rte/launcher.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace verbsbench::rte {
namespace {

// A process number or count: decimal digits only, below 2^24.
int ParseCount(const char* variable, const char* text, const char* what) {
  const std::string s = text;
  int value = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() ||
      value < 0 || value >= (1 << 24)) {
    throw std::invalid_argument(std::string(variable) + "='" + s + "' is not " +
                                what + ": unset it, or pass --rte tcp");
  }
  return value;
}

}  // namespace

nlohmann::json Launch::ToJson() const {
  nlohmann::json j = {
      {"launcher", launcher}, {"variable", variable}, {"rank", rank}};
  if (size >= 0) j["size"] = size;
  return j;
}

Getenv ProcessEnvironment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::optional<Launch> DetectLauncher(const Getenv& env) {
  for (const LauncherVariables& v : kLaunchers) {
    const char* rank = env(v.rank);
    if (rank == nullptr) continue;
    Launch launch{v.launcher, v.rank,
                  ParseCount(v.rank, rank, "a process number")};
    const char* size = v.size ? env(v.size) : nullptr;
    if (size == nullptr) {
      if (v.size_required) return std::nullopt;
      return launch;
    }
    launch.size = ParseCount(v.size, size, "a process count");
    if (launch.rank >= launch.size) {
      throw std::invalid_argument(std::string(v.rank) + "=" + rank +
                                  " is not below " + v.size + "=" + size +
                                  ": unset them, or pass --rte tcp");
    }
    if (launch.size <= 1) return std::nullopt;
    return launch;
  }
  return std::nullopt;
}

Rte ResolveRte(Rte requested, bool has_host, const Getenv& env) {
  if (requested != Rte::kAuto) return requested;
  if (has_host) return Rte::kTcp;
  return DetectLauncher(env) ? Rte::kMpi : Rte::kTcp;
}

void ApplyLauncher(Options& options, bool peers_given, const Getenv& env) {
  options.rte = ResolveRte(options.rte, !options.host.empty(), env);
  if (options.rte == Rte::kMpi && !peers_given) options.peers = 0;
}

}  // namespace verbsbench::rte
