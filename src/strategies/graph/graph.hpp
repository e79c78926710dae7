// The graph family (STRATEGIES.md §11 entries 0-8): enumerate/apply pairs registered in registry.cpp.
// One strategy per file, named after the strategy.
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
/// Entry 3: materialise one sub-expression of a statement in a fresh intermediate (expression_splitting.cpp).
std::vector<Site> enumerate_expression_splitting(const ir::Task& t);
Applied apply_expression_splitting(const ir::Task& t, const Candidate& c);
/// Entry 4: run two instances of one operator over concatenated inputs (tensor_concat_to_fuse_operators.cpp).
std::vector<Site> enumerate_tensor_concat_to_fuse_operators(const ir::Task& t);
Applied apply_tensor_concat_to_fuse_operators(const ir::Task& t, const Candidate& c);
/// Entry 5: split one operator into two on slices of an axis, with copies and a combine
/// (tensor_split_to_decouple_operators.cpp).
std::vector<Site> enumerate_tensor_split_to_decouple_operators(const ir::Task& t);
Applied apply_tensor_split_to_decouple_operators(const ir::Task& t, const Candidate& c);
/// Entry 6: compute a repeated sub-expression once into a fresh intermediate
/// (common_subexpression_elimination.cpp).
std::vector<Site> enumerate_common_subexpression_elimination(const ir::Task& t);
Applied apply_common_subexpression_elimination(const ir::Task& t, const Candidate& c);
/// Entry 7: delete a dead statement and any nest left empty (dead_code_elimination.cpp).
std::vector<Site> enumerate_dead_code_elimination(const ir::Task& t);
Applied apply_dead_code_elimination(const ir::Task& t, const Candidate& c);
/// Entry 8: swap two consecutive independent top-level nests (expression_reorder.cpp).
std::vector<Site> enumerate_expression_reorder(const ir::Task& t);
Applied apply_expression_reorder(const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy::graph
