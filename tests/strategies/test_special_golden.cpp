// Golden before/after tests of the special strategies 36, 40 and 41 on the catalogue's examples (STRATEGIES.md
// §11), with their facts and numeric checks, plus one negative test per site condition.
#include <gtest/gtest.h>

#include "special_test_util.hpp"
#include "strategies/common.hpp"

namespace st = steptp::strategy;
using namespace st::testing;
using R = steptp::ir::Role;
using Ids = std::vector<std::string>;

namespace {
const char* kPrefixMax = "normal_loop_max_to_prefix_max";
const char* kSumExp = "normal_loop_summation_on_exp_to_prefix_summation_on_exp";
const char* kOnline = "online_softmax";

// The catalogue's fresh names assume a larger program: A, C, D, E are taken.
steptp::ir::Task max_task(const std::string& text) {
  return make_task(text, {{"A", R::Input, {8, 6}}, {"C", R::Input, {8, 6}}, {"E", R::Input, {8}},
                          {"D", R::Output, {8}}});
}
steptp::ir::Task pair_task(const std::string& text) {
  return make_task(text, {{"A", R::Input, {8, 6}}, {"C", R::Input, {8, 6}}, {"D", R::Output, {8}},
                          {"E", R::Output, {8}}});
}
steptp::ir::Task triple_task(const std::string& text) {
  return make_task(text, {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
}
}  // namespace

// ---- 36 normal_loop_max_to_prefix_max ----

TEST(SpecialPrefixMax, CatalogueExample) {
  auto t = max_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];");
  ASSERT_EQ(candidate_ids(kPrefixMax, t), (Ids{"normal_loop_max_to_prefix_max@0/s0"}));
  auto a = apply_id("normal_loop_max_to_prefix_max@0/s0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),A_{tx,a});];"
                                 "B^{8}_{tx=0}[D_{tx}=F_{tx,5};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["reduction"]["buffer"], "D");
  EXPECT_EQ(a.facts["reduction"]["subscript"], "D^{f32,g}_{tx}");
  EXPECT_EQ(a.facts["axis"], nlohmann::json({{"key", "a"}, {"extent", 6}}));
  EXPECT_EQ(a.facts["prefix_buffer"]["name"], "F");
  EXPECT_EQ(a.facts["extraction"], expand_refs("B^{8}_{tx=0}[D_{tx}=F_{tx,5};];"));
  EXPECT_EQ(a.facts["cost"]["elements_added"], 48);
  EXPECT_EQ(a.facts["growth_factor"], 6);
  EXPECT_EQ(a.facts["names"], nlohmann::json::array({"F"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialPrefixMax, AxisInTheMiddleOfTheHeader) {
  // k between two spatial loops: the prefix subscript is s plus k; the extraction runs over the spatial loops in
  // header order (§7.5). A and D only are taken, so the fresh name is C.
  auto t = make_task("B^{4}_{tx=0}L^{6}_{a=0}L^{3}_{c=0}[D_{tx,c}=max(D_{tx,c},A_{tx,a,c});];",
                     {{"A", R::Input, {4, 6, 3}}, {"D", R::Output, {4, 3}}});
  auto a = apply_id("normal_loop_max_to_prefix_max@0/s0", t);
  EXPECT_EQ(leir(a), expand_refs("B^{4}_{tx=0}L^{6}_{a=0}L^{3}_{c=0}[C_{tx,c,a}=max(if_then_else(a-1<0,-inf,"
                                 "C_{tx,c,a-1}),A_{tx,a,c});];B^{4}_{tx=0}L^{3}_{c=0}[D_{tx,c}=C_{tx,c,5};];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialPrefixMax, NegativeSites) {
  // B4: a max below the root (a sum of ReLUs) is no max reduction.
  EXPECT_TRUE(candidate_ids(kPrefixMax, max_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=D_{tx}+max(A_{tx,a},0);];")).empty());
  EXPECT_TRUE(candidate_ids(kPrefixMax, max_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a})+1;];")).empty());
  // Continuing init: an earlier statement writes D.
  EXPECT_TRUE(candidate_ids(kPrefixMax, max_task("B^{8}_{tx=0}[D_{tx}=0;];"
                                                 "B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];"))
                  .empty());
  // Two reduction keys.
  auto t2 = make_task("B^{8}_{tx=0}L^{6}_{a=0}L^{3}_{c=0}[D_{tx}=max(D_{tx},A_{tx,a,c});];",
                      {{"A", R::Input, {8, 6, 3}}, {"D", R::Output, {8}}});
  EXPECT_TRUE(candidate_ids(kPrefixMax, t2).empty());
  // Not a single-statement nest.
  EXPECT_TRUE(candidate_ids(kPrefixMax, max_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});"
                                                 "H_{tx,a}=A_{tx,a};];"))
                  .empty());
  // The reduction key is the bound loop (Softmax_dim0's form): the prefix would run across threads.
  EXPECT_TRUE(candidate_ids(kPrefixMax, make_task("B^{6}_{tx=0}L^{8}_{a=0}[D_{a}=max(D_{a},A_{a,tx});];",
                                                  {{"A", R::Input, {8, 6}}, {"D", R::Output, {8}}}))
                  .empty());
  // An integer accumulator (no -inf identity in the prefix form).
  EXPECT_TRUE(candidate_ids(kPrefixMax, make_task("B^{8}_{tx=0}L^{6}_{a=0}[D^{i32,g}_{tx}=max(D^{i32,g}_{tx},A^{i32,g}_{tx,a});];",
                                                  {{"A", R::Input, {8, 6}, steptp::ir::DType::I32},
                                                   {"D", R::Output, {8}, steptp::ir::DType::I32}}))
                  .empty());
  // A min reduction.
  EXPECT_TRUE(candidate_ids(kPrefixMax, max_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=min(D_{tx},A_{tx,a});];")).empty());
}

TEST(SpecialPrefixMax, EverySiteAndStaleCandidate) {
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];"
                     "B^{6}_{tx=0}L^{8}_{a=0}[E_{tx}=max(E_{tx},A_{a,tx});];",
                     {{"A", R::Input, {8, 6}}, {"D", R::Output, {8}}, {"E", R::Output, {6}}});
  EXPECT_EQ(candidate_ids(kPrefixMax, t),
            (Ids{"normal_loop_max_to_prefix_max@0/s0", "normal_loop_max_to_prefix_max@1/s0"}));
  EXPECT_EQ(check_all_candidates(kPrefixMax, t), 2u);
  auto a = apply_id("normal_loop_max_to_prefix_max@0/s0", t);
  EXPECT_THROW(apply_id("normal_loop_max_to_prefix_max@3/s0", a.task), st::StrategyError);
}

// ---- 40 normal_loop_summation_on_exp_to_prefix_summation_on_exp ----

TEST(SpecialSumExp, CatalogueExample) {
  auto t = pair_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}"));
  const std::string id = std::string(kSumExp) + "@0/s0";
  ASSERT_EQ(candidate_ids(kSumExp, t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a),
            expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),A_{tx,a});"
                        "G_{tx,a}=if_then_else(a-1<0,1,G_{tx,a-1})*exp(if_then_else(a-1<0,-inf,F_{tx,a-1})-F_{tx,a})"
                        "+exp(A_{tx,a}-F_{tx,a});];B^{8}_{tx=0}[D_{tx}=F_{tx,5};E_{tx}=G_{tx,5};];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["max_nest"]["index"], 0);
  EXPECT_EQ(a.facts["sum_nest"]["index"], 1);
  EXPECT_EQ(a.facts["axis"], nlohmann::json({{"key", "a"}, {"extent", 6}}));
  EXPECT_EQ(a.facts["prefix_buffers"][0]["name"], "F");
  EXPECT_EQ(a.facts["prefix_buffers"][1]["name"], "G");
  EXPECT_EQ(a.facts["extraction"], expand_refs("B^{8}_{tx=0}[D_{tx}=F_{tx,5};E_{tx}=G_{tx,5};];"));
  EXPECT_EQ(a.facts["cost"]["elements_added"], 96);
  EXPECT_FALSE(a.facts.contains("conditions") && !a.facts["conditions"].empty());
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialSumExp, KeyRenamingBetweenHeaders) {
  auto t = pair_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];"
                     "B^{8}_{tx=0}L^{6}_{c=0}[E_{tx}=E_{tx}+exp(A_{tx,c}-D_{tx});];");
  ASSERT_EQ(candidate_ids(kSumExp, t).size(), 1u);
  EXPECT_EQ(check_all_candidates(kSumExp, t), 1u);
}

