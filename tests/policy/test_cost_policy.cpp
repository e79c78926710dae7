// The cost policy (policy/cost_policy.hpp) with the analytical model: on the naive i-j-k matmul its best proposal
// is the reorder that makes the unit-stride loop innermost (i-k-j); it never proposes a program the search has
// seen; n >= 2 asks give n distinct programs with their candidate ids.
#include <gtest/gtest.h>

#include <set>

#include "step/answer_parser.hpp"
#include "ir/canon.hpp"
#include "frontend/workloads.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "policy/cost_policy.hpp"
#include "policy/factory.hpp"

namespace steptp::policy {
namespace {

ir::Task matmul64() {
  const auto* w = frontend::find_workload("Square_matrix_multiplication");
  return frontend::emit(*w, frontend::resolve_params(*w, {{"n", 64}}), ir::DType::F32);
}

Prompt prompt_for(const ir::Task& t, int n) {
  Prompt p;
  p.id = "t";
  p.n = n;
  p.task = &t;
  return p;
}

TEST(CostPolicy, AnalyticalModelProposesTheUnitStrideOrderFirst) {
  const ir::Task t = matmul64();
  auto pol = make_cost_policy("analytical", 256, 1, "none");
  Reply r = pol->reply(prompt_for(t, 1), 0);
  ASSERT_FALSE(r.none);
  core::ParsedAnswer a = core::parse_answer(r.content, 1);
  ASSERT_TRUE(a.ok) << r.content;
  EXPECT_EQ(a.programs[0].strategy, "loop_reorder");
  // i (tx) outermost, then the reduction c, then a: C[c,a] and D[tx,a] move with stride 1 along the innermost a
  EXPECT_EQ(a.programs[0].leir,
            "B^{64}_{tx=0}L^{64}_{c=0}L^{64}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];");
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].rfind("loop_reorder@0", 0), 0u) << r.candidates[0];
  // With the loop_reorder lookahead, the cache write of D comes first: its child in the tx-c-a order keeps the
  // 64-float accumulator row in registers across c (issue_s: C only), 3.4x faster than the i-k-j order when both
  // were timed at 64^3 on the machine of bench/RESULTS.md (4.6 against 15.7 us).
  auto ahead = make_cost_policy("analytical", 256, 1, "loop_reorder", "none");
  Reply q = ahead->reply(prompt_for(t, 1), 0);
  ASSERT_EQ(q.candidates.size(), 1u);
  EXPECT_EQ(q.candidates[0], "cache_read_write@0/s0{variant=write,access=\"D^{f32,g}_{tx,a}\",scope=l,d=1}");
}

TEST(CostPolicy, NeverProposesWhatTheSearchHasSeenAndGivesDistinctPrograms) {
  const ir::Task t = matmul64();
  auto pol = make_cost_policy("analytical", 256, 1);
  Prompt p = prompt_for(t, 3);
  std::set<std::string> seen;
  p.seen = [&](const std::string& c) { return seen.count(c) > 0; };
  core::ParsedAnswer first = core::parse_answer(pol->reply(p, 0).content, 3);
  ASSERT_TRUE(first.ok);
  ASSERT_EQ(first.programs.size(), 3u);
  std::set<std::string> canon;
  for (const auto& prog : first.programs) {
    ir::Task x = t;
    x.program = ir::parse_program(prog.leir);
    canon.insert(core::alpha_canonical(x));
  }
  EXPECT_EQ(canon.size(), 3u);
  EXPECT_EQ(canon.count(core::alpha_canonical(t)), 0u);
  // once the search has seen them, the next ask proposes three others
  seen = canon;
  core::ParsedAnswer second = core::parse_answer(pol->reply(p, 1).content, 3);
  ASSERT_TRUE(second.ok);
  for (const auto& prog : second.programs) {
    ir::Task x = t;
    x.program = ir::parse_program(prog.leir);
    EXPECT_EQ(seen.count(core::alpha_canonical(x)), 0u) << prog.leir;
  }
}

// x @ W^T (Gemm_Add_ReLU: C[tx,a] += A[tx,c] * E[a,c]): the reduction over c is innermost and no loop order makes
// every access unit-stride along a vectorisable loop. Transposing E makes the a loop outside the reduction
// vectorisable (GCC's outer-loop vectorisation: C 1, A 0, E^T 1 along a), so the transposition is the first
// proposal, with the loop_reorder lookahead (its tx-c-a child) as without it.
TEST(CostPolicy, LookaheadProposesTheTranspositionThatEnablesAUnitStrideOrder) {
  const auto* w = frontend::find_workload("Gemm_Add_ReLU");
  const ir::Task t =
      frontend::emit(*w, frontend::resolve_params(*w, {{"batch", 32}, {"in", 64}, {"out", 64}}), ir::DType::F32);
  auto with = make_cost_policy("analytical", 256, 1, "loop_reorder", "none");
  Reply r = with->reply(prompt_for(t, 1), 0);
  ASSERT_FALSE(r.none);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].rfind("layout_transformation@0{access=\"E^{f32,g}_{a,c}\",variant=transpose", 0), 0u)
      << r.candidates[0];
  // (without the lookahead and without the register-block sketch, whose plan starts with the same transposition)
  auto without = make_cost_policy("analytical", 256, 1, "none", "none");
  Reply q = without->reply(prompt_for(t, 4), 0);
  ASSERT_FALSE(q.none);
  EXPECT_EQ(q.candidates.at(0).rfind("layout_transformation@0{access=\"E^{f32,g}_{a,c}\",variant=transpose", 0), 0u)
      << q.candidates.at(0);
  EXPECT_THROW(make_cost_policy("analytical", 256, 1, "no_such_strategy"), std::runtime_error);
  EXPECT_THROW(make_cost_policy("analytical", 256, 1, "loop_reorder", "no_such_sketch"), std::runtime_error);
}

TEST(CostPolicy, FactoryErrorsNameTheProblem) {
  PolicySpec s;
  s.name = "cost";
  s.cost_model = "/nonexistent/model.json";
  try {
    make_policy(s, nullptr, "llm, replay, random, cost");
    FAIL() << "no error";
  } catch (const PolicySpecError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.json"), std::string::npos) << e.what();
  }
  s.name = "oracle";
  EXPECT_THROW(make_policy(s, nullptr, "llm, replay, random, cost"), PolicySpecError);
  s.name = "cost";  // a caller that does not offer cost
  EXPECT_THROW(make_policy(s, nullptr, "llm, replay, random"), PolicySpecError);
}

}  // namespace
}  // namespace steptp::policy
