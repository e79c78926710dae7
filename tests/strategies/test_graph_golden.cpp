// Golden before/after tests of the graph strategies 0-2 on the catalogue's examples (STRATEGIES.md §11), with
// their facts and numeric checks, plus negative tests (no candidate where a rule forbids one).
#include <gtest/gtest.h>

#include <algorithm>

#include "graph_memory_test_util.hpp"
#include "strategies/common.hpp"

namespace {
// The catalogue's tanh pieces: D = exp(A)-exp(-A), E = exp(A)+exp(-A), both graph outputs.
const char* kTanhTwoNests =
    "B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a})-exp(-A_{tx,a});];"
    "B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a})+exp(-A_{tx,a});];";
const char* kTanhFused =
    "B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a})-exp(-A_{tx,a});E_{tx,a}=exp(A_{tx,a})+exp(-A_{tx,a});];";
steptp::ir::Task tanh_task(const char* text) {
  return make_task(text, {{"A", R::Input, {4, 3}}, {"D", R::Output, {4, 3}}, {"E", R::Output, {4, 3}}});
}
}  // namespace

TEST(OperatorFusion, CatalogueExample) {
  auto t = tanh_task(kTanhTwoNests);
  // D and E are graph outputs: no demotion is ever offered (B15).
  EXPECT_EQ(candidate_ids("operator_fusion", t), (Ids{"operator_fusion@0{demote=keep}"}));
  auto a = apply_id("operator_fusion@0{demote=keep}", t);
  EXPECT_EQ(leir(a), expand_refs(kTanhFused));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["pair"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(a.facts["headers"], nlohmann::json::array({"B^{4}_{tx=0}L^{3}_{a=0}", "B^{4}_{tx=0}L^{3}_{a=0}"}));
  EXPECT_EQ(a.facts["key_renaming"], nlohmann::json::object());
  EXPECT_EQ(a.facts["carried_buffers"], nlohmann::json::array());
  EXPECT_EQ(a.facts["scope_changes"], nlohmann::json::array());
  EXPECT_EQ(a.facts["nests"]["removed"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(a.facts["nests"]["added"], nlohmann::json::array({0}));
  // No buffer is written by one nest and read by the other: the exact structural proof applies (no isl).
  EXPECT_EQ(a.facts["legality"][0]["method"], "structural");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(OperatorFusion, SharedBufferOutsideTheFullHeaderSubscriptIsDecidedByIsl) {
  // E reads D_{tx,0}, written at iteration (tx,0) before every reading iteration (tx,a): legal, but the element is
  // not touched in one iteration only, so isl decides (and records its evidence).
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=D_{tx,0}+A_{tx,a};];",
                     {{"A", R::Input, {4, 3}}, {"D", R::Output, {4, 3}}, {"E", R::Output, {4, 3}}});
  auto a = apply_id("operator_fusion@0{demote=keep}", t);
  EXPECT_EQ(a.facts["legality"][0]["method"], "isl");
  EXPECT_EQ(a.facts["carried_buffers"], nlohmann::json::array({"D"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Reading D_{tx,2} would see a value the fused nest has not written yet: illegal, no candidate.
  auto bad = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=D_{tx,2}+A_{tx,a};];",
                       {{"A", R::Input, {4, 3}}, {"D", R::Output, {4, 3}}, {"E", R::Output, {4, 3}}});
  EXPECT_TRUE(candidate_ids("operator_fusion", bad).empty());
  // The same-subscript producer/consumer pair is proven structurally.
  auto chain = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{c=0}[E_{tx,c}=D_{tx,c}*2;];",
                         {{"A", R::Input, {4, 3}}, {"D", R::Output, {4, 3}}, {"E", R::Output, {4, 3}}});
  auto b = apply_id("operator_fusion@0{demote=keep}", chain);
  EXPECT_EQ(b.facts["legality"][0]["method"], "structural");
  EXPECT_TRUE(equivalent_in_class(chain, b));
}

TEST(OperatorFusion, RenamesKeysAndDemotesConfinedIntermediate) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{c=0}[C_{tx,c}=D_{tx,c}+1;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("operator_fusion", t),
            (Ids{"operator_fusion@0{demote=keep}", "operator_fusion@0{demote=l}", "operator_fusion@0{demote=s}"}));
  auto a = apply_id("operator_fusion@0{demote=l}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,l}_{tx,a}=exp(A_{tx,a});C_{tx,a}=D^{f32,l}_{tx,a}+1;];"));
  EXPECT_EQ(a.facts["key_renaming"], nlohmann::json({{"c", "a"}}));
  EXPECT_EQ(a.facts["carried_buffers"], nlohmann::json::array({"D"}));
  ASSERT_EQ(a.facts["scope_changes"].size(), 1u);
  EXPECT_EQ(a.facts["scope_changes"][0]["buffer"], "D");
  EXPECT_EQ(a.facts["scope_changes"][0]["scope_before"], "g");
  EXPECT_EQ(a.facts["scope_changes"][0]["scope_after"], "l");
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates("operator_fusion", t), 3u);
}

