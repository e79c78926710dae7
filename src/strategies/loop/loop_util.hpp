// Checks shared by the loop strategies that rebuild a header.
#pragma once
#include <set>
#include <cstdint>
#include <string>

#include <utility>
#include <vector>

#include "ir/ast.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::loop {

/// Every P loop of top-level nest `n` lies inside a B loop of the same nest (on its enclosing-loop chain), which
/// is where the lowering accepts parallel loops (entry 14).
bool parallel_loops_inside_bound(const ir::Nest& n);

/// The structural invariants a rewritten top-level nest `top` of `p` must keep: parallel_loops_inside_bound,
/// analysis::parallel_loops_ok (LEIR.md §8.5) and analysis::scopes_confined (§7.4). Returns "" when all hold,
/// else the first reason.
std::string nest_invariants_broken(const ir::Program& p, std::uint32_t top);

/// The site nest (const), or throws StrategyError S001 (stale) when the path/loop does not exist.
const ir::Nest& site_nest(const ir::Program& p, const analysis::NestPath& path);

/// Every swap p < q of every nest header of `t` as a loop_reorder candidate, with the swapped program, before any
/// legality analysis: a superset of enumerate's candidates (whose isl checks cost seconds on a deep nest), for a
/// caller that ranks the results first and asks apply (which re-checks the one candidate: S002 when illegal) only
/// for those it would take. With `tops`, only the nests under those top-level nest indices.
std::vector<std::pair<Candidate, ir::Task>> unchecked_reorders(const ir::Task& t,
                                                               const std::set<std::uint32_t>* tops = nullptr);

}  // namespace steptp::strategy::loop
