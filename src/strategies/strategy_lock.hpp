// Serialised access to strategies that use process-global libraries that are not thread-safe (GiNaC reference
// counting in the algebraic family, STRATEGIES.md §9). Other families run concurrently.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy {

std::vector<Site> locked_enumerate(const StrategyInfo& s, const ir::Task& t);
Applied locked_apply(const StrategyInfo& s, const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy
