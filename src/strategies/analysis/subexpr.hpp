// Materialisable sub-expressions (STRATEGIES.md §11 entries 3 expression_splitting and 6
// common_subexpression_elimination; §6 "stored intermediates"; §7.4 lazy-branch rule; B10: sub-expressions are AST
// nodes). A node may be stored in a fresh intermediate when it is an operator node (binary, call, unary minus) of
// a float static type (LEIR.md §7.3), not constant, not the whole right-hand side (parentheses around the RHS are
// looked through), not inside a lazy branch of if_then_else and not inside a subscript. Needs the statement typed
// (ir::analyze). Also the rewriting helpers both strategies share: replacing a node (with its enclosing group) by
// a reference, and building the new nest that computes the intermediate (§7.5 header).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {

using ExprPath = std::vector<std::uint32_t>;  // SiteRef::expr: 1 = RHS, then child indices

struct SubexprNode {
  ExprPath path;
  const ir::Expr* e = nullptr;
};

/// Materialisable nodes of a typed statement's right-hand side, in pre-order.
std::vector<SubexprNode> materialisable_nodes(const ir::Stmt& typed);

/// Replaces the node at `path` (an RHS path) by `to`; when the node's parent is a group, the group is replaced.
void replace_node(ir::Stmt& s, const ExprPath& path, const ir::Expr& to);

/// Replaces every sub-tree of `e` structurally equal to `from` (or a group around one) by `to`, outside subscripts.
/// Returns the count.
int replace_all_equal(ir::Expr& e, const ir::Expr& from, const ir::Expr& to);

/// The nest computing `F_{keys} = def` over `site_loops` (outermost first, the loops whose keys `def` uses), with
/// the §7.5 header; `renamed` receives the helper's key renaming. `fref` is F's reference with the site keys.
ir::Nest materialise_nest(const ir::Expr& fref, const ir::Expr& def, const std::vector<ir::Loop>& site_loops,
                          std::map<std::string, std::string>* renamed = nullptr);

}  // namespace steptp::strategy::analysis