TEST(OperatorFusion, NoDemotionOfGraphOutputsOrBuffersReadLater) {
  // D is an output: fusing keeps it global (B15).
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=D_{tx,a}+1;];",
                     {{"A", R::Input, {4, 3}}, {"D", R::Output, {4, 3}}, {"C", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("operator_fusion", t), (Ids{"operator_fusion@0{demote=keep}"}));
  // X is still read by nest 2: fusing 0 and 1 keeps it global; fusing 1 and 2 leaves it in two nests.
  auto u = make_task(
      "B^{4}_{tx=0}L^{3}_{a=0}[X_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=X_{tx,a}+1;];"
      "B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=X_{tx,a}*2;];",
      {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}, {"E", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("operator_fusion", u), (Ids{"operator_fusion@0{demote=keep}", "operator_fusion@1{demote=keep}"}));
  EXPECT_EQ(check_all_candidates("operator_fusion", u), 2u);
}

TEST(OperatorFusion, IllegalWhenTheSecondNestReadsAReductionOutput) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[M_{tx}=max(M_{tx},A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=A_{tx,a}-M_{tx};];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  EXPECT_TRUE(candidate_ids("operator_fusion", t).empty());
  EXPECT_THROW(apply_id("operator_fusion@0{demote=keep}", t), st::StrategyError);
}

TEST(OperatorFusion, IllegalWhenAProducerIsReadAtALaterIteration) {
  // Nest 1 reads X one iteration ahead: fused, the read would precede the write.
  auto t = make_task("B^{4}_{tx=0}L^{4}_{a=0}[X_{tx,a}=exp(A_{tx,a});];"
                     "B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=if_then_else(a<3,X_{tx,a+1},0.0);];",
                     {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 4}}});
  EXPECT_TRUE(candidate_ids("operator_fusion", t).empty());
  // Reading one iteration behind is legal, and X (read within the same tx iteration) may then be demoted.
  auto u = make_task("B^{4}_{tx=0}L^{4}_{a=0}[X_{tx,a}=exp(A_{tx,a});];"
                     "B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=if_then_else(a>0,X_{tx,a-1},0.0);];",
                     {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 4}}});
  EXPECT_EQ(candidate_ids("operator_fusion", u),
            (Ids{"operator_fusion@0{demote=keep}", "operator_fusion@0{demote=l}", "operator_fusion@0{demote=s}"}));
  EXPECT_EQ(check_all_candidates("operator_fusion", u), 3u);
  // Reading another tx iteration's X is legal to fuse (tx ascends) but X cannot be demoted.
  auto w = make_task("B^{4}_{tx=0}L^{4}_{a=0}[X_{tx,a}=exp(A_{tx,a});];"
                     "B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a}=if_then_else(tx>0,X_{tx-1,a},0.0);];",
                     {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 4}}});
  EXPECT_TRUE(candidate_ids("operator_fusion", w).empty());  // tx is a non-reducing B loop: it would carry X
}

TEST(OperatorFusion, HeadersMustMatchUpToRenaming) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{2}_{a=0}[C_{tx,a}=D_{tx,a}+1;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 2}}});
  EXPECT_TRUE(candidate_ids("operator_fusion", t).empty());
}

