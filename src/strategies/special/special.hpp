// The special family (STRATEGIES.md §11 entries 35, 36, 40, 41, 42): enumerate/apply pairs registered in
// registry.cpp. One strategy per file: partially_equivalent_then_correct.cpp (35), prefix_max.cpp (36), prefix_sum_exp.cpp (40), online_softmax.cpp (41),
// flash_attention.cpp (42). The shared pattern matching lives in strategies/analysis/softmax.hpp, the shared
// builders (prefix buffers, the online normaliser, helper nests) in special_util.hpp.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy::special {

/// partially_equivalent_then_correct (35): one site per pair of identical padded convolutions, param axis.
std::vector<Site> enumerate_petc(const ir::Task& t);
Applied apply_petc(const ir::Task& t, const Candidate& c);
/// normal_loop_max_to_prefix_max (36): one site per genuine max-reduction nest.
std::vector<Site> enumerate_prefix_max(const ir::Task& t);
Applied apply_prefix_max(const ir::Task& t, const Candidate& c);
/// normal_loop_summation_on_exp_to_prefix_summation_on_exp (40): one site per (max, sum of exp) nest pair.
std::vector<Site> enumerate_prefix_sum_exp(const ir::Task& t);
Applied apply_prefix_sum_exp(const ir::Task& t, const Candidate& c);
/// online_softmax (41): one site per (max, sum, normalise) triple, addressed by the normalisation statement.
std::vector<Site> enumerate_online_softmax(const ir::Task& t);
Applied apply_online_softmax(const ir::Task& t, const Candidate& c);
/// flashattention_wo_tiling (42): one site per (softmax, product) pair, addressed by the product nest.
std::vector<Site> enumerate_flash_attention(const ir::Task& t);
Applied apply_flash_attention(const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy::special
