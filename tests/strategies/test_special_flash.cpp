// flashattention_wo_tiling (STRATEGIES.md §11 entry 42): the catalogue's example written out in full (the
// catalogue elides the bodies), re-parsing of the nested output, V layouts (B8), kept nests (B22, §7.1) and the
// negative site conditions.
#include <gtest/gtest.h>

#include "special_test_util.hpp"
#include "strategies/common.hpp"

namespace st = steptp::strategy;
using namespace st::testing;
using R = steptp::ir::Role;
using Ids = std::vector<std::string>;

namespace {
const char* kFlash = "flashattention_wo_tiling";

// Scores S_{tx,a} (4x5), values Y (5x2; the catalogue calls them V, a reserved LEIR name); A is taken so that the fresh names are F, G, H as in the catalogue.
const std::string kSoftmax =
    "B^{4}_{tx=0}L^{5}_{a=0}[D_{tx}=max(D_{tx},S_{tx,a});];"
    "B^{4}_{tx=0}L^{5}_{a=0}[E_{tx}=E_{tx}+exp(S_{tx,a}-D_{tx});];"
    "B^{4}_{tx=0}L^{5}_{a=0}[C_{tx,a}=exp(S_{tx,a}-D_{tx})/E_{tx};];";
const std::string kProduct = "B^{4}_{tx=0}L^{2}_{c=0}L^{5}_{a=0}[O_{tx,c}=O_{tx,c}+C_{tx,a}*Y_{a,c};];";

std::vector<KnownSpec> known(std::vector<std::int64_t> v_shape = {5, 2}) {
  return {{"A", R::Input, {1}}, {"S", R::Input, {4, 5}}, {"Y", R::Input, v_shape}, {"O", R::Output, {4, 2}}};
}

// The fused nest of the catalogue's example, in full; `v` is V's access after substitution.
std::string fused(const std::string& scope, const std::string& v) {
  const std::string F = "F^{f32," + scope + "}", G = "G^{f32," + scope + "}";
  return "B^{4}_{tx=0}L^{5}_{a=0}[" + F + "_{tx,a}=max(if_then_else(a-1<0,-inf," + F + "_{tx,a-1}),S_{tx,a});" + G +
         "_{tx,a}=if_then_else(a-1<0,1," + G + "_{tx,a-1})*exp(if_then_else(a-1<0,-inf," + F + "_{tx,a-1})-" + F +
         "_{tx,a})+exp(S_{tx,a}-" + F + "_{tx,a});L^{2}_{c=0}[H_{tx,c,a}=if_then_else(a-1<0,1,H_{tx,c,a-1})*" +
         "if_then_else(a-1<0,1," + G + "_{tx,a-1})*exp(if_then_else(a-1<0,-inf," + F + "_{tx,a-1})-" + F +
         "_{tx,a})/" + G + "_{tx,a}+exp(S_{tx,a}-" + F + "_{tx,a})/" + G + "_{tx,a}*" + v + ";];];";
}
}  // namespace

