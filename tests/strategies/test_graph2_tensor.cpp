// Golden before/after tests of graph strategies 4 tensor_concat_to_fuse_operators and
// 5 tensor_split_to_decouple_operators on the catalogue's examples (STRATEGIES.md §11), with their facts and
// numeric checks, plus one negative test per site condition.
#include <gtest/gtest.h>

#include "graph_memory_test_util.hpp"
#include "strategies/common.hpp"

// ---------------------------------------------------------------------------------------------------------------
// 4 tensor_concat_to_fuse_operators
// ---------------------------------------------------------------------------------------------------------------

TEST(TensorConcat, CatalogueExample) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];"
                     "B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=exp(C_{tx,a});];",
                     {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}}, {"E", R::Output, {2, 3}},
                      {"F", R::Output, {2, 4}}, {"D", R::Input, {1}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", t), (Ids{"tensor_concat_to_fuse_operators@0{axis=1}"}));
  auto a = apply_id("tensor_concat_to_fuse_operators@0{axis=1}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}L^{3}_{a=0}[G_{tx,a}=A_{tx,a};];"
                                 "B^{2}_{tx=0}L^{4}_{a=0}[G_{tx,a+3}=C_{tx,a};];"
                                 "B^{2}_{tx=0}L^{7}_{a=0}[H_{tx,a}=exp(G_{tx,a});];"
                                 "B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=H_{tx,a};];"
                                 "B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=H_{tx,a+3};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["pair"], nlohmann::json({0, 1}));
  EXPECT_EQ(a.facts["skeleton"], "exp($0)");
  EXPECT_EQ(a.facts["axis"], nlohmann::json({{"key", "a"}, {"position", 1}, {"n1", 3}, {"n2", 4}, {"offset", 3}}));
  EXPECT_EQ(a.facts["concatenated"][0]["buffer"], "G");
  EXPECT_EQ(a.facts["new_nests"].size(), 5u);
  EXPECT_EQ(a.facts["names"], nlohmann::json({"G", "H"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(TensorConcat, SharedOperandsAndMetadataFromEachNest) {
  // D_{tx} is shared (identical, without the concat key); outputs keep their own dtypes and headers (B5).
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E^{f16,g}_{tx,a}=A_{tx,a}*D_{tx};];"
                     "B^{2}_{tx=0}L^{4}_{c=0}[F^{f16,g}_{tx,c}=C_{tx,c}*D_{tx};];",
                     {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}}, {"D", R::Input, {2}},
                      {"E", R::Output, {2, 3}, steptp::ir::DType::F16},
                      {"F", R::Output, {2, 4}, steptp::ir::DType::F16}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", t), (Ids{"tensor_concat_to_fuse_operators@0{axis=1}"}));
  auto a = apply_id("tensor_concat_to_fuse_operators@0{axis=1}", t);
  EXPECT_EQ(a.facts["shared_operands"], nlohmann::json({expand_refs("D_{tx}")}));
  EXPECT_EQ(a.facts["outputs"][1]["dtype"], "f16");
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates("tensor_concat_to_fuse_operators", t), 1u);
}

TEST(TensorConcat, SiteConditions) {
  const std::vector<st::testing::KnownSpec> k = {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}},
                                                 {"D", R::Input, {2}},    {"Q", R::Input, {2}},
                                                 {"E", R::Output, {2, 3}}, {"F", R::Output, {2, 4}}};
  const std::string n1 = "B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=A_{tx,a}*D_{tx};];";
  // B6: the broadcast operand differs (D vs Q).
  auto b6 = make_task(n1 + "B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=C_{tx,a}*Q_{tx};];", k);
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", b6), Ids{});
  EXPECT_THROW(apply_id("tensor_concat_to_fuse_operators@0{axis=1}", b6), st::StrategyError);
  // Different operators.
  auto op = make_task(n1 + "B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=C_{tx,a}+D_{tx};];", k);
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", op), Ids{});
  // Output dtypes differ.
  auto dt = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=A_{tx,a}*D_{tx};];"
                      "B^{2}_{tx=0}L^{4}_{a=0}[F^{f64,g}_{tx,a}=C_{tx,a}*D_{tx};];",
                      {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}}, {"D", R::Input, {2}},
                       {"E", R::Output, {2, 3}}, {"F", R::Output, {2, 4}, steptp::ir::DType::F64}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", dt), Ids{});
  // A dependence: nest 1 reads E.
  auto dep = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];"
                       "B^{2}_{tx=0}L^{3}_{a=0}[G_{tx,a}=exp(E_{tx,a});];",
                       {{"A", R::Input, {2, 3}}, {"E", R::Output, {2, 3}}, {"G", R::Output, {2, 3}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", dep), Ids{});
  // Headers differ at two positions.
  auto two = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];"
                       "B^{3}_{tx=0}L^{4}_{a=0}[F_{tx,a}=exp(C_{tx,a});];",
                       {{"A", R::Input, {2, 3}}, {"C", R::Input, {3, 4}}, {"E", R::Output, {2, 3}},
                        {"F", R::Output, {3, 4}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", two), Ids{});
  // The concat key is not a spatial key of the outputs (a reduction over a).
  auto red = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx}=exp(A_{tx,a});];B^{2}_{tx=0}L^{4}_{a=0}[F_{tx}=exp(C_{tx,a});];",
                       {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}}, {"E", R::Output, {2}},
                        {"F", R::Output, {2}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", red), Ids{});
  // A concatenated slot in a lazy branch.
  auto lazy = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=if_then_else(D_{tx}>0,A_{tx,a},0.0);];"
                        "B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=if_then_else(D_{tx}>0,C_{tx,a},0.0);];",
                        k);
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", lazy), Ids{});
}

