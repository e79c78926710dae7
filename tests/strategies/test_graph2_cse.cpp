// Golden before/after tests of graph strategy 6 common_subexpression_elimination on the catalogue's example
// (STRATEGIES.md §11), with its facts and numeric check, plus one negative test per site condition.
#include <gtest/gtest.h>

#include "graph_memory_test_util.hpp"
#include "strategies/common.hpp"

TEST(CommonSubexpressionElimination, CatalogueExample) {
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];"
                     "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=exp(A_{tx,a}-D_{tx})/E_{tx};];",
                     {{"A", R::Input, {8, 6}}, {"D", R::Input, {8}}, {"C", R::Output, {8, 6}}});
  // exp(A-D) is maximal; A-D (inside it at both places) is not a site.
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", t), (Ids{"common_subexpression_elimination@0/s0/e1.1"}));
  auto a = apply_id("common_subexpression_elimination@0/s0/e1.1", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=exp(A_{tx,a}-D_{tx});];"
                                 "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+F_{tx,a};];"
                                 "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=F_{tx,a}/E_{tx};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["subexpr"]["printed"], expand_refs("exp(A_{tx,a}-D_{tx})"));
  EXPECT_EQ(a.facts["insertion_point"], 0);
  ASSERT_EQ(a.facts["occurrences"].size(), 2u);
  EXPECT_EQ(a.facts["occurrences"][1]["nest"], nlohmann::json({1}));
  EXPECT_EQ(a.facts["occurrences"][1]["path"], nlohmann::json({1, 0}));
  EXPECT_EQ(a.facts["new_buffer"]["name"], "F");
  EXPECT_EQ(a.facts["new_buffer"]["shape"], nlohmann::json({8, 6}));
  EXPECT_EQ(a.facts["names"], nlohmann::json({"F"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(CommonSubexpressionElimination, KeyRenamingBetweenEqualExtents) {
  // The second occurrence uses keys (c, tx) where the first uses (tx, a): F_{c,tx} there.
  auto t = make_task("B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=exp(A_{tx,a})*2;];"
                     "B^{4}_{tx=0}L^{4}_{c=0}[D_{tx,c}=exp(A_{c,tx})+1;];",
                     {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 4}}, {"D", R::Output, {4, 4}}});
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", t), (Ids{"common_subexpression_elimination@0/s0/e1.0"}));
  auto a = apply_id("common_subexpression_elimination@0/s0/e1.0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{4}_{a=0}[E_{tx,a}=exp(A_{tx,a});];"
                                 "B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=E_{tx,a}*2;];"
                                 "B^{4}_{tx=0}L^{4}_{c=0}[D_{tx,c}=E_{c,tx}+1;];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Unequal extents do not match.
  auto u = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=exp(A_{tx,a})*2;];"
                     "B^{3}_{tx=0}L^{4}_{c=0}[D_{tx,c}=exp(A_{tx,c})+1;];",
                     {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 3}}, {"D", R::Output, {3, 4}}});
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", u), Ids{});
}

TEST(CommonSubexpressionElimination, SiteConditions) {
  const std::vector<st::testing::KnownSpec> k = {{"A", R::Input, {4}}, {"C", R::Output, {4}}, {"D", R::Output, {4}}};
  // B11: X changes between the two occurrences of exp(X).
  auto b11 = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx};];B^{4}_{tx=0}[C_{tx}=exp(X_{tx})*2;];"
                       "B^{4}_{tx=0}[X_{tx}=A_{tx}+1;];B^{4}_{tx=0}[D_{tx}=exp(X_{tx})*3;];",
                       k);
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", b11), Ids{});
  EXPECT_THROW(apply_id("common_subexpression_elimination@1/s0/e1.0", b11), st::StrategyError);
  // An occurrence in a lazy branch does not count.
  auto lazy = make_task("B^{4}_{tx=0}[C_{tx}=exp(A_{tx})*2;D_{tx}=if_then_else(tx>0,exp(A_{tx}),0.0);];", k);
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", lazy), Ids{});
  // An occurrence containing its statement's accumulator: (C+A) in C=C+A... and D=(C+A)*2.
  auto acc = make_task("B^{4}_{tx=0}[C_{tx}=A_{tx};];B^{4}_{tx=0}[C_{tx}=(C_{tx}+A_{tx})*2;D_{tx}=(C_{tx}+A_{tx})*3;];",
                       k);
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", acc), Ids{});
  // Two occurrences in one statement; the inner repeated A*2 is not maximal.
  auto one = make_task("B^{4}_{tx=0}[C_{tx}=exp(A_{tx}*2)+exp(A_{tx}*2)*3;];",
                       {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  EXPECT_EQ(candidate_ids("common_subexpression_elimination", one),
            (Ids{"common_subexpression_elimination@0/s0/e1.0"}));
  EXPECT_EQ(check_all_candidates("common_subexpression_elimination", one), 1u);
}

TEST(CommonSubexpressionElimination, StoredIntermediateClass) {
  // §6: F stores exp(A*0.1) in its static type f32, the f16 statements evaluate 0.1 in f16: class R.
  auto t = make_task("B^{4}_{tx=0}[C^{f16,g}_{tx}=exp(A_{tx}*0.1)*2;];B^{4}_{tx=0}[D^{f16,g}_{tx}=exp(A_{tx}*0.1)+1;];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}, steptp::ir::DType::F16},
                      {"D", R::Output, {4}, steptp::ir::DType::F16}});
  auto a = apply_id("common_subexpression_elimination@0/s0/e1.0", t);
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["new_buffer"]["dtype"], "f32");
  EXPECT_TRUE(equivalent_in_class(t, a));
}
