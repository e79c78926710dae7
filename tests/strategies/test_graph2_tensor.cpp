// Golden before/after tests of graph strategies 4 tensor_concat_to_fuse_operators and
// 5 tensor_split_to_decouple_operators on the catalogue's examples (STRATEGIES.md §11), with their facts and
// numeric checks, plus one negative test per site condition.
#include <gtest/gtest.h>

#include "graph_memory_test_util.hpp"
#include "strategies/common.hpp"

namespace st = steptp::strategy;
using st::testing::apply_id;
using st::testing::candidate_ids;
using st::testing::check_all_candidates;
using st::testing::equivalent_in_class;
using st::testing::expand_refs;
using st::testing::leir;
using st::testing::make_task;
using R = steptp::ir::Role;
using Ids = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------------------------
// 4 tensor_concat_to_fuse_operators
// ---------------------------------------------------------------------------------------------------------------

TEST(TensorConcat, CatalogueExample) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=exp(C_{tx,a});];",
                     {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}}, {"E", R::Output, {2, 3}},
                      {"F", R::Output, {2, 4}}, {"D", R::Input, {1}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", t), (Ids{"tensor_concat_to_fuse_operators@0{axis=1}"}));
  auto a = apply_id("tensor_concat_to_fuse_operators@0{axis=1}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}L^{3}_{a=0}[G_{tx,a}=A_{tx,a};];B^{2}_{tx=0}L^{4}_{a=0}[G_{tx,a+3}=C_{tx,a};];"
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
                      {"E", R::Output, {2, 3}, steptp::ir::DType::F16}, {"F", R::Output, {2, 4}, steptp::ir::DType::F16}});
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
  auto dep = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];B^{2}_{tx=0}L^{3}_{a=0}[G_{tx,a}=exp(E_{tx,a});];",
                       {{"A", R::Input, {2, 3}}, {"E", R::Output, {2, 3}}, {"G", R::Output, {2, 3}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", dep), Ids{});
  // Headers differ at two positions.
  auto two = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=exp(A_{tx,a});];B^{3}_{tx=0}L^{4}_{a=0}[F_{tx,a}=exp(C_{tx,a});];",
                       {{"A", R::Input, {2, 3}}, {"C", R::Input, {3, 4}}, {"E", R::Output, {2, 3}},
                        {"F", R::Output, {3, 4}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", two), Ids{});
  // The concat key is not a spatial key of the outputs (a reduction over a).
  auto red = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx}=exp(A_{tx,a});];B^{2}_{tx=0}L^{4}_{a=0}[F_{tx}=exp(C_{tx,a});];",
                       {{"A", R::Input, {2, 3}}, {"C", R::Input, {2, 4}}, {"E", R::Output, {2}}, {"F", R::Output, {2}}});
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", red), Ids{});
  // A concatenated slot in a lazy branch.
  auto lazy = make_task("B^{2}_{tx=0}L^{3}_{a=0}[E_{tx,a}=if_then_else(D_{tx}>0,A_{tx,a},0.0);];"
                        "B^{2}_{tx=0}L^{4}_{a=0}[F_{tx,a}=if_then_else(D_{tx}>0,C_{tx,a},0.0);];",
                        k);
  EXPECT_EQ(candidate_ids("tensor_concat_to_fuse_operators", lazy), Ids{});
}
