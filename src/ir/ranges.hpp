// Exact range analysis of LEIR index expressions over a statement's loop box (LEIR.md §7.2). The single shared
// place for "which values does this subscript entry take": the validator uses it for shapes and bounds (E206-E210,
// E215); the interpreter, lowerings and strategies reuse the loop box and the affine normal form.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::ir {

/// One axis of a loop box: a loop variable ranging over [0, extent-1].
struct BoxAxis {
  std::string_view var;  // points into the Loop it came from: valid while that AST is alive and unchanged
  std::int64_t extent = 1;
};

/// The loop box of a statement: its enclosing loops, outermost first (as for_each_stmt passes them).
using LoopBox = std::vector<BoxAxis>;
LoopBox make_loop_box(const std::vector<const Loop*>& loops);
/// The axis binding `var` (innermost binding wins if a name is rebound); nullptr if unbound.
const BoxAxis* find_axis(const LoopBox& box, std::string_view var);

/// Affine normal form c0 + Σ ci·vi (§7.2): zero coefficients dropped, terms in order of first occurrence.
struct AffineForm {
  std::int64_t c0 = 0;
  std::vector<std::pair<std::string, std::int64_t>> terms;
  std::int64_t coeff(std::string_view var) const;  // 0 if absent
  bool is_constant() const { return terms.empty(); }
  bool operator==(const AffineForm&) const = default;
};

/// The affine form of `e` if it is built only from integer literals and loop variables with +, -, unary -, `*` by
/// an integer constant and parentheses; nullopt otherwise (//, %, products of variables, buffer reads, floats,
/// or i64 overflow of a coefficient).
std::optional<AffineForm> affine_form(const Expr& e);

/// Exact [lo, hi] of an affine form over `box` (lo = c0 + Σ min(0, ci·(ni−1)), hi likewise), saturated to i64.
/// Variables missing from the box are treated as extent 1 (value 0).
std::pair<std::int64_t, std::int64_t> affine_range(const AffineForm& f, const LoopBox& box);

/// Maximum number of sub-box points enumerated for a non-affine entry (§7.2; more is E215).
inline constexpr std::uint64_t kMaxRangePoints = std::uint64_t{1} << 24;

enum class RangeStatus : std::uint8_t {
  Exact,      // lo/hi are the exact minimum and maximum over the box
  Gather,     // the entry reads a buffer: no static range (checked at run time)
  Unbound,    // mentions a variable that is not in the box (the validator's E113)
  TooLarge,   // non-affine over more than kMaxRangePoints points (E215)
  Undefined,  // not an integer index expression (E211 forms)
  DivByZero,  // `//` or `%` by zero at some point of the box (E217); `zero_at` names the first such point
};

struct IndexRange {
  RangeStatus status = RangeStatus::Undefined;
  std::int64_t lo = 0, hi = 0;
  std::uint64_t points = 0;  // size of the sub-box of the variables mentioned (saturating); set when non-affine
  std::string zero_at;       // DivByZero: the first point, e.g. "a=3, c=0"
  bool exact() const { return status == RangeStatus::Exact; }
};

/// Exact range of one subscript entry over `box` (§7.2). Affine entries use the closed formula; other entries
/// use exact interval rules where they provably apply (disjoint variables, // and % by constants) and otherwise
/// evaluate every point of the sub-box of the variables they mention, in i64 with floor division/modulo
/// (LEIR.md §8.2); a `//` or `%` by zero at some point makes the entry DivByZero. Never throws.
IndexRange index_range(const Expr& entry, const LoopBox& box);

}  // namespace steptp::ir
