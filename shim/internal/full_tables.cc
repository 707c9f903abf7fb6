#include "shim/internal/full_tables.h"

#include <string>

#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

void NoteTableFull(Table t, size_t capacity) noexcept {
  const auto i = static_cast<size_t>(t);
  if (E().tables_full[i].fetch_add(1, std::memory_order_relaxed) != 0) return;
  try {
    Warn(WarningCode::kTableFull,
         {kTables[i].what, std::to_string(capacity), kTables[i].effect});
  } catch (...) {  // out of memory: the report still counts it
  }
}

std::string TableFullLines() {
  std::string out;
  for (size_t i = 0; i < kTableCount; ++i) {
    const uint64_t n = E().tables_full[i].load(std::memory_order_relaxed);
    if (n == 0) continue;
    out += std::to_string(n) + " " + kTables[i].what +
           " found the shim's table full: " + kTables[i].effect + "\n";
  }
  return out;
}

}  // namespace verbsemu::shim::internal
