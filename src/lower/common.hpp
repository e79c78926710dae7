// Analysis shared by the three lowerings (LEIR.md §10): validated task + buffer table, constant folding of
// constant sub-expressions (§7.3), loop classification (reducing loops §8.5, hardware axes of bound names §5),
// GPU launch limits (E401, §10.3) and the operand-type rules that say where an implicit conversion happens.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::lower {

/// A validated copy of a task (AST annotated by the validator: Expr::ty, Stmt::init, Stmt::reduction_vars) and its
/// buffer table. Throws LeirError with the first validator error.
struct Prepared {
  ir::Task task;
  ir::Analysis an;
  explicit Prepared(const ir::Task& t);
  const ir::BufferInfo& buffer(std::string_view name) const;  // throws std::logic_error if unknown
  std::vector<const ir::BufferInfo*> knowns() const;          // known order
  std::vector<const ir::BufferInfo*> intermediates() const;   // order of first occurrence
};

/// Value of a folded constant expression (§7.3). Int: exact i64 (`i`); Float: f64 value (`f`), before rounding to
/// its type; Bool: `b`.
struct ConstVal {
  enum Kind { Int, Float, Bool } kind = Int;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  double as_double() const { return kind == Int ? double(i) : kind == Float ? f : double(b); }
};

/// Is `e` a constant expression (no buffer read, no loop variable)?
bool is_constant(const ir::Expr& e);
/// Folds a constant expression: integer constants in exact i64 (wrapping on overflow, which the validator
/// rejects as E216), float constants in f64, comparisons/&/| as bool. nullopt if `e` is not constant.
std::optional<ConstVal> fold_constant(const ir::Expr& e);

/// Does `e` contain a buffer read (a gather, when `e` is a subscript entry)?
bool contains_ref(const ir::Expr& e);
/// Does `e` contain a loop variable?
bool contains_var(const ir::Expr& e);

/// Hardware axis selected by a bound loop name (LEIR.md §5): `t|b` + `x|y|z` + suffix.
struct HwAxis {
  bool thread = true;  // threadIdx (t) or blockIdx (b)
  int dim = 0;         // 0 x, 1 y, 2 z
  std::string name() const;  // "threadIdx.x"
};
HwAxis hw_axis(std::string_view bound_var);

/// §8.5: a P, V or B loop of extent > 1 whose nest body has an LHS subscript not mentioning its variable.
bool is_reducing(const ir::Nest& holder, const ir::Loop& loop);

/// §10.3 limits: threadIdx.x/y ≤ 1024, threadIdx.z ≤ 64, ≤ 1024 threads per block, blockIdx.x ≤ 2^31−1,
/// blockIdx.y/z ≤ 65535. Considers the B headers of `top`'s own header list, and with `nested` also those of
/// nested nests. Throws LeirError E401 at the offending header.
void check_gpu_limits(const ir::Nest& top, bool nested);

/// The initialiser identity of `init` for dtype `t` (LEIR.md §8.4): 0, 1, ∓inf (type min/max for integers,
/// 0/1 for bool).
ConstVal init_identity(ir::InitKind init, ir::DType t);

/// Type rules of §7.3 seen from the parent: the type in which child `i` of `e` is consumed (its value is
/// converted to this type first). Subscript entries are consumed as i64.
ir::DType operand_type(const ir::Expr& e, std::size_t i);
/// The type in which comparison pair k (args[k] vs args[k+1]) of a Compare node is evaluated.
ir::DType compare_type(const ir::Expr& e, std::size_t k);

/// Python repr of a double (shortest round-trip, LEIR.md §9 formatting).
std::string python_repr(double v);
/// The same layout for a value exactly representable in float type `t`: the shortest decimal that rounds back to
/// `v` in `t` (0.1 in f16 prints "0.1", not the f32 digits of its f16 value).
std::string python_repr_in(double v, ir::DType t);

/// Rounds an f64 value to dtype `t` as a double (f32/f16/bf16 round to nearest even; others unchanged).
double round_to(double v, ir::DType t);

/// `s` and `l` intermediates referenced in top-level nest `top` (E214 confines each to one nest), in order of
/// first occurrence.
std::vector<const ir::BufferInfo*> scoped_intermediates(const Prepared& p, const ir::Nest& top);

/// Does the nest (nested nests included) contain a B header?
bool has_bound_loop(const ir::Nest& n);

}  // namespace steptp::lower
