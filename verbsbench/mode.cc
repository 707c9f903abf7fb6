#include "verbsbench/mode.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "verbsbench/internal/modes.h"

namespace verbsbench {
namespace {

using internal::ModeRow;

// The row's defaults for what the command line left out.
void FillDefaults(const ModeRow& row, Options& o) {
  if (o.ops.empty()) {
    std::stringstream words(row.ops);
    for (std::string word; std::getline(words, word, ',');) {
      o.ops.push_back(Parse<Op>(word).value());
    }
  }
  if (o.inline_modes.empty())
    o.inline_modes = ParseInlineModes(row.inline_modes);
  if (o.sizes.empty()) o.sizes = ParseSizes(row.sizes);
  if (o.p_values.empty() && o.peers > 0) {
    for (int p = 1; p <= o.peers; ++p) o.p_values.push_back(p);
  }
}

// "lop": the modes that take --peers P.
std::string ManyPeerModes() {
  std::string names;
  for (const ModeRow& row : internal::kModes) {
    if (!row.many_peers) continue;
    names += (names.empty() ? "" : ", ") + std::string(Name(row.mode));
  }
  return names;
}

void CheckPeers(const ModeRow& row, const Options& o) {
  const bool from_launcher = o.rte == Rte::kMpi && o.peers == 0;
  if ((o.peers < 1 && !from_launcher) || o.peers > 4096)
    throw std::invalid_argument("--peers must be 1..4096");
  if (!row.many_peers && o.peers > 1) {
    throw std::invalid_argument("--peers applies to " + ManyPeerModes() +
                                " only");
  }
}

// Under a launcher rank 0 is the root and the QPs are exchanged over MPI:
// no HOST, and no rdma_cm (its listener would take a fixed port).
void CheckRte(Options& o) {
  if (o.rte != Rte::kMpi) return;
  if (!o.host.empty()) {
    throw std::invalid_argument(
        "HOST is for --rte tcp: under a launcher rank 0 is the root");
  }
  if (o.cm == Cm::kRdmacm) {
    throw std::invalid_argument(
        "--cm rdmacm needs --rte tcp: under a launcher the QPs are exchanged "
        "over MPI (drop --cm)");
  }
  o.cm = Cm::kTcp;
}

void CheckCounts(const Options& o) {
  for (int p : o.p_values) {
    if (o.peers > 0 && p > o.peers) {
      throw std::invalid_argument("p = " + std::to_string(p) +
                                  " exceeds --peers " +
                                  std::to_string(o.peers));
    }
  }
  if (o.iters == 0) throw std::invalid_argument("--iters must be > 0");
  if (o.window == 0) throw std::invalid_argument("--window must be > 0");
  if (o.post_list == 0 || o.post_list > o.window) {
    throw std::invalid_argument("--post-list must be 1..window");
  }
  if (o.cycle == 0) throw std::invalid_argument("--cycle must be > 0");
  if (!(o.mode_resolution >= kFinestModeResolution &&
        o.mode_resolution <= 1.0)) {
    throw std::invalid_argument(
        "--mode-resolution must be a fraction from 0.02 to 1 (peaks closer "
        "than it, relative, are one mode; default 0.2)");
  }
}

}  // namespace

Options Normalize(Options o) {
  const ModeRow& row = internal::RowOf(o.mode);
  FillDefaults(row, o);
  if (row.check != nullptr) row.check(o);
  CheckPeers(row, o);
  CheckRte(o);
  CheckCounts(o);
  o.sq_depth =
      std::max({o.sq_depth, o.window, static_cast<uint32_t>(2 * o.peers), 16u});
  return o;
}

nlohmann::json ToJson(const Result& r) {
  nlohmann::json out = {{"tool", "verbsbench"},
                        {"mode", Name(r.options.mode)},
                        {"device", r.device},
                        {"timer", r.timer},
                        {"provenance", r.provenance}};
  if (r.peer) {
    out["role"] = "peer";
    return out;
  }
  out["params"] = r.options.ToJson();
  out["ranks"] = r.ranks;
  internal::RowOf(r.options.mode).to_json(r, out);
  return out;
}

}  // namespace verbsbench
