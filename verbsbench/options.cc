#include "verbsbench/options.h"

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

std::vector<bool> ParseInlineModes(const std::string& spec) {
  if (spec == "off") return {false};
  if (spec == "on") return {true};
  if (spec == "both") return {true, false};
  throw std::invalid_argument("bad --inline '" + spec + "' (off, on or both)");
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

}  // namespace verbsbench
