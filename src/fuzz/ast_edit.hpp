// Positional AST edits shared by the mutator and the minimiser (src/fuzz/): count the nodes of a program that match
// a predicate, in a fixed text order, and edit the k-th one. Statements and loops are addressed the same way.
// Edits never validate; callers validate the result (ir::analyze) and discard invalid ones.
#pragma once
#include <cstddef>
#include <functional>

#include "ir/ast.hpp"

namespace steptp::fuzz {

/// Where an expression node sits: in the statement's left-hand side (the target reference or its subscript), and
/// whether it lies inside some subscript entry (index arithmetic rather than a value).
struct ExprSite {
  bool in_lhs = false;
  bool in_subscript = false;
};
using ExprPred = std::function<bool(const ir::Expr&, const ExprSite&)>;
using ExprEdit = std::function<void(ir::Expr&)>;

/// Expression nodes matching `pred`, over every statement (lhs then rhs) in text order, nodes in pre-order.
std::size_t count_exprs(const ir::Program& p, const ExprPred& pred);
/// Applies `edit` to the k-th matching node (0-based, same order). Returns false if there are fewer than k+1.
bool edit_expr(ir::Program& p, const ExprPred& pred, std::size_t k, const ExprEdit& edit);

/// Statements in text (pre-)order.
std::size_t count_stmts(const ir::Program& p);
/// The k-th statement (text order) and its enclosing loops (outermost first); nullptr if out of range.
const ir::Stmt* nth_stmt(const ir::Program& p, std::size_t k, std::vector<ir::Loop>* loops = nullptr,
                         std::size_t* top = nullptr);
ir::Stmt* nth_stmt_mut(ir::Program& p, std::size_t k);
/// Removes the k-th statement; nests left empty are removed too (a tail nest's parent keeps its other items).
bool remove_stmt(ir::Program& p, std::size_t k);

/// Loop headers in text order (a nest's headers outermost first, then its body's nests).
std::size_t count_loops(const ir::Program& p);
ir::Loop* nth_loop(ir::Program& p, std::size_t k);

/// Nests in text order (top-level nests and nested nests, pre-order).
std::size_t count_nests(const ir::Program& p);
/// Removes the k-th nest (with everything inside it); an emptied parent is removed too.
bool remove_nest(ir::Program& p, std::size_t k);

}  // namespace steptp::fuzz