TEST(SpecialSumExp, NegativeSites) {
  // Headers differ (extent).
  EXPECT_TRUE(candidate_ids(kSumExp, make_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];"
                                               "B^{8}_{tx=0}L^{5}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];",
                                               {{"A", R::Input, {8, 6}}, {"D", R::Output, {8}}, {"E", R::Output, {8}}}))
                  .empty());
  // y' differs from y.
  EXPECT_TRUE(candidate_ids(kSumExp, pair_task(max_nest("A_{tx,a}") + sum_nest("C_{tx,a}"))).empty());
  // Not consecutive.
  EXPECT_TRUE(candidate_ids(kSumExp, make_task(max_nest("A_{tx,a}") + "B^{8}_{tx=0}[F_{tx}=1;];" + sum_nest("A_{tx,a}"),
                                               {{"A", R::Input, {8, 6}}, {"D", R::Output, {8}}, {"E", R::Output, {8}},
                                                {"F", R::Output, {8}}}))
                  .empty());
  // Continuing init of the sum.
  EXPECT_TRUE(candidate_ids(kSumExp, pair_task("B^{8}_{tx=0}[E_{tx}=1;];" + max_nest("A_{tx,a}") + sum_nest("A_{tx,a}")))
                  .empty());
  // The sum subtracts something other than M.
  EXPECT_TRUE(candidate_ids(kSumExp, pair_task(max_nest("A_{tx,a}") +
                                               "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-C_{tx,a});];"))
                  .empty());
  // The sum reads M at another subscript than the max writes.
  EXPECT_TRUE(candidate_ids(kSumExp, make_task(max_nest("A_{tx,a}") +
                                               "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{a});];",
                                               {{"A", R::Input, {8, 6}}, {"D", R::Output, {8}}, {"E", R::Output, {8}}}))
                  .empty());
  // Sum not over exp.
  EXPECT_TRUE(candidate_ids(kSumExp, pair_task(max_nest("A_{tx,a}") +
                                               "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+(A_{tx,a}-D_{tx});];"))
                  .empty());
}

