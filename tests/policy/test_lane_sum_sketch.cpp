// The lane-sum sketch (policy/cost/lane_sum_sketch.hpp): on a softmax the plan gives both row reductions (max, sum of
// exp) lane partial sums, one reduction_factorization step each, every program equivalent to the root; a program
// without a chain-bound reduction gets no plan.
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "equiv/equivalence.hpp"
#include "ir/printer.hpp"
#include "policy/cost/analytical.hpp"
#include "policy/cost/lane_sum_sketch.hpp"
#include "policy/cost/model.hpp"

namespace steptp::policy {
namespace {

ir::Task lanes_workload(const std::string& name, const std::map<std::string, std::int64_t>& params) {
  const auto* w = frontend::find_workload(name);
  return frontend::emit(*w, frontend::resolve_params(*w, params), ir::DType::F32);
}

std::optional<cost::Plan> lane_plan(const ir::Task& t) {
  cost::MachineModel m;  // the defaults: 8 lanes, 4-cycle adds, 6-cycle store forwarding
  auto model = cost::make_analytical_model(m);
  return cost::lane_sum_plan(t, [&](const ir::Task& x) { return model->score(x); });
}

TEST(LaneSumSketch, GivesBothSoftmaxReductionsLanePartialSums) {
  const ir::Task t = lanes_workload("softmax", {{"batch", 4}, {"dim", 2048}});
  const auto plan = lane_plan(t);
  ASSERT_TRUE(plan.has_value());
  std::vector<std::string> ids;
  for (const auto& s : plan->steps) ids.push_back(s.candidate.id());
  // the sum of exp first (its scalar exp is the larger gain), with 16 lanes: two 8-lane vectors of partial sums,
  // 16 chains of 4-cycle adds; then the max with 8 (the input, 32 KiB, stays in the cache between the nests, so
  // the lane programs are not memory-bound in the model)
  EXPECT_EQ(ids, (std::vector<std::string>{"reduction_factorization@1/s0{r=a,lanes=16}",
                                           "reduction_factorization@0/s0{r=a,lanes=8}"}));
  EXPECT_EQ(plan->label, "lane partial sums of 2 reductions");
  EXPECT_EQ(plan->steps.back().after.program.nests.size(), 5u);
  auto model = cost::make_analytical_model(cost::MachineModel{});
  EXPECT_NEAR(plan->score, model->score(plan->steps.back().after), 1e-12);
  EXPECT_LT(plan->score + cost::kLaneSumMinGainLog2 * 2, model->score(t));
  for (const auto& s : plan->steps) {
    const equiv::Result e = equiv::check_equivalence(t, s.after);
    EXPECT_TRUE(e.equivalent) << s.candidate.id() << ": " << e.message;
  }
}

TEST(LaneSumSketch, NoPlanWithoutAChainBoundReduction) {
  // ReLU has no reduction; the naive i-j-k GEMM sums each element in a chain along k, but GCC vectorises the j
  // loop outside it (outer-loop vectorisation: one chain per lane, program_view.hpp outer_vector_width)
  EXPECT_FALSE(lane_plan(lanes_workload("ReLU", {{"batch", 4}, {"dim", 256}})).has_value());
  EXPECT_FALSE(lane_plan(lanes_workload("Square_matrix_multiplication", {{"n", 64}})).has_value());
  // a matrix-vector product's rows move A by a whole row: no outer-loop vectorisation, one scalar chain per row
  EXPECT_TRUE(lane_plan(lanes_workload("Matrix_vector_multiplication", {{"m", 64}, {"k", 1024}})).has_value());
}

}  // namespace
}  // namespace steptp::policy
