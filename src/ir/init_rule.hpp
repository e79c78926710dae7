// LEIR.md §8.4 accumulator initialisation: the exact static rule that decides whether a statement `X[sL] = R`
// starts its target at an identity (TVM's T.init), and the statement's reduction variables. The validator stores
// the result in Stmt::init / Stmt::reduction_vars; the interpreter and lowerings read those annotations. Tools that
// build statements outside analyze() can call these directly.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::ir {

/// The leading (or trailing) atom of an expression (§8.4 rule 3): follow the left (right) operands of binary
/// operators and comparison chains (first/last operand) until a node that is not Binary/Compare — a reference,
/// literal, variable, call, unary minus or parenthesised group. `op_kind` describes the deepest binary node on
/// that path: HasBinOp with `op`, a Compare chain, or None when `e` itself is the atom.
struct EdgeAtom {
  const Expr* atom = nullptr;
  enum class Via : std::uint8_t { None, BinOp, Compare } via = Via::None;
  BinOp op = BinOp::Add;
};
EdgeAtom leading_atom(const Expr& e);
EdgeAtom trailing_atom(const Expr& e);

/// First occurrence of buffer `name` in `e` in text order, subscripts included; nullptr if none.
const Expr* first_occurrence(const Expr& e, std::string_view name);

/// §8.4 rules 1, 3 and 4 for `s`, given whether rule 2 applies (`updates_existing`: the target is an input,
/// constant or param, or an earlier statement in the text writes it). Returns InitKind::None when no initialiser.
InitKind statement_initialiser(const Stmt& s, bool updates_existing);

/// §8.4 rule 5: the loop variables (of `loops`, outermost first, duplicates once) that occur anywhere in `s` but not
/// in its LHS subscript, in header order.
std::vector<std::string> reduction_vars(const Stmt& s, const std::vector<const Loop*>& loops);

/// Does expression `e` mention loop variable `var`? (Also declared in validate.hpp.)
bool mentions_var(const Expr& e, std::string_view var);

}  // namespace steptp::ir
