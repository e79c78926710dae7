// The graph family (STRATEGIES.md §11 entries 0-2 here): enumerate/apply pairs registered in registry.cpp.
// One strategy per file: operator_fusion.cpp, operator_fission.cpp, compute_inline.cpp.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy::graph {

std::vector<Site> enumerate_operator_fusion(const ir::Task& t);
Applied apply_operator_fusion(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_operator_fission(const ir::Task& t);
Applied apply_operator_fission(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_compute_inline(const ir::Task& t);
Applied apply_compute_inline(const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy::graph
