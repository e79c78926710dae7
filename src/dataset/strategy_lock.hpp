// Serialised access to strategies that use process-global libraries that are not thread-safe (GiNaC reference
// counting in the algebraic family, STRATEGIES.md §9). Other families run concurrently.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::dataset {

std::vector<strategy::Site> locked_enumerate(const strategy::StrategyInfo& s, const ir::Task& t);
strategy::Applied locked_apply(const strategy::StrategyInfo& s, const ir::Task& t, const strategy::Candidate& c);

}  // namespace steptp::dataset
