// LEIR static typing and constant folding (LEIR.md §7.3, §7.4). The single shared place for "what type does this
// expression have" and "what is the value of this constant": the validator annotates every Expr::ty with it; the
// interpreter, the lowerings and the strategies read Expr::ty after analyze() and reuse the folding helpers.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "ir/ast.hpp"
#include "ir/dtype.hpp"

namespace steptp::ir {

/// F of §7.3: `target` if it is a float type, f64 otherwise.
DType float_type_for(DType target);

/// Constant class of an expression (§7.3). A constant expression contains no buffer read and no loop variable.
///  * Int:   built only from integer literals with + - * // % and unary - (parentheses allowed); weak type.
///  * Bool:  a constant comparison, & or | at the root.
///  * Float: any other constant expression (0.5, inf, -inf, 1/2, sqrt(2), max(1,2), 2**3); type F.
enum class ConstClass : std::uint8_t { None, Int, Bool, Float };
ConstClass constant_class(const Expr& e);

/// Folds an integer constant (ConstClass::Int) in exact i64 (floor division and floor modulo, LEIR.md §8.2).
/// nullopt if `e` is not an integer constant, or on overflow or division by zero (the validator's E216).
std::optional<std::int64_t> fold_int_constant(const Expr& e);

/// Folds any constant expression in f64 (§7.3 "folded in f64 and then rounded once to its type": the caller rounds
/// to Expr::ty). Integer constants are folded exactly first and then converted; comparisons, & and | give 0 or 1;
/// if_then_else is lazy; `//` and `%` on floats are floor(a/b) and a-b*floor(a/b). nullopt if `e` is not constant
/// or an integer sub-constant fails to fold.
std::optional<double> fold_constant_f64(const Expr& e);

/// Effective dtype of a buffer reference (known dtype for known buffers, first superscript for intermediates).
using RefDtypeFn = std::function<DType(const Expr& ref)>;

/// §7.3 type of a whole statement's parts, for tools that build trees outside analyze(): annotates every node of
/// `s` (lhs, rhs, subscripts) with its static type after weak-constant resolution. `target` is the effective dtype
/// of the statement's target. Reports nothing; analyze() is the checking entry point (E211-E213, E216).
void annotate_types(Stmt& s, DType target, const RefDtypeFn& ref_dtype);

/// Is `op` an integer-index operator allowed in subscripts (§7.4: + - * // %)?
bool is_index_binop(BinOp op);

}  // namespace steptp::ir
