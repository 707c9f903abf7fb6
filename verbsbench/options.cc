#include "verbsbench/options.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "emulate/units.h"

namespace verbsbench {
namespace {

// Sizes go through the project's one parser (binary K/KiB, M/MiB, G/GiB;
// "KB" refused as ambiguous); verbsbench adds its own limits and takes whole
// numbers of a unit only.
size_t ParseOneSize(const std::string& s) {
  std::string why;
  const std::optional<uint64_t> bytes = verbsemu::units::ParseBytes(s, &why);
  if (!bytes) throw std::invalid_argument("bad size '" + s + "': " + why);
  if (s.find('.') != std::string::npos) {
    throw std::invalid_argument("bad size '" + s +
                                "': write a whole number, such as 1536 or 2K");
  }
  if (*bytes == 0)
    throw std::invalid_argument("bad size '" + s + "': must be > 0");
  if (*bytes > (1ull << 30)) {
    throw std::invalid_argument("bad size '" + s + "': at most 1G");
  }
  return static_cast<size_t>(*bytes);
}

}  // namespace

std::vector<size_t> ParseSizes(const std::string& spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return {ParseOneSize(spec)};
  const size_t lo = ParseOneSize(spec.substr(0, colon));
  const size_t hi = ParseOneSize(spec.substr(colon + 1));
  if (lo > hi)
    throw std::invalid_argument("bad size range '" + spec + "': min > max");
  std::vector<size_t> sizes;
  for (size_t s = lo; s <= hi; s *= 2) sizes.push_back(s);
  return sizes;
}

std::vector<int> ParseIntRange(const std::string& spec) {
  auto one = [&](const std::string& s) {
    size_t pos = 0;
    int v = 0;
    try {
      v = std::stoi(s, &pos);
    } catch (const std::exception&) {
      throw std::invalid_argument("bad number '" + s + "' in '" + spec + "'");
    }
    if (pos != s.size() || v < 1) {
      throw std::invalid_argument("bad number '" + s + "' in '" + spec + "'");
    }
    return v;
  };
  std::vector<int> out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    const std::string item = spec.substr(start, comma - start);
    const size_t colon = item.find(':');
    if (colon == std::string::npos) {
      out.push_back(one(item));
    } else {
      const int lo = one(item.substr(0, colon)),
                hi = one(item.substr(colon + 1));
      if (lo > hi) throw std::invalid_argument("bad range '" + item + "'");
      for (int v = lo; v <= hi; ++v) out.push_back(v);
    }
    start = comma + 1;
  }
  return out;
}

nlohmann::json Options::ToJson() const {
  std::vector<std::string> inl, op_names;
  for (bool b : inline_modes) inl.push_back(b ? "inline" : "normal");
  for (Op op : ops) op_names.push_back(Name(op));
  return {{"mode", Name(mode)},
          {"role", is_peer() ? "peer" : "root"},
          {"host", host},
          {"bind", bind},
          {"port", port},
          {"cm", Name(cm)},
          {"ib_dev", ib_dev},
          {"ib_port", ib_port},
          {"gid_index", gid_index},
          {"ops", op_names},
          {"inline", inl},
          {"sizes", sizes},
          {"iters", iters},
          {"warmup", warmup},
          {"duration_s", duration_s},
          {"cycle", cycle},
          {"mode_resolution", mode_resolution},
          {"window", window},
          {"post_list", post_list},
          {"cq_mod", cq_mod},
          {"bidirectional", bidirectional},
          {"wait", Name(wait)},
          {"peers", peers},
          {"p_values", p_values},
          {"loggp_n", loggp_n},
          {"loggp_delay_ns", loggp_delay_ns},
          {"max_inline_requested", max_inline},
          {"sq_depth", sq_depth},
          {"rq_depth", rq_depth},
          {"rte", Name(rte)}};
}

namespace {

void FillDefaults(Options& o) {
  const bool lop = o.mode == Mode::kLop;
  if (o.mode == Mode::kLoggp) {
    // Netgauge's sweep; inline wherever the device takes it, as perftest.
    if (o.ops.empty()) o.ops = {Op::kSend};
    if (o.inline_modes.empty()) o.inline_modes = {true};
    if (o.sizes.empty()) o.sizes = ParseSizes("1:64K");
  }
  if (o.ops.empty()) {
    o.ops = lop ? std::vector<Op>{Op::kSend, Op::kWrite}
                : std::vector<Op>{Op::kSend};
  }
  if (o.inline_modes.empty()) {
    o.inline_modes =
        lop ? std::vector<bool>{true, false} : std::vector<bool>{false};
  }
  if (o.sizes.empty()) {
    o.sizes = {o.mode == Mode::kBw ? size_t{65536}
               : lop               ? size_t{8}
                                   : size_t{2}};
  }
  if (o.p_values.empty() && o.peers > 0) {
    for (int p = 1; p <= o.peers; ++p) o.p_values.push_back(p);
  }
}

void CheckLop(const Options& o) {
  for (Op op : o.ops) {
    if (o.mode == Mode::kLop && op == Op::kRead) {
      throw std::invalid_argument("lop measures send and write only");
    }
  }
  if (o.mode == Mode::kLop && o.sizes.size() != 1) {
    throw std::invalid_argument("lop takes one message size");
  }
  const bool from_launcher = o.rte == Rte::kMpi && o.peers == 0;
  if ((o.peers < 1 && !from_launcher) || o.peers > 4096)
    throw std::invalid_argument("--peers must be 1..4096");
  if (o.mode != Mode::kLop && o.peers > 1) {
    throw std::invalid_argument("--peers applies to lop only");
  }
}

// loggp's trains need n sends and n receives in flight, and a receive per
// message (o_r).
void CheckLoggp(const Options& o) {
  if (o.mode != Mode::kLoggp) return;
  if (o.ops != std::vector<Op>{Op::kSend}) {
    throw std::invalid_argument(
        "loggp measures send/recv only (o_r is the receive's overhead)");
  }
  if (o.inline_modes.size() != 1) {
    throw std::invalid_argument("loggp takes one --inline mode (on or off)");
  }
  const int most = static_cast<int>(std::min(o.sq_depth, o.rq_depth / 2));
  if (o.loggp_n < 2 || o.loggp_n > most) {
    throw std::invalid_argument("--loggp-n must be 2.." + std::to_string(most) +
                                " (the send queue and half the receive "
                                "queue hold a train)");
  }
  if (!(o.loggp_delay_ns >= 0)) {
    throw std::invalid_argument("--loggp-delay must be >= 0");
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

}  // namespace

Options Normalize(Options o) {
  FillDefaults(o);
  CheckLop(o);
  CheckLoggp(o);
  CheckRte(o);
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
  o.sq_depth =
      std::max({o.sq_depth, o.window, static_cast<uint32_t>(2 * o.peers), 16u});
  return o;
}

}  // namespace verbsbench
