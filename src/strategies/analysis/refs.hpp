// In-place rewriting of buffer references (used by the graph and memory strategies): structural replacement of
// one access by another, scope changes of a buffer, and the expression paths of STRATEGIES.md §5 SiteRef::expr.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/ast.hpp"
#include "ir/dtype.hpp"
#include "ir/task.hpp"

namespace steptp::strategy::analysis {

/// Effective dtype of a reference (LEIR.md §7.1): the known dtype for a known buffer, else the superscript's.
ir::DType effective_dtype(const ir::Task& t, const ir::Expr& ref);

/// Replaces every node structurally equal to `from` (ir::operator==) by `to`, in pre-order, without descending
/// into replacements. Returns the number of replacements.
int replace_equal(ir::Expr& e, const ir::Expr& from, const ir::Expr& to);
/// The same over every statement of a nest (nested nests included), both sides. With `lhs` false a statement's
/// LHS reference itself is never replaced (its subscript entries still are).
int replace_equal(ir::Nest& n, const ir::Expr& from, const ir::Expr& to, bool lhs);

/// Sets the superscript scope of every reference to `buffer` in the nest / program. Returns occurrences changed.
int set_scope(ir::Nest& n, const std::string& buffer, ir::Scope scope);
int set_scope(ir::Program& p, const std::string& buffer, ir::Scope scope);

/// Calls f on every reference to `buffer` in the nest / program (LHS and RHS, subscripts included), pre-order.
void for_each_ref(ir::Nest& n, const std::string& buffer, const std::function<void(ir::Expr&)>& f);
void for_each_ref(ir::Program& p, const std::string& buffer, const std::function<void(ir::Expr&)>& f);

/// Expression paths inside a statement (SiteRef::expr): the first index selects the LHS (0) or the RHS (1), each
/// further index a child (Expr::args). Returns nullptr when the path does not exist.
const ir::Expr* expr_at(const ir::Stmt& s, const std::vector<std::uint32_t>& path);

/// Pre-order paths (as above) of every node of the statement for which pred holds.
std::vector<std::vector<std::uint32_t>> find_paths(const ir::Stmt& s, const std::function<bool(const ir::Expr&)>& pred);

}  // namespace steptp::strategy::analysis
