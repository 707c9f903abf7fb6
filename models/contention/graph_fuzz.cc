// Fuzzes the graph parser and the canonical form: any text gives a graph
// (that prints, reparses to the same graph, and canonicalizes or says why)
// or a reason, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "models/contention/graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using verbsemu::contention::Canonicalize;
  using verbsemu::contention::ParseGraph;
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto g = ParseGraph(text, &why);
  if (!g) {
    if (why.empty()) std::abort();
    return 0;
  }
  const auto again = ParseGraph(g->ToString(), &why);
  if (!again || again->ToString() != g->ToString()) std::abort();
  const auto c = Canonicalize(*g, &why);
  if (c ? c->edge_order.size() != g->edges.size() : why.empty()) std::abort();
  return 0;
}
