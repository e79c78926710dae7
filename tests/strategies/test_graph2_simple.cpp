// Golden before/after tests of graph strategies 3 expression_splitting, 7 dead_code_elimination and
// 8 expression_reorder on the catalogue's examples (STRATEGIES.md §11), with their facts and numeric checks, plus
// one negative test per site condition (no candidate where a rule forbids one).
#include <gtest/gtest.h>

#include "graph_memory_test_util.hpp"
#include "strategies/common.hpp"

// ---------------------------------------------------------------------------------------------------------------
// 8 expression_reorder
// ---------------------------------------------------------------------------------------------------------------

TEST(ExpressionReorder, CatalogueExample) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];"
                     "B^{4}_{tx=0}L^{3}_{a=0}[F_{tx,a}=exp(C_{tx,a});];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Input, {4, 3}}, {"E", R::Output, {4, 3}},
                      {"F", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("expression_reorder", t), (Ids{"expression_reorder@0"}));
  auto a = apply_id("expression_reorder@0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[F_{tx,a}=exp(C_{tx,a});];"
                                 "B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["pair"], nlohmann::json({0, 1}));
  EXPECT_EQ(a.facts["reads"], nlohmann::json({{"A"}, {"C"}}));
  EXPECT_EQ(a.facts["writes"], nlohmann::json({{"E"}, {"F"}}));
  EXPECT_EQ(a.facts["legality"][0]["method"], "structural");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(ExpressionReorder, RefusesRawWarAndWaw) {
  const std::vector<st::testing::KnownSpec> k = {{"A", R::Input, {4}}, {"C", R::Output, {4}}, {"D", R::Output, {4}}};
  // RAW: nest 1 reads what nest 0 writes.
  auto raw = make_task("B^{4}_{tx=0}[C_{tx}=A_{tx}*2;];B^{4}_{tx=0}[D_{tx}=C_{tx}+1;];", k);
  EXPECT_TRUE(candidate_ids("expression_reorder", raw).empty());
  EXPECT_THROW(apply_id("expression_reorder@0", raw), st::StrategyError);
  // WAR: nest 1 overwrites what nest 0 reads.
  auto war = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx};];B^{4}_{tx=0}[C_{tx}=X_{tx}*2;];B^{4}_{tx=0}[X_{tx}=A_{tx}+1;];"
                       "B^{4}_{tx=0}[D_{tx}=X_{tx};];",
                       k);
  EXPECT_EQ(candidate_ids("expression_reorder", war), Ids{});
  // WAW: both nests write C (the later value must win), even on disjoint halves (init status is per buffer).
  auto waw = make_task("B^{4}_{tx=0}[C_{tx}=A_{tx};];B^{4}_{tx=0}[C_{tx}=A_{tx}+1;];B^{4}_{tx=0}[D_{tx}=A_{tx};];", k);
  EXPECT_EQ(candidate_ids("expression_reorder", waw), (Ids{"expression_reorder@1"}));
}

TEST(ExpressionReorder, IslProvesDisjointElements) {
  // Nest 1 reads X only at 4..7, nest 0 writes 0..3: the buffer-level test fails, isl proves independence.
  auto t = make_task("B^{4}_{tx=0}[X_{tx+4}=A_{tx};];B^{4}_{tx=0}[X_{tx}=A_{tx}*2;];B^{4}_{tx=0}[C_{tx}=X_{tx+4};];"
                     "B^{4}_{tx=0}[D_{tx}=X_{tx};];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}, {"D", R::Output, {4}}});
  // 0/1 write the same buffer (rejected); 1/2: X_{tx} written, X_{tx+4} read: disjoint (isl); 2/3: reads only.
  EXPECT_EQ(candidate_ids("expression_reorder", t), (Ids{"expression_reorder@1", "expression_reorder@2"}));
  auto a = apply_id("expression_reorder@1", t);
  EXPECT_EQ(a.facts["legality"][0]["method"], "isl");
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates("expression_reorder", t), 2u);
}

// ---------------------------------------------------------------------------------------------------------------
// 7 dead_code_elimination
// ---------------------------------------------------------------------------------------------------------------

