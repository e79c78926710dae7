// Index maps of layout_transformation and set_storage_layout (STRATEGIES.md §11 entries 19, 21). A map L takes
// the k entries (s_0..s_{k-1}) of a subscript, whose values lie in ranges of sizes ext_0..ext_{k-1}, to new
// entries:
//   transpose  (k >= 2): (s_{pi(0)}, ..., s_{pi(k-1)}) for a permutation pi != id, given by its Lehmer index;
//   flatten    (k >= 2): (sum_j s_j * prod_{i>j} ext_i)                       (row-major linearisation);
//   merge j    (k >= 3): (..., s_j * ext_{j+1} + s_{j+1}, ...)                  (0 <= j <= k-2);
//   split j,f1 (k >= 1): (..., s_j // f1, s_j % f1, ...)        (ext_j composite, f1 a proper divisor of ext_j).
// Each map is injective on the box of the entry ranges (mixed-radix digits; // and % by f1 pair up), so reads
// and writes that hit one element before hit one element after.
// Parameter tuples: {variant} plus {detail}: the Lehmer index (transpose), j (merge), [j, f1] (split); flatten
// has no detail. Order: transposes by Lehmer index, flatten, merges by j, splits by (j, f1).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/ast.hpp"
#include "ir/ranges.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {

struct LayoutMap {
  std::string variant;            // "transpose", "flatten", "merge", "split"
  std::vector<std::size_t> perm;  // transpose: new entry m is old entry perm[m]
  std::size_t j = 0;              // merge, split
  std::int64_t f1 = 0;            // split
};

/// The parameter space of every map for entries of these extents (indexed, not materialised).
ParamSpace layout_params(const std::vector<std::int64_t>& extents);

/// The map named by a parameter tuple (variant, detail); throws StrategyError S002 when malformed or not in
/// layout_params(extents).
LayoutMap layout_from_params(const Params& ps, const std::vector<std::int64_t>& extents);

/// The new entries L(s).
std::vector<ir::Expr> apply_layout(const LayoutMap& m, const std::vector<ir::Expr>& entries,
                                   const std::vector<std::int64_t>& extents);

/// New extents of the map on the box of entry ranges (transpose permutes, flatten multiplies, ...).
std::vector<std::int64_t> layout_extents(const LayoutMap& m, const std::vector<std::int64_t>& extents);

/// A printable description, e.g. {"variant":"merge","j":1,"entries_before":[..],"entries_after":[..]}.
nlohmann::json layout_json(const LayoutMap& m, const std::vector<ir::Expr>& before,
                           const std::vector<ir::Expr>& after);

/// Static ranges of every access to `buffer` in `p` (LEIR.md §7.2, ir::index_range over the statement's box).
struct AccessRanges {
  bool write = false;
  bool guarded = false;               // inside a lazy branch (not bounds-checked statically, E208)
  std::vector<ir::IndexRange> entries;
};
std::vector<AccessRanges> buffer_access_ranges(const ir::Program& p, const std::string& buffer);

/// Every access to `buffer` in `p` with its statement's loop box (pointers into `p`, valid while it lives).
struct BufferAccess {
  const ir::Expr* ref = nullptr;
  ir::LoopBox box;
  bool write = false;
  bool guarded = false;  // inside a lazy branch
};
std::vector<BufferAccess> buffer_accesses(const ir::Program& p, const std::string& buffer);

/// The static ranges of those accesses once map `m` (on entry extents `extents`) is applied to each subscript:
/// the same as buffer_access_ranges of the remapped program, without building it.
std::vector<AccessRanges> mapped_access_ranges(const std::vector<BufferAccess>& acc, const LayoutMap& m,
                                               const std::vector<std::int64_t>& extents);

/// Shape check of a buffer after its subscripts changed: every entry of every access has an exact static range
/// (no E215), writes lie in [0, 2^31) (E207), and every unguarded read lies inside the shape inferred from the
/// writes (E208). Returns that shape, or an empty vector (with `why`) when a check fails.
std::vector<std::int64_t> checked_shape(const ir::Program& p, const std::string& buffer, std::string* why);
/// The same check on precomputed access ranges.
std::vector<std::int64_t> checked_shape(const std::vector<AccessRanges>& acc, const std::string& buffer,
                                        std::string* why);

/// The k-th permutation of 0..n-1 in Lehmer-code order (k = 0 is the identity).
std::vector<std::size_t> permutation_at(std::size_t n, std::uint64_t k);

}  // namespace steptp::strategy::memory
