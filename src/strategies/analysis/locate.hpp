// Locating nests, loops and statements by SiteRef paths (STRATEGIES.md §5 "Order"), and walking statements with
// their enclosing loops.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {

using NestPath = std::vector<std::uint32_t>;  // top-level index, then body item indices of nested nests

/// The nest at `path`, or nullptr if the path does not name a nest.
const ir::Nest* nest_at(const ir::Program& p, const NestPath& path);
ir::Nest* nest_at(ir::Program& p, const NestPath& path);

/// Every nest path in program (pre-)order: a nest before its nested nests.
std::vector<NestPath> all_nest_paths(const ir::Program& p);

/// Loops of the nests enclosing `path` (outermost first), excluding the nest's own header.
std::vector<ir::Loop> enclosing_loops(const ir::Program& p, const NestPath& path);

/// A statement with its context.
struct StmtCtx {
  const ir::Stmt* stmt = nullptr;
  std::vector<const ir::Loop*> loops;  // every enclosing loop, outermost first (ancestors of the walked nest too)
  NestPath nest;                       // path of the nest whose body holds the statement
  std::uint32_t item = 0;              // index in that body
};

/// Statements of `n` (nested nests included) in text order. `path` is n's path; `outer` the loops enclosing n.
std::vector<StmtCtx> collect_stmts(const ir::Nest& n, const NestPath& path,
                                   const std::vector<const ir::Loop*>& outer = {});
/// Statements of the whole program in text order.
std::vector<StmtCtx> collect_stmts(const ir::Program& p);

/// Loop keys (of `loops`) that occur in the expression, in the order of `loops`.
std::vector<std::string> keys_used(const ir::Expr& e, const std::vector<const ir::Loop*>& loops);

}  // namespace steptp::strategy::analysis
