// The one spelling of each value of an enum: a table (EnumTable<E>::kRows,
// specialised beside the enum), from which its parser, its name, and the
// "a|b|c" and "a, b or c" texts of usage lines and error messages all come,
// so that a new value is one row.
#ifndef VERBSEMU_BASE_ENUM_TABLE_H_
#define VERBSEMU_BASE_ENUM_TABLE_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace verbsemu::base {

// Specialise with `static constexpr std::array<std::pair<E, const char*>, N>
// kRows`, in this namespace.
template <class E>
struct EnumTable;

// The value's spelling ("?" for a value not in the table).
template <class E>
constexpr const char* EnumName(E value) {
  for (const auto& [e, name] : EnumTable<E>::kRows) {
    if (e == value) return name;
  }
  return "?";
}

// The value `text` spells, or nullopt.
template <class E>
constexpr std::optional<E> ParseEnum(std::string_view text) {
  for (const auto& [e, name] : EnumTable<E>::kRows) {
    if (text == name) return e;
  }
  return std::nullopt;
}

namespace enum_table_internal {

// The spellings joined: kBar "a|b|c" (a usage line's metavar), kOr
// "a, b or c" (what a message says is accepted); built at compile time, so
// both are string_views a constexpr table can hold.
template <class E>
struct Joined {
  static constexpr size_t kNames = [] {
    size_t n = 0;
    for (const auto& row : EnumTable<E>::kRows) {
      n += std::string_view(row.second).size();
    }
    return n;
  }();
  static constexpr size_t kCount = EnumTable<E>::kRows.size();
  static constexpr size_t kBarSize = kNames + (kCount > 0 ? kCount - 1 : 0);
  static constexpr size_t kOrSize =
      kNames + (kCount > 1 ? 2 * (kCount - 2) + 4 : 0);

  template <size_t kSize>
  static constexpr std::array<char, kSize + 1> Join(bool with_or) {
    std::array<char, kSize + 1> out{};
    size_t at = 0;
    auto put = [&](std::string_view s) {
      for (const char c : s) out[at++] = c;
    };
    for (size_t i = 0; i < kCount; ++i) {
      if (i > 0) put(!with_or ? "|" : i + 1 == kCount ? " or " : ", ");
      put(EnumTable<E>::kRows[i].second);
    }
    return out;
  }
  static constexpr auto kBarChars = Join<kBarSize>(false);
  static constexpr auto kOrChars = Join<kOrSize>(true);
};

}  // namespace enum_table_internal

// "a|b|c".
template <class E>
inline constexpr std::string_view kEnumBar{
    enum_table_internal::Joined<E>::kBarChars.data(),
    enum_table_internal::Joined<E>::kBarSize};

// "a, b or c".
template <class E>
inline constexpr std::string_view kEnumChoices{
    enum_table_internal::Joined<E>::kOrChars.data(),
    enum_table_internal::Joined<E>::kOrSize};

}  // namespace verbsemu::base

#endif  // VERBSEMU_BASE_ENUM_TABLE_H_
