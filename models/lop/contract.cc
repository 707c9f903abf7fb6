#include "models/lop/contract.h"

namespace verbsbench::lop {
namespace {

// One row per kind: the enum and its spelling.
struct KindRow {
  Kind kind;
  const char* name;
};
constexpr std::array<KindRow, 4> kKinds = {{
    {Kind::kRound, "round"},
    {Kind::kRtt, "rtt"},
    {Kind::kOverhead, "overhead"},
    {Kind::kLatency, "latency"},
}};

std::string PatternTag(std::string_view pattern) {
  return pattern == kPattern1n ? "1n" : "n1";
}

const char* InlineTag(bool is_inline) {
  return is_inline ? "inline" : "normal";
}

}  // namespace

const char* KindName(Kind kind) {
  for (const KindRow& row : kKinds) {
    if (row.kind == kind) return row.name;
  }
  return "?";
}

std::optional<Kind> ParseKind(std::string_view name) {
  for (const KindRow& row : kKinds) {
    if (name == row.name) return row.kind;
  }
  return std::nullopt;
}

std::string RoundCurveName(std::string_view pattern, std::string_view op,
                           bool is_inline, bool list) {
  return "round_" + PatternTag(pattern) + "_" + std::string(op) + "_" +
         InlineTag(is_inline) + (list ? "_list" : "");
}

std::string RttCurveName(std::string_view pattern, std::string_view op,
                         bool is_inline, bool list) {
  return "rtt_" + PatternTag(pattern) + "_" + std::string(op) + "_" +
         InlineTag(is_inline) + (list ? "_list" : "");
}

std::string SendOverheadCurveName(std::string_view op, bool list,
                                  bool is_inline) {
  return std::string(kSendOverheadPrefix) + "_" + std::string(op) +
         (list ? "_list" : "_single") + (is_inline ? "_inline" : "");
}

std::string RecvOverheadCurveName(bool list) {
  return std::string("or_recv_") + (list ? "list" : "single");
}

std::string LatencyCurveName(std::string_view pattern, std::string_view op,
                             bool is_inline, bool list) {
  return std::string(list ? "Llist_" : "L_") + PatternTag(pattern) + "_" +
         std::string(op) + "_" + InlineTag(is_inline);
}

bool NameSaysInline(std::string_view name) {
  if (name.ends_with("_list")) name.remove_suffix(5);
  return name.ends_with("_inline");
}

}  // namespace verbsbench::lop
