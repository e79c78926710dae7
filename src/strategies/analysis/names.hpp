// Fresh tensor names and loop keys (STRATEGIES.md §8; LEIR.md §5).
//
// Tensor names: the alphabet A C D E F G H I J K M N O Q R S W X Y Z counted in bijective base 20 (0->A, 19->Z,
// 20->Aa, 21->Ac, 40->Ca). A fresh name is the smallest one that is not reserved (None, False) and not used in the
// task: not a buffer of the program and not a known name (even one absent from the text).
// Loop keys: a c d f g h i j k l m n o p q r s u w in bijective base 19 (0->a, 18->w, 19->aa, 20->ac), skipping
// reserved words (function names, inf, Python keywords). A fresh key for a nest is the first key that is not
// visible there: not a key of the nest itself, of an enclosing nest or of a nested nest (scope-local, B7).
// Binding keys: (t|b)(x|y|z) + optional suffix.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/task.hpp"

namespace steptp::strategy::analysis {

std::string tensor_name_at(std::uint64_t index);   // bijective base 20
std::string loop_key_at(std::uint64_t index);      // bijective base 19
bool is_reserved_loop_key(std::string_view s);     // function names, inf, Python keywords
bool is_reserved_tensor_name(std::string_view s);  // None, False

/// Every buffer name occurring in the program plus every known name.
std::set<std::string> used_tensor_names(const ir::Task& t);

/// Keys visible at a nest: keys of `path`'s nest, of its enclosing nests and of all nests nested in it.
/// `path` as in SiteRef::nest. Throws std::out_of_range if the path is invalid.
std::set<std::string> visible_keys(const ir::Program& p, const std::vector<std::uint32_t>& path);
/// All keys of a nest and its nested nests.
void collect_keys(const ir::Nest& n, std::set<std::string>& out);

/// Allocates fresh names for one apply, in order, recording them (facts "names").
class NameAllocator {
 public:
  explicit NameAllocator(const ir::Task& t) : used_tensors_(used_tensor_names(t)) {}
  /// Smallest unused tensor name; marks it used.
  std::string tensor();
  /// Smallest loop key not in `visible` and not allocated by this allocator for the same scope set; the key is
  /// added to `visible`.
  std::string key(std::set<std::string>& visible);
  /// A binding key for tag ("tx".."bz") with suffix `suffix`, recorded (no freshness check: see binding.hpp).
  void record(std::string name) { allocated_.push_back(std::move(name)); }
  const std::vector<std::string>& allocated() const { return allocated_; }

 private:
  std::set<std::string> used_tensors_;
  std::vector<std::string> allocated_;
};

}  // namespace steptp::strategy::analysis
