// Buffer names interned as dense ids, for analyses that group a program's accesses by buffer in one walk
// (dead_code_elimination's use lists, the buffer sites of set_storage_scope/set_storage_layout) with integer keys
// instead of string comparisons or std::map nodes.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace steptp::strategy::analysis {

/// An open-addressing table of string_views: the interned strings (names in an AST) must outlive it. Ids are
/// dense, 0, 1, 2, ... in order of first id() call.
class NameIds {
 public:
  /// The id of `s`, interning it if new.
  std::uint32_t id(std::string_view s) {
    if (2 * (names_.size() + 1) > slots_.size()) grow();
    std::size_t h = hash(s) & (slots_.size() - 1);
    for (; slots_[h] != kEmpty; h = (h + 1) & (slots_.size() - 1))
      if (names_[slots_[h]] == s) return slots_[h];
    slots_[h] = static_cast<std::uint32_t>(names_.size());
    names_.push_back(s);
    return slots_[h];
  }
  std::size_t size() const { return names_.size(); }
  std::string_view name(std::uint32_t id) const { return names_[id]; }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static std::size_t hash(std::string_view s) {
    std::size_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
  }
  void grow() {
    slots_.assign(std::max<std::size_t>(64, 2 * slots_.size()), kEmpty);
    for (std::uint32_t i = 0; i < names_.size(); ++i) {
      std::size_t h = hash(names_[i]) & (slots_.size() - 1);
      while (slots_[h] != kEmpty) h = (h + 1) & (slots_.size() - 1);
      slots_[h] = i;
    }
  }
  std::vector<std::uint32_t> slots_;
  std::vector<std::string_view> names_;
};

}  // namespace steptp::strategy::analysis
