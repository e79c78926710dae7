// Serialised access to strategies that use process-global libraries that are not thread-safe (GiNaC reference
// counting in the algebraic family, STRATEGIES.md §9). Other families run concurrently.
#pragma once
#include <utility>
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy {

std::vector<Site> locked_enumerate(const StrategyInfo& s, const ir::Task& t);
/// Every registered strategy with at least one site that has parameter tuples at `t`, in registry order, with
/// those sites (strategies whose enumerate throws are left out). The policies that act on programs (random, cost)
/// start from this.
std::vector<std::pair<const StrategyInfo*, std::vector<Site>>> locked_legal_sites(const ir::Task& t);
Applied locked_apply(const StrategyInfo& s, const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy
