// The memory family (STRATEGIES.md §11 entries 18-22): enumerate/apply pairs registered in registry.cpp.
// One strategy per file: cache_read_write.cpp, layout_transformation.cpp, set_storage_scope.cpp,
// set_storage_layout.cpp, precompute_indices.cpp. The index maps shared by entries 19 and 21 live in
// layout_map.hpp.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy::memory {

std::vector<Site> enumerate_cache_read_write(const ir::Task& t);
Applied apply_cache_read_write(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_layout_transformation(const ir::Task& t);
Applied apply_layout_transformation(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_set_storage_scope(const ir::Task& t);
Applied apply_set_storage_scope(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_set_storage_layout(const ir::Task& t);
Applied apply_set_storage_layout(const ir::Task& t, const Candidate& c);
std::vector<Site> enumerate_precompute_indices(const ir::Task& t);
Applied apply_precompute_indices(const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy::memory
