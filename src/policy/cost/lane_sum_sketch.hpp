// The lane-sum sketch of the cost policy (a steptp addition to DATASET.md §9.3): a multi-step plan that gives every
// reduction nest whose scalar accumulation chain bounds it independent partial sums, one
// reduction_factorization lanes step (TVM's split + rfactor of the inner axis) per nest. A softmax has two such
// reductions (max, sum of exp), a LayerNorm two (mean, variance), multi-head attention six GEMM-like nests and two
// row reductions; with a one-step ranking each step competes with every other candidate for the search's
// measurements, and the second and later reductions are rarely reached. As a plan (cost_policy.hpp, "Sketch") the
// steps are proposed in sequence.
//
// Greedy: at each step every lanes candidate of the current program (every reduction nest, every lane count in
// {4, ..., 128}) is applied and scored; the best is taken while it improves the program's score by at least
// kLaneSumMinGainLog2; at most kLaneSumMaxSteps steps.
#pragma once
#include <functional>
#include <optional>

#include "ir/task.hpp"
#include "policy/cost/register_block_sketch.hpp"

namespace steptp::policy::cost {

/// Smallest predicted gain of one step of the plan, log2 (1.05x).
inline constexpr double kLaneSumMinGainLog2 = 0.0703893;
/// Most steps of one plan.
inline constexpr int kLaneSumMaxSteps = 8;

/// The lane-sum plan of `t` by `score` (lower is better; predicted log2 seconds): its steps, the score of its last
/// program and a label ("lane partial sums of 2 reductions"). nullopt when no lanes step gains
/// kLaneSumMinGainLog2. Never throws: a candidate that fails to apply or to score is skipped.
std::optional<Plan> lane_sum_plan(const ir::Task& t, const std::function<double(const ir::Task&)>& score);

}  // namespace steptp::policy::cost