// ---------------------------------------------------------------------------------------------------------------
// 5 tensor_split_to_decouple_operators
// ---------------------------------------------------------------------------------------------------------------

namespace {
const char* kSplitId = "tensor_split_to_decouple_operators@0/s0{variant=reduction,axis=c,v=4}";
}

TEST(TensorSplit, CatalogueExampleReduction) {
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];",
                     {{"A", R::Input, {8, 6}}, {"E", R::Input, {6, 4}}, {"D", R::Output, {8, 4}},
                      {"C", R::Input, {1}}});
  auto ids = candidate_ids("tensor_split_to_decouple_operators", t);
  // spatial tx (7) and a (3), then reduction c (5).
  ASSERT_EQ(ids.size(), 15u);
  EXPECT_EQ(ids[0], "tensor_split_to_decouple_operators@0/s0{variant=spatial,axis=tx,v=1}");
  EXPECT_EQ(ids[13], kSplitId);
  auto a = apply_id(kSplitId, t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[F_{tx,c}=A_{tx,c};G_{c,a}=E_{c,a};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{c=0}[H_{tx,c}=A_{tx,c+4};I_{c,a}=E_{c+4,a};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[J_{tx,a}=J_{tx,a}+F_{tx,c}*G_{c,a};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{c=0}[K_{tx,a}=K_{tx,a}+H_{tx,c}*I_{c,a};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}[D_{tx,a}=J_{tx,a}+K_{tx,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["variant"], "reduction");
  EXPECT_EQ(a.facts["axis"], nlohmann::json({{"key", "c"}, {"n", 6}}));
  EXPECT_EQ(a.facts["split_point"], 4);
  EXPECT_EQ(a.facts["reduction_op"], "+");
  EXPECT_EQ(a.facts["init_status"], "implicit");
  EXPECT_EQ(a.facts["new_nests"].size(), 5u);
  EXPECT_EQ(a.facts["names"], nlohmann::json({"F", "G", "H", "I", "J", "K"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(TensorSplit, ContinuingSubtractionAndMax) {
  // Continuing init: O = O + (P1 + P2); '-' combines with '+'. The combine runs over spatial loops only (B2).
  auto t = make_task("B^{4}_{tx=0}[D_{tx}=A_{tx,0};];"
                     "B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}[D_{tx}=D_{tx}-A_{tx,c}*Q_{a};];",
                     {{"A", R::Input, {4, 5}}, {"Q", R::Input, {3}}, {"D", R::Output, {4}}});
  auto a = apply_id("tensor_split_to_decouple_operators@1/s0{variant=reduction,axis=c,v=2}", t);
  EXPECT_EQ(a.facts["init_status"], "continuing");
  EXPECT_NE(leir(a).find(expand_refs("B^{4}_{tx=0}[D_{tx}=D_{tx}+(F_{tx}+G_{tx});];")), std::string::npos) << leir(a);
  EXPECT_TRUE(equivalent_in_class(t, a));
  auto m = make_task("B^{4}_{tx=0}L^{5}_{c=0}[D_{tx}=max(D_{tx},A_{tx,c});];",
                     {{"A", R::Input, {4, 5}}, {"D", R::Output, {4}}});
  auto b = apply_id("tensor_split_to_decouple_operators@0/s0{variant=reduction,axis=c,v=3}", m);
  EXPECT_EQ(b.cls, st::Exactness::Exact);
  EXPECT_TRUE(equivalent_in_class(m, b));
  check_all_candidates("tensor_split_to_decouple_operators", m);
}

TEST(TensorSplit, SpatialVariant) {
  auto t = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=exp(A_{tx,a})*Q_{tx}+a;];",
                     {{"A", R::Input, {4, 3}}, {"Q", R::Input, {4}}, {"C", R::Output, {4, 3}}});
  auto a = apply_id("tensor_split_to_decouple_operators@0/s0{variant=spatial,axis=a,v=1}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{1}_{a=0}[D_{tx,a}=A_{tx,a};];"
                                 "B^{4}_{tx=0}L^{2}_{a=0}[E_{tx,a}=A_{tx,a+1};];"
                                 "B^{4}_{tx=0}L^{1}_{a=0}[F_{tx,a}=exp(D_{tx,a})*Q_{tx}+a;];"
                                 "B^{4}_{tx=0}L^{2}_{a=0}[G_{tx,a}=exp(E_{tx,a})*Q_{tx}+(a+1);];"
                                 "B^{4}_{tx=0}L^{1}_{a=0}[C_{tx,a}=F_{tx,a};];"
                                 "B^{4}_{tx=0}L^{2}_{a=0}[C_{tx,a+1}=G_{tx,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates("tensor_split_to_decouple_operators", t), 5u);  // tx: 3, a: 2
}

TEST(TensorSplit, SiteConditions) {
  // Reads a buffer it writes (other than the accumulator); prefix form; lazy copy; s not injective in the axis.
  auto own = make_task("B^{4}_{tx=0}[C_{tx}=A_{tx}+C_{3-tx};];", {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  EXPECT_EQ(candidate_ids("tensor_split_to_decouple_operators", own), Ids{});
  EXPECT_THROW(apply_id("tensor_split_to_decouple_operators@0/s0{variant=spatial,axis=tx,v=1}", own),
               st::StrategyError);
  auto prefix = make_task("B^{1}_{tx=0}L^{4}_{a=0}[C_{a}=if_then_else(a-1<0,0.0,C_{a-1})+A_{a};];",
                          {{"A", R::Input, {4}}, {"C", R::Output, {4}}});
  EXPECT_EQ(candidate_ids("tensor_split_to_decouple_operators", prefix), Ids{});
  auto lazy = make_task("B^{4}_{tx=0}L^{3}_{a=0}[C_{tx}=C_{tx}+if_then_else(Q_{tx}>0,A_{tx,a},0.0);];",
                        {{"A", R::Input, {4, 3}}, {"Q", R::Input, {4}}, {"C", R::Output, {4}}});
  // a: its access is lazy (no reduction variant on a); tx: the spatial variant reads A_{tx,a} lazily too.
  EXPECT_EQ(candidate_ids("tensor_split_to_decouple_operators", lazy), Ids{});
  auto noninj = make_task("B^{4}_{tx=0}L^{4}_{a=0}[C_{tx,a,a}=A_{tx,a};];",
                          {{"A", R::Input, {4, 4}}, {"C", R::Output, {4, 4, 4}}});
  EXPECT_EQ(candidate_ids("tensor_split_to_decouple_operators", noninj).size(), 3u);  // tx only
}
