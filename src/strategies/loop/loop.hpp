// The loop family (STRATEGIES.md §11 entries 9-17): enumerate/apply pairs registered in registry.cpp.
// One strategy per file: loop_reorder.cpp, loop_tiling.cpp, loop_split.cpp, loop_fusion.cpp,
// loop_unrolling.cpp, loop_marking.cpp (parallelization, vectorization), loop_binding.cpp,
// reduction_factorization.cpp. Shared checks live in loop_util.hpp.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy::loop {

std::vector<Site> enumerate_reorder(const ir::Task& t);
Applied apply_reorder(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_tiling(const ir::Task& t);
Applied apply_tiling(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_split(const ir::Task& t);
Applied apply_split(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_fusion(const ir::Task& t);
Applied apply_fusion(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_unrolling(const ir::Task& t);
Applied apply_unrolling(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_parallelization(const ir::Task& t);
Applied apply_parallelization(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_vectorization(const ir::Task& t);
Applied apply_vectorization(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_binding(const ir::Task& t);
Applied apply_binding(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_rfactor(const ir::Task& t);
Applied apply_rfactor(const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy::loop