TEST(SpecialFlash, CatalogueExampleInFull) {
  auto t = make_task(kSoftmax + kProduct, known());
  ASSERT_EQ(candidate_ids(kFlash, t), (Ids{"flashattention_wo_tiling@3/s0"}));
  auto a = apply_id("flashattention_wo_tiling@3/s0", t);
  const std::string expected = expand_refs(fused("l", "Y_{a,c}") + "B^{4}_{tx=0}L^{2}_{c=0}[O_{tx,c}=H_{tx,c,4};];");
  EXPECT_EQ(leir(a), expected);
  // Proper nesting: the output parses back to the same AST.
  auto back = steptp::ir::parse_program(leir(a));
  EXPECT_EQ(steptp::ir::print_program(back), leir(a));
  ASSERT_EQ(back.nests[0].body.size(), 3u);
  EXPECT_TRUE(back.nests[0].body[2].is_nest());
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["matmul_nest"]["index"], 3);
  EXPECT_EQ(a.facts["softmax_nests"].size(), 3u);
  EXPECT_EQ(a.facts["axis"], nlohmann::json({{"key", "a"}, {"extent", 5}}));
  EXPECT_EQ(a.facts["output_keys"], nlohmann::json::array({"c"}));
  EXPECT_EQ(a.facts["v_access"]["before"], "Y^{f32,g}_{a,c}");
  EXPECT_EQ(a.facts["v_access"]["after"], "Y^{f32,g}_{a,c}");
  EXPECT_EQ(a.facts["prefix_buffers"][0]["scope"], "l");
  EXPECT_EQ(a.facts["accumulator"]["name"], "H");
  EXPECT_EQ(a.facts["nests_kept"], nlohmann::json::array());
  EXPECT_EQ(a.facts["names"], nlohmann::json::array({"F", "G", "H", "c"}));
  EXPECT_EQ(a.facts["cost"]["elements_added"], 20 + 20 + 40);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialFlash, VLaidOutJK) {  // B8: V's access is substituted as written
  auto t = make_task(kSoftmax + "B^{4}_{tx=0}L^{2}_{c=0}L^{5}_{a=0}[O_{tx,c}=O_{tx,c}+Y_{c,a}*C_{tx,a};];",
                     known({2, 5}));
  ASSERT_EQ(candidate_ids(kFlash, t), (Ids{"flashattention_wo_tiling@3/s0"}));
  auto a = apply_id("flashattention_wo_tiling@3/s0", t);
  EXPECT_EQ(leir(a), expand_refs(fused("l", "Y_{c,a}") + "B^{4}_{tx=0}L^{2}_{c=0}[O_{tx,c}=H_{tx,c,4};];"));
  EXPECT_EQ(a.facts["v_access"]["after"], "Y^{f32,g}_{c,a}");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialFlash, ProductKeysRenamed) {
  // The product uses other keys and order (k outermost after tx); V [k,j] read through them.
  auto t = make_task(kSoftmax + "B^{4}_{tx=0}L^{5}_{d=0}L^{2}_{f=0}[O_{tx,f}=O_{tx,f}+C_{tx,d}*Y_{d,f};];", known());
  auto a = apply_id("flashattention_wo_tiling@3/s0", t);
  EXPECT_EQ(leir(a), expand_refs(fused("l", "Y_{a,c}") + "B^{4}_{tx=0}L^{2}_{f=0}[O_{tx,f}=H_{tx,f,4};];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialFlash, KnownPKeepsItsNest) {  // B22
  auto kn = known();
  kn.push_back({"C", R::Output, {4, 5}});
  auto t = make_task(kSoftmax + kProduct, kn);
  auto a = apply_id("flashattention_wo_tiling@3/s0", t);
  EXPECT_EQ(leir(a), expand_refs(fused("g", "Y_{a,c}") +
                                 "B^{4}_{tx=0}L^{5}_{a=0}[C_{tx,a}=exp(S_{tx,a}-F_{tx,4})/G_{tx,4};];"
                                 "B^{4}_{tx=0}L^{2}_{c=0}[O_{tx,c}=H_{tx,c,4};];"));
  EXPECT_EQ(a.facts["p_nest_kept"], true);
  EXPECT_EQ(a.facts["nests_kept"], nlohmann::json::array({2}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialFlash, PReadElsewhereKeepsItsNest) {  // B22
  auto kn = known();
  kn.push_back({"Q", R::Output, {4}});
  auto t = make_task(kSoftmax + kProduct + "B^{4}_{tx=0}L^{5}_{a=0}[Q_{tx}=Q_{tx}+C_{tx,a}*S_{tx,a};];", kn);
  // Q=Q+C*S is itself a product over the softmax axis (no key j): a second site, whose accumulator is not nested.
  ASSERT_EQ(candidate_ids(kFlash, t), (Ids{"flashattention_wo_tiling@3/s0", "flashattention_wo_tiling@4/s0"}));
  EXPECT_EQ(check_all_candidates(kFlash, t), 2u);
  auto q = apply_id("flashattention_wo_tiling@4/s0", t);
  EXPECT_NE(leir(q).find(expand_refs("+exp(S_{tx,a}-F_{tx,a})/G_{tx,a}*S_{tx,a};];")), std::string::npos) << leir(q);
  EXPECT_EQ(q.facts["output_keys"], nlohmann::json::array());
  auto a = apply_id("flashattention_wo_tiling@3/s0", t);
  EXPECT_EQ(a.facts["p_nest_kept"], true);
  EXPECT_NE(leir(a).find(expand_refs("[C_{tx,a}=exp(S_{tx,a}-F_{tx,4})/G_{tx,4};]")), std::string::npos);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialFlash, NestsBetweenAreKept) {
  auto kn = known();
  kn.push_back({"Q", R::Output, {4}});
  auto t = make_task(kSoftmax + "B^{4}_{tx=0}[Q_{tx}=S_{tx,0}*2;];" + kProduct, kn);
  ASSERT_EQ(candidate_ids(kFlash, t), (Ids{"flashattention_wo_tiling@4/s0"}));
  auto a = apply_id("flashattention_wo_tiling@4/s0", t);
  EXPECT_EQ(leir(a), expand_refs(fused("l", "Y_{a,c}") + "B^{4}_{tx=0}[Q_{tx}=S_{tx,0}*2;];" +
                                 "B^{4}_{tx=0}L^{2}_{c=0}[O_{tx,c}=H_{tx,c,4};];"));
  EXPECT_EQ(a.facts["nests_kept"], nlohmann::json::array({3}));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(SpecialFlash, NegativeSites) {
  // The product cannot move up past a write to V (value preservation, §7.1/§7.4).
  {
    auto t = make_task(kSoftmax + "B^{5}_{tx=0}L^{2}_{c=0}[W_{tx,c}=Y_{tx,c}*2;];" +
                           "B^{4}_{tx=0}L^{2}_{c=0}L^{5}_{a=0}[O_{tx,c}=O_{tx,c}+C_{tx,a}*W_{a,c};];",
                       known());
    EXPECT_TRUE(candidate_ids(kFlash, t).empty());
    auto t2 = make_task("B^{5}_{tx=0}L^{2}_{c=0}[W_{tx,c}=Y_{tx,c};];" + kSoftmax +
                            "B^{5}_{tx=0}L^{2}_{c=0}[W_{tx,c}=W_{tx,c}*2;];" +
                            "B^{4}_{tx=0}L^{2}_{c=0}L^{5}_{a=0}[O_{tx,c}=O_{tx,c}+C_{tx,a}*W_{a,c};];",
                        known());
    EXPECT_TRUE(candidate_ids(kFlash, t2).empty());
    // Written before the softmax and not after: the product may move up.
    auto t3 = make_task("B^{5}_{tx=0}L^{2}_{c=0}[W_{tx,c}=Y_{tx,c}*2;];" + kSoftmax +
                            "B^{4}_{tx=0}L^{2}_{c=0}L^{5}_{a=0}[O_{tx,c}=O_{tx,c}+C_{tx,a}*W_{a,c};];",
                        known());
    EXPECT_EQ(candidate_ids(kFlash, t3), (Ids{"flashattention_wo_tiling@4/s0"}));
    EXPECT_EQ(check_all_candidates(kFlash, t3), 1u);
  }
  // The scores' input is overwritten between the softmax and the product.
  {
    auto kn = known();
    auto t = make_task("B^{4}_{tx=0}L^{5}_{a=0}[W_{tx,a}=S_{tx,a};];" +
                           std::string("B^{4}_{tx=0}L^{5}_{a=0}[D_{tx}=max(D_{tx},W_{tx,a});];"
                                       "B^{4}_{tx=0}L^{5}_{a=0}[E_{tx}=E_{tx}+exp(W_{tx,a}-D_{tx});];"
                                       "B^{4}_{tx=0}L^{5}_{a=0}[C_{tx,a}=exp(W_{tx,a}-D_{tx})/E_{tx};];"
                                       "B^{4}_{tx=0}L^{5}_{a=0}[W_{tx,a}=W_{tx,a}*2;];") +
                           kProduct,
                       kn);
    EXPECT_TRUE(candidate_ids(kFlash, t).empty());
  }
  // The product does not reduce over the softmax axis.
  EXPECT_TRUE(candidate_ids(kFlash, make_task(kSoftmax + "B^{4}_{tx=0}L^{5}_{a=0}L^{2}_{c=0}[Q_{tx,a,c}=C_{tx,a}*Y_{a,c};];",
                                              {{"A", R::Input, {1}}, {"S", R::Input, {4, 5}}, {"Y", R::Input, {5, 2}},
                                               {"Q", R::Output, {4, 5, 2}}}))
                  .empty());
  // Reduction over the spatial key instead of k.
  EXPECT_TRUE(candidate_ids(kFlash, make_task(kSoftmax + "B^{5}_{tx=0}L^{4}_{a=0}[O_{tx}=O_{tx}+C_{a,tx}*Y_{a,0};];",
                                              {{"A", R::Input, {1}}, {"S", R::Input, {4, 5}}, {"Y", R::Input, {4, 2}},
                                               {"O", R::Output, {5}}}))
                  .empty());
  // No softmax: only a product.
  EXPECT_TRUE(candidate_ids(kFlash, make_task("B^{4}_{tx=0}L^{2}_{c=0}L^{5}_{a=0}[O_{tx,c}=O_{tx,c}+S_{tx,a}*Y_{a,c};];",
                                              known()))
                  .empty());
  // Continuing init of O.
  EXPECT_TRUE(candidate_ids(kFlash, make_task(kSoftmax + "B^{4}_{tx=0}L^{2}_{c=0}[O_{tx,c}=1;];" + kProduct, known()))
                  .empty());
}
