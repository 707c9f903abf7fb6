// The shim's fixed-size tables (ptr_map.h) and what stops being emulated
// when one is full: one warning per table and process, and a report line.
#ifndef VERBSEMU_SHIM_INTERNAL_FULL_TABLES_H_
#define VERBSEMU_SHIM_INTERNAL_FULL_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

namespace verbsemu::shim::internal {

enum class Table : uint8_t { kContexts, kQps, kUdAhs, kDeferLists };

struct TableInfo {
  Table table;
  const char* what;
  const char* effect;  // of an object that found it full
};

inline constexpr TableInfo kTables[] = {
    {Table::kContexts, "device contexts", "not emulated"},
    {Table::kQps, "QPs", "not emulated"},
    {Table::kUdAhs, "UD address handles",
     "delayed by the global latency, not their topology class's"},
    {Table::kDeferLists, "defer mode's contexts",
     "their QPs spin instead of deferring"},
};
inline constexpr size_t kTableCount = std::size(kTables);

// An object found table `t` full: one warning per table and process, and
// a count for the report (TableFullLines).
void NoteTableFull(Table t, size_t capacity) noexcept;
std::string TableFullLines();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FULL_TABLES_H_