// ---- 41 online_softmax ----

TEST(SpecialOnlineSoftmax, CatalogueExample) {
  auto t = triple_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") + div_nest("A_{tx,a}"));
  ASSERT_EQ(candidate_ids(kOnline, t), (Ids{"online_softmax@2/s0"}));
  auto a = apply_id("online_softmax@2/s0", t);
  EXPECT_EQ(leir(a),
            expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),A_{tx,a});"
                        "G_{tx,a}=if_then_else(a-1<0,1,G_{tx,a-1})*exp(if_then_else(a-1<0,-inf,F_{tx,a-1})-F_{tx,a})"
                        "+exp(A_{tx,a}-F_{tx,a});];"
                        "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=exp(A_{tx,a}-F_{tx,5})/G_{tx,5};];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["max_nest"]["index"], 0);
  EXPECT_EQ(a.facts["sum_nest"]["index"], 1);
  EXPECT_EQ(a.facts["div_nest"]["path"], nlohmann::json::array({2}));
  EXPECT_EQ(a.facts["axis"], nlohmann::json({{"key", "a"}, {"extent", 6}}));
  EXPECT_EQ(a.facts["extractions_kept"], nlohmann::json::array());
  EXPECT_EQ(a.facts["prefix_buffers"][1]["name"], "G");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialOnlineSoftmax, KnownMaxIsExtracted) {
  auto t = make_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") + div_nest("A_{tx,a}"),
                     {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}, {"D", R::Output, {8}}});
  auto a = apply_id("online_softmax@2/s0", t);
  EXPECT_EQ(a.facts["extractions_kept"], nlohmann::json::array({"D"}));
  EXPECT_NE(leir(a).find(expand_refs("B^{8}_{tx=0}[D_{tx}=F_{tx,5};];")), std::string::npos);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialOnlineSoftmax, NoTripleGivesEmptyList) {  // B21
  EXPECT_TRUE(candidate_ids(kOnline, pair_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}"))).empty());
  EXPECT_TRUE(candidate_ids(kOnline, triple_task("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a};];")).empty());
}

TEST(SpecialOnlineSoftmax, EveryTripleIsASite) {
  auto t = make_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") + div_nest("A_{tx,a}") +
                         max_nest("H_{tx,a}", "I") + sum_nest("H_{tx,a}", "I", "J") +
                         div_nest("H_{tx,a}", "K", "I", "J"),
                     {{"A", R::Input, {8, 6}}, {"H", R::Input, {8, 6}}, {"C", R::Output, {8, 6}},
                      {"K", R::Output, {8, 6}}});
  EXPECT_EQ(candidate_ids(kOnline, t), (Ids{"online_softmax@2/s0", "online_softmax@5/s0"}));
  EXPECT_EQ(check_all_candidates(kOnline, t), 2u);
}

