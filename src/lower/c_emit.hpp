// Expression and statement emission shared by the C++/OpenMP (§10.2) and CUDA (§10.3) lowerings.
//
// Conventions of the generated code:
// * Loop variable `a` is the C variable `v_a` (int64_t); buffers keep their LEIR names.
// * Buffers are dense row-major arrays; an access is `X[(i0*d1 + i1)*d2 + i2]` (0-d: `X[0]`).
// * Storage types follow LEIR.md §6 except f16/bf16, which are stored as uint16_t bit patterns (same layout as
//   _Float16/__bf16, which GCC 12's C++ front end and nvcc host code do not all support) and computed in float,
//   rounded after every operation (leir::round_f16/round_bf16).
// * Every operation runs in its static type (§7.3/§8.2): operands are converted first; narrow integers are
//   computed in int64_t and wrapped; if_then_else is a lazy `?:`, or leir::select where both arms are safe to
//   evaluate (lower/eager_select.hpp); `&`/`|` are `&&`/`||`.
// * Helpers (floor div/mod, NaN-propagating max/min, conversions, f16/bf16 rounding) come from
//   interp/numeric.hpp — the interpreter's own definitions — whose text is embedded in the translation unit
//   (tu_prelude), followed by thin `leir::` wrappers (division by zero and invalid float→int give 0 instead of
//   E303/E304).
#pragma once
#include <ostream>
#include <string>

#include <map>

#include "lower/common.hpp"
#include "lower/compact.hpp"
#include "lower/eager_select.hpp"

namespace steptp::lower {

std::string c_var(std::string_view loop_var);        // "v_a"
std::string c_storage_type(ir::DType t);             // "float", "uint16_t" (f16/bf16), "int64_t", "bool"
std::string c_value_type(ir::DType t);               // "float" for f16/bf16, else the storage type

/// Standard includes, the embedded numeric header, LEIR_UNROLL(n) and leir_alloc (aligned heap allocation that
/// exits with status 99 and "leir: out of memory" on failure). `cuda` adds the host/device qualifiers.
std::string tu_prelude(bool cuda);

class CEmitter {
 public:
  /// `compact`: storage plan of compacted s/l buffers (lower/compact.hpp), or null for LEIR's own layout.
  explicit CEmitter(const Prepared& p, const std::map<std::string, CompactBuffer>* compact = nullptr)
      : p_(p), compact_(compact), eager_(find_eager_selects(p)) {}
  /// Value of `e` converted to `want` (C value type of `want`).
  std::string value(const ir::Expr& e, ir::DType want) const;
  /// A subscript entry, as int64_t arithmetic.
  std::string index(const ir::Expr& e) const;
  /// Row-major linear index of a reference ("0" for 0-d), in the compacted layout when the buffer has one.
  std::string linear_index(const ir::Expr& ref) const;
  /// C literal of a constant in dtype `t` (value type).
  std::string literal(const ConstVal& v, ir::DType t) const;
  /// Emits the statement: optional initialiser `if (v_r == 0 && ...) X[i] = identity;` (unless `inline_init` is
  /// false: the C lowering emits it as a hoisted init nest, lower/hoist_init.hpp), then `X[i] = value;`.
  void stmt(std::ostream& os, const ir::Stmt& s, int indent, bool inline_init = true) const;
  /// The initialiser's store alone, `X[i] = identity;` (the statement must have an initialiser).
  std::string init_store(const ir::Stmt& s) const;

 private:
  const Prepared& p_;
  const std::map<std::string, CompactBuffer>* compact_;
  EagerSelects eager_;
  std::string raw(const ir::Expr& e) const;  // value of e in its own static type
  std::string load(const ir::Expr& ref) const;
  std::string store(const ir::Expr& ref, const std::string& v) const;
};

/// Bytes of one element as stored by the lowerings (2 for f16/bf16, 1 for bool).
std::size_t c_elem_bytes(ir::DType t);

}  // namespace steptp::lower