TEST(OperatorFission, InverseOfFusion) {
  auto t = tanh_task(kTanhFused);
  EXPECT_EQ(candidate_ids("operator_fission", t), (Ids{"operator_fission@0{cut=1}"}));
  auto a = apply_id("operator_fission@0{cut=1}", t);
  EXPECT_EQ(leir(a), expand_refs(kTanhTwoNests));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["cut"], 1);
  EXPECT_EQ(a.facts["items_first"], nlohmann::json::array({expand_refs("D_{tx,a}=exp(A_{tx,a})-exp(-A_{tx,a});")}));
  EXPECT_EQ(a.facts["items_second"], nlohmann::json::array({expand_refs("E_{tx,a}=exp(A_{tx,a})+exp(-A_{tx,a});")}));
  EXPECT_EQ(a.facts["scope_promotions"], nlohmann::json::array());
  EXPECT_EQ(a.facts["nests"]["added"], nlohmann::json::array({0, 1}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(OperatorFission, LegalityMethod) {
  // The catalogue example's sides share no written buffer: structural, no isl question.
  auto a = apply_id("operator_fission@0{cut=1}", tanh_task(kTanhFused));
  EXPECT_EQ(a.facts["legality"][0]["method"], "structural");
  // E is written before the cut and read after it: isl checks that the forward dependence is kept.
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=A_{tx,a}+1;C_{tx,a}=E_{tx,a}*2;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  auto b = apply_id("operator_fission@0{cut=1}", t);
  EXPECT_EQ(b.facts["legality"][0]["method"], "isl");
  EXPECT_EQ(b.facts["legality"][0]["detail"], "1 dependence relations respected");
  EXPECT_TRUE(equivalent_in_class(t, b));
}

TEST(OperatorFission, PromotesScopedBuffersUsedOnBothSides) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,l}_{tx,a}=exp(A_{tx,a});C_{tx,a}=D^{f32,l}_{tx,a}+1;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  auto a = apply_id("operator_fission@0{cut=1}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[D_{tx,a}=exp(A_{tx,a});];B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=D_{tx,a}+1;];"));
  EXPECT_EQ(a.facts["scope_promotions"][0]["buffer"], "D");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(OperatorFission, NoCutAgainstABackwardDependence) {
  // Item 0 reads D from the previous iteration of a, written by item 1: cutting would read D before it exists.
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=if_then_else(a<1,0.0,D_{tx,a-1});D_{tx,a}=A_{tx,a}*2;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  EXPECT_TRUE(candidate_ids("operator_fission", t).empty());
  // Three items: only the cut that keeps the backward pair together is offered.
  auto u = make_task("B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=A_{tx,a}+1;C_{tx,a}=if_then_else(a<1,0.0,D_{tx,a-1});"
                     "D_{tx,a}=A_{tx,a}*2;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}, {"E", R::Output, {4, 3}}});
  EXPECT_EQ(candidate_ids("operator_fission", u), (Ids{"operator_fission@0{cut=1}"}));
  EXPECT_EQ(check_all_candidates("operator_fission", u), 1u);
}

TEST(ComputeInline, CatalogueExample) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];B^{3}_{tx=0}L^{4}_{a=0}[C_{tx,a}=D_{tx,a}/E_{a,tx};];",
                     {{"A", R::Input, {4, 3}}, {"D", R::Input, {3, 4}}, {"C", R::Output, {3, 4}}});
  EXPECT_EQ(candidate_ids("compute_inline", t), (Ids{"compute_inline@0/s0"}));
  auto a = apply_id("compute_inline@0/s0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{3}_{tx=0}L^{4}_{a=0}[C_{tx,a}=D_{tx,a}/exp(A_{a,tx});];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["producer"]["buffer"], "E");
  EXPECT_EQ(a.facts["producer"]["definition"], expand_refs("exp(A_{tx,a})"));
  EXPECT_EQ(a.facts["removed_nest"], 0);
  ASSERT_EQ(a.facts["reads"].size(), 1u);
  EXPECT_EQ(a.facts["reads"][0]["nest"], 1);
  EXPECT_EQ(a.facts["reads"][0]["substitutions"][0], nlohmann::json({{"tx", "a"}, {"a", "tx"}}));
  EXPECT_EQ(a.facts["buffers"]["removed"], nlohmann::json::array({"E"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(ComputeInline, EveryReadIncludingComputedSubscriptsAndLazyBranches) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[E_{tx,a}=A_{tx,a}*2+1;];"
                     "B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=if_then_else(a>0,E_{tx,a-1},0.0)*E_{3-tx,a};];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4, 3}}});
  auto a = apply_id("compute_inline@0/s0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=if_then_else(a>0,A_{tx,a-1}*2+1,0.0)*(A_{3-tx,a}*2+1);];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(ComputeInline, WholeSiteRejectedWhenOneReadIsNotInlinable) {
  // I is read once as a gather index (max(...) is not a subscript expression) and once as a value: B16 says the
  // site is rejected rather than inlined in part.
  auto t = make_task("B^{4}_{tx=0}[I^{i64,g}_{tx}=max(tx-1,0);];B^{4}_{tx=0}[C_{tx}=A_{I^{i64,g}_{tx}};];"
                     "B^{4}_{tx=0}[E^{i64,g}_{tx}=I^{i64,g}_{tx}+1;];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}, {"E", R::Output, {4}, steptp::ir::DType::I64}});
  EXPECT_TRUE(candidate_ids("compute_inline", t).empty());
  EXPECT_THROW(apply_id("compute_inline@0/s0", t), st::StrategyError);
}

TEST(ComputeInline, ValuePreservationAndSiteShape) {
  // X is rewritten between E's producer and E's read: inlining X*2 there would read the new X.
  auto t = make_task("B^{4}_{tx=0}[X_{tx}=A_{tx};];B^{4}_{tx=0}[E_{tx}=X_{tx}*2;];B^{4}_{tx=0}[X_{tx}=A_{tx}+1;];"
                     "B^{4}_{tx=0}[C_{tx}=E_{tx}+X_{tx};];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  EXPECT_TRUE(candidate_ids("compute_inline", t).empty());
  // Reductions, prefix forms and subscripts that do not cover the header are not producers.
  auto u = make_task("B^{4}_{tx=0}L^{3}_{a=0}[S_{tx}=S_{tx}+A_{tx,a};];B^{4}_{tx=0}[C_{tx}=S_{tx}*2;];",
                     {{"A", R::Input, {4, 3}}, {"C", R::Output, {4}}});
  EXPECT_TRUE(candidate_ids("compute_inline", u).empty());
}

TEST(ComputeInline, NarrowingStoreIsReassociationClass) {
  auto t = make_task("B^{4}_{tx=0}[E^{f16,g}_{tx}=A_{tx}*3;];B^{4}_{tx=0}[C_{tx}=E^{f16,g}_{tx}+1;];",
                     {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  auto a = apply_id("compute_inline@0/s0", t);
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}[C_{tx}=A_{tx}*3+1;];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}