TEST(SpecialOnlineSoftmax, NegativeSites) {
  // y'' differs from y.
  EXPECT_TRUE(candidate_ids(kOnline, make_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") + div_nest("H_{tx,a}"),
                                               {{"A", R::Input, {8, 6}}, {"H", R::Input, {8, 6}},
                                                {"C", R::Output, {8, 6}}}))
                  .empty());
  // A write to M between the sum and the normalisation.
  EXPECT_TRUE(candidate_ids(kOnline, triple_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") +
                                                 "B^{8}_{tx=0}[D_{tx}=D_{tx}*2;];" + div_nest("A_{tx,a}")))
                  .empty());
  // A write to S between the sum and the normalisation.
  EXPECT_TRUE(candidate_ids(kOnline, triple_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") +
                                                 "B^{8}_{tx=0}[E_{tx}=E_{tx}+1;];" + div_nest("A_{tx,a}")))
                  .empty());
  // The normalisation divides by something else.
  EXPECT_TRUE(candidate_ids(kOnline, triple_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") +
                                                 "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=exp(A_{tx,a}-D_{tx})*E_{tx};];"))
                  .empty());
}

TEST(SpecialOnlineSoftmax, NormalisationWithOtherKeys) {
  // y'' equals y up to a key renaming (the normalisation nest uses c and its own header order).
  auto t = triple_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") +
                       "B^{8}_{tx=0}L^{6}_{c=0}[C_{tx,c}=exp(A_{tx,c}-D_{tx})/E_{tx};];");
  ASSERT_EQ(candidate_ids(kOnline, t), (Ids{"online_softmax@2/s0"}));
  auto a = apply_id("online_softmax@2/s0", t);
  EXPECT_NE(leir(a).find(expand_refs("[C_{tx,c}=exp(A_{tx,c}-F_{tx,5})/G_{tx,5};]")), std::string::npos);
  EXPECT_TRUE(equivalent_in_class(t, a));
  // A renaming that is not consistent with M's subscript (D read at c) is no site.
  EXPECT_TRUE(candidate_ids(kOnline, make_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") +
                                               "B^{8}_{tx=0}L^{6}_{c=0}[C_{tx,c}=exp(A_{tx,c}-D_{c})/E_{tx};];",
                                               {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}}))
                  .empty());
}

TEST(SpecialOnlineSoftmax, NestsBetweenAreKept) {
  auto t = make_task(max_nest("A_{tx,a}") + sum_nest("A_{tx,a}") + "B^{8}_{tx=0}[H_{tx}=E_{tx}*2;];" +
                         div_nest("A_{tx,a}"),
                     {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}, {"H", R::Output, {8}}});
  ASSERT_EQ(candidate_ids(kOnline, t), (Ids{"online_softmax@3/s0"}));
  auto a = apply_id("online_softmax@3/s0", t);
  EXPECT_EQ(a.facts["extractions_kept"], nlohmann::json::array({"E"}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}
