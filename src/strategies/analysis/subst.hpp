// Substitution of loop keys in expressions, statements and nests (STRATEGIES.md §11 entries 10-12, 16, 17):
// `x -> k*f1+x` everywhere a key is used, in subscripts and as a value. All substitutions are simultaneous.
#pragma once
#include <map>
#include <string>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {

using KeyMap = std::map<std::string, ir::Expr>;  // key -> replacement expression

/// Replaces every Var node whose name is in `m` (simultaneously). Returns the number of replacements.
int substitute(ir::Expr& e, const KeyMap& m);
int substitute(ir::Stmt& s, const KeyMap& m);
/// Substitutes in every statement of the nest (nested nests included). Headers are not touched.
int substitute(ir::Nest& n, const KeyMap& m);

/// Renames key `from` to `to` in the nest's headers (its own and nested) and in every use.
void rename_key(ir::Nest& n, const std::string& from, const std::string& to);

/// `k*f1+x` built from fresh nodes (the printer adds the parentheses precedence requires).
ir::Expr split_index(const std::string& k, std::int64_t f1, const std::string& x);
/// `x+v` (v > 0) or `x` (v == 0).
ir::Expr offset_index(const std::string& x, std::int64_t v);

/// Substitutes `var -> 0` and folds only the nodes that the substitution touched: `0*e`, `e*0` -> 0, `e+0`,
/// `0+e`, `e-0` -> e, `0-e` -> -e. Nodes without the key are left as written. Returns replacements made.
int substitute_zero_fold(ir::Expr& e, const std::string& var);

}  // namespace steptp::strategy::analysis