TEST(DeadCodeElimination, CatalogueExample) {
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}[F_{tx,a}=max(D_{tx,a},0);];"
                     "B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=max(D_{tx,a},0);];",
                     {{"D", R::Input, {8, 4}}, {"C", R::Output, {8, 4}}});
  EXPECT_EQ(candidate_ids("dead_code_elimination", t), (Ids{"dead_code_elimination@0/s0"}));
  auto a = apply_id("dead_code_elimination@0/s0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}[C_{tx,a}=max(D_{tx,a},0);];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["buffer"], "F");
  EXPECT_EQ(a.facts["liveness"], nlohmann::json({{"known", "no"}, {"readers", "none"}, {"method", "structural"}}));
  EXPECT_EQ(a.facts["nest_removed"], nlohmann::json({0}));
  EXPECT_EQ(a.facts["removed"]["printed"], expand_refs("F_{tx,a}=max(D_{tx,a},0);"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(DeadCodeElimination, NeverRemovesLiveCode) {
  // Every statement is live: C is known; X is read later; Y is read by a textually earlier statement of its own
  // nest in a later iteration; S is a reduction read by C's nest.
  auto t = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx}*2;];"
                     "B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=if_then_else(a>0,Y_{tx,a-1},0.0);Y_{tx,a}=X_{tx}+a;];"
                     "B^{4}_{tx=0}L^{3}_{a=0}[S_{tx}=S_{tx}+A_{tx};];B^{4}_{tx=0}[C_{tx}=S_{tx};];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}, {"D", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("dead_code_elimination", t), Ids{});
  EXPECT_THROW(apply_id("dead_code_elimination@0/s0", t), st::StrategyError);
}

TEST(DeadCodeElimination, KeepsNestAndInitStatus) {
  // Z's accumulation is never read: dead, with its own accumulator read. The dead W in a two-statement nest leaves
  // the nest in place. Q's accumulation is dead, but Q's first write is not: the continuing accumulation reads it
  // (deleting it would also turn that accumulation's init status from continuing to implicit).
  auto t = make_task("B^{4}_{tx=0}[W_{tx}=A_{tx};C_{tx}=A_{tx}+1;];B^{4}_{tx=0}L^{3}_{a=0}[Z_{tx}=Z_{tx}+A_{tx};];"
                     "B^{4}_{tx=0}[Q_{tx}=A_{tx};];B^{4}_{tx=0}L^{3}_{a=0}[Q_{tx}=Q_{tx}*A_{tx};];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  EXPECT_EQ(candidate_ids("dead_code_elimination", t),
            (Ids{"dead_code_elimination@0/s0", "dead_code_elimination@1/s0", "dead_code_elimination@3/s0"}));
  auto a = apply_id("dead_code_elimination@0/s0", t);
  EXPECT_EQ(leir(a).substr(0, 40), expand_refs("B^{4}_{tx=0}[C_{tx}=A_{tx}+1;];").substr(0, 40));
  EXPECT_TRUE(a.facts["nest_removed"].is_null());
  EXPECT_EQ(check_all_candidates("dead_code_elimination", t), 3u);
}

TEST(DeadCodeElimination, ValueBasedFlow) {
  // The first write of X is overwritten everywhere before C reads X: dead by value-based flow (isl).
  const std::vector<st::testing::KnownSpec> k = {{"A", R::Input, {4}}, {"C", R::Output, {4}}};
  auto t = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx}*2;];B^{4}_{tx=0}[X_{tx}=A_{tx}+1;];B^{4}_{tx=0}[C_{tx}=X_{tx};];", k);
  EXPECT_EQ(candidate_ids("dead_code_elimination", t), (Ids{"dead_code_elimination@0/s0"}));
  auto a = apply_id("dead_code_elimination@0/s0", t);
  EXPECT_EQ(a.facts["liveness"]["method"], "isl");
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Overwritten only on half of X: X_{2}, X_{3} still come from the first write, which stays live.
  auto u = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx}*2;];B^{2}_{tx=0}[X_{tx}=A_{tx}+1;];B^{4}_{tx=0}[C_{tx}=X_{tx};];", k);
  EXPECT_EQ(candidate_ids("dead_code_elimination", u), Ids{});
}

TEST(DeadCodeElimination, DisjointWritersOfAConcatenationAreBothLive) {
  // F_{a,0} and F_{a,tx+1} (tx in [0, 3)) never write a common element (static ranges [0, 0] and [1, 3]), so the
  // second write cannot kill the first: both are live without asking isl, and only the unread D is dead.
  const std::vector<st::testing::KnownSpec> k = {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 4}}};
  auto t = make_task("B^{4}_{tx=0}[D_{tx}=A_{tx,0};];L^{4}_{a=0}B^{1}_{tx=0}[F_{a,tx}=A_{a,0};];"
                     "L^{4}_{a=0}B^{3}_{tx=0}[F_{a,tx+1}=A_{a,tx};];B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=F_{tx,a};];",
                     k);
  EXPECT_EQ(candidate_ids("dead_code_elimination", t), (Ids{"dead_code_elimination@0/s0"}));
  // Overlapping ranges ([0, 2] and [1, 3]): the second write kills F_{a,1} and F_{a,2} but not F_{a,0}, which C
  // reads, so value-based flow keeps the first write live.
  auto u = make_task("L^{4}_{a=0}B^{3}_{tx=0}[F_{a,tx}=A_{a,0};];L^{4}_{a=0}B^{3}_{tx=0}[F_{a,tx+1}=A_{a,tx};];"
                     "B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=F_{tx,a};];",
                     k);
  EXPECT_EQ(candidate_ids("dead_code_elimination", u), Ids{});
  // Fully overwritten ([0, 2] then [0, 2] again): dead by value-based flow.
  auto v = make_task("L^{4}_{a=0}B^{3}_{tx=0}[F_{a,tx}=A_{a,0};];L^{4}_{a=0}B^{3}_{tx=0}[F_{a,tx}=A_{a,tx};];"
                     "B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=F_{tx,a};];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("dead_code_elimination", v), (Ids{"dead_code_elimination@0/s0"}));
  EXPECT_EQ(apply_id("dead_code_elimination@0/s0", v).facts["liveness"]["method"], "isl");
}

// ---------------------------------------------------------------------------------------------------------------
// 3 expression_splitting
// ---------------------------------------------------------------------------------------------------------------

TEST(ExpressionSplitting, CatalogueExample) {
  // D and E stand for the names of the larger program (§11 conventions).
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=1/(1+exp(-A_{tx,a}));];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}, {"D", R::Input, {1}}, {"E", R::Input, {1}}});
  // Pre-order: 1+exp(-A), exp(-A), -A.
  EXPECT_EQ(candidate_ids("expression_splitting", t),
            (Ids{"expression_splitting@0/s0/e1.1.0", "expression_splitting@0/s0/e1.1.0.1",
                 "expression_splitting@0/s0/e1.1.0.1.0"}));
  auto a = apply_id("expression_splitting@0/s0/e1.1.0.1", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[F_{tx,a}=exp(-A_{tx,a});];"
                                 "B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=1/(1+F_{tx,a});];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["subexpr"]["printed"], expand_refs("exp(-A_{tx,a})"));
  EXPECT_EQ(a.facts["occurrences"], 1);
  EXPECT_EQ(a.facts["new_buffer"]["name"], "F");
  EXPECT_EQ(a.facts["new_buffer"]["shape"], nlohmann::json({4, 3}));
  EXPECT_EQ(a.facts["cost"]["elements_added"], 12);
  EXPECT_EQ(a.facts["names"], nlohmann::json({"F"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // The group around a split node goes with it.
  auto b = apply_id("expression_splitting@0/s0/e1.1.0", t);
  EXPECT_EQ(leir(b), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[F_{tx,a}=1+exp(-A_{tx,a});];"
                                 "B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=1/F_{tx,a};];"));
  EXPECT_EQ(check_all_candidates("expression_splitting", t), 3u);
}

TEST(ExpressionSplitting, EveryIdenticalSubtreeAndHelperBinding) {
  // exp(A_a) occurs twice (once in a lazy branch, replaced there too); F uses key a only: its nest binds a as tx.
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=exp(A_{a})*D_{tx}+if_then_else(tx>0,exp(A_{a}),0.0);];",
                     {{"A", R::Input, {3}}, {"D", R::Input, {4}}, {"C", R::Output, {4, 3}}, {"E", R::Input, {1}}});
  auto a = apply_id("expression_splitting@0/s0/e1.0.0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{3}_{tx=0}[F_{tx}=exp(A_{tx});];"
                                 "B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=F_{a}*D_{tx}+if_then_else(tx>0,F_{a},0.0);];"));
  EXPECT_EQ(a.facts["occurrences"], 2);
  EXPECT_TRUE(equivalent_in_class(t, a));
  check_all_candidates("expression_splitting", t);
}

TEST(ExpressionSplitting, SiteConditions) {
  const std::vector<st::testing::KnownSpec> k = {{"A", R::Input, {4, 3}}, {"C", R::Output, {4}}};
  // Only in a lazy branch: exp(A) under if_then_else is never materialised; the whole RHS is not a site either.
  auto lazy = make_task("B^{4}_{tx=0}[C_{tx}=if_then_else(tx>0,exp(A_{tx,0}),0.0);];", k);
  EXPECT_EQ(candidate_ids("expression_splitting", lazy), Ids{});
  // Contains the statement's output: C+exp(A) in a reduction; exp(A) itself is a site.
  auto out = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx}=C_{tx}+exp(A_{tx,a})*2;];", k);
  EXPECT_EQ(candidate_ids("expression_splitting", out), (Ids{"expression_splitting@0/s0/e1.1",
                                                             "expression_splitting@0/s0/e1.1.0"}));
  check_all_candidates("expression_splitting", out);
  // Reads a buffer written by the statement's nest: X is written in the same nest.
  auto nest = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx,0};C_{tx}=exp(X_{tx})*2;];", k);
  EXPECT_EQ(candidate_ids("expression_splitting", nest), Ids{});
  // Leaves and constants are not sites (sqrt(2) is folded), subscripts are not looked into.
  auto leaf = make_task("B^{4}_{tx=0}[C_{tx}=A_{tx,tx%3}*sqrt(2);];", k);
  EXPECT_EQ(candidate_ids("expression_splitting", leaf), Ids{});
}

TEST(ExpressionSplitting, StoredIntermediateClass) {
  // §6: F stores the sub-expression in its static type (f32); the f16 statement evaluates its float constants in
  // f16, so the class is R. In an f32 statement it is E.
  auto t = make_task("B^{4}_{tx=0}[C^{f16,g}_{tx}=exp(A_{tx}*0.1)+1;];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}, steptp::ir::DType::F16}});
  auto a = apply_id("expression_splitting@0/s0/e1.0", t);
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["new_buffer"]["dtype"], "f32");
  EXPECT_TRUE(equivalent_in_class(t, a));
}
