// Golden before/after tests of the loop family on the catalogue's examples (STRATEGIES.md §11 entries 9-17),
// with their facts, plus negative tests (no candidate where the rule forbids one).
#include <gtest/gtest.h>

#include <algorithm>

#include "strategies/common.hpp"
#include "strategies/loop/loop_util.hpp"
#include "graph_memory_test_util.hpp"
#include "strategy_test_util.hpp"

namespace st = steptp::strategy;
using st::testing::apply_id;
using st::testing::candidate_ids;
using st::testing::expand_refs;
using st::testing::leir;
using st::testing::make_task;
using R = steptp::ir::Role;

using st::testing::catalogue_gemm;
using st::testing::has_id;
using st::testing::kCatalogueGemm;

TEST(LoopReorder, GemmSwapSpatialAndReduction) {
  auto t = catalogue_gemm();
  auto ids = candidate_ids("loop_reorder", t);
  EXPECT_EQ(ids, (std::vector<std::string>{"loop_reorder@0{p=0,q=1}", "loop_reorder@0{p=0,q=2}",
                                           "loop_reorder@0{p=1,q=2}"}));
  auto a = apply_id("loop_reorder@0{p=1,q=2}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{6}_{c=0}L^{4}_{a=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["class"], "E");
  EXPECT_EQ(a.facts["header_before"], "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}");
  EXPECT_EQ(a.facts["header_after"], "B^{8}_{tx=0}L^{6}_{c=0}L^{4}_{a=0}");
  EXPECT_EQ(a.facts["swapped"][0]["key"], "a");
  EXPECT_EQ(a.facts["swapped"][0]["role"], "spatial");
  EXPECT_EQ(a.facts["swapped"][1]["role"], "reduction");
  EXPECT_EQ(a.facts["legality"][0]["method"], "structural");  // single reduction statement
  EXPECT_EQ(a.facts["nests"]["removed"], nlohmann::json::array({0}));
  EXPECT_EQ(a.facts["candidate"], "loop_reorder@0{p=1,q=2}");
}

TEST(LoopReorder, SwappingTwoReductionKeysIsReassociation) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[S_{tx}=S_{tx}+A_{tx,a,c};];",
                     {{"A", R::Input, {2, 3, 4}}, {"S", R::Output, {2}}});
  EXPECT_EQ(apply_id("loop_reorder@0{p=1,q=2}", t).cls, st::Exactness::Reassoc);
  EXPECT_EQ(apply_id("loop_reorder@0{p=0,q=1}", t).cls, st::Exactness::Exact);
  auto m = make_task("B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[S_{tx}=max(S_{tx},A_{tx,a,c});];",
                     {{"A", R::Input, {2, 3, 4}}, {"S", R::Output, {2}}});
  EXPECT_EQ(apply_id("loop_reorder@0{p=1,q=2}", m).cls, st::Exactness::Exact);
}

TEST(LoopReorder, NoReassociationInAProgramThatDividesByARoot) {
  // Entry 9 "Refused": LayerNorm's mean over (a, c) is not reordered (class R) once the program divides by a
  // root; the spatial swap (E) still is, and the same reduction without the normalisation keeps every swap.
  const std::string mean = "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[S_{tx}=S_{tx}+A_{tx,a,c}/12.0;];";
  const std::vector<st::testing::KnownSpec> io{{"A", R::Input, {2, 3, 4}}, {"C", R::Output, {2, 3, 4}}};
  auto plain = make_task(mean + "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[C_{tx,a,c}=A_{tx,a,c}-S_{tx};];", io);
  EXPECT_TRUE(has_id(candidate_ids("loop_reorder", plain), "loop_reorder@0{p=1,q=2}"));
  auto norm = make_task(mean + "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[C_{tx,a,c}=(A_{tx,a,c}-S_{tx})/sqrt(S_{tx}**2+1e-05);];",
                        io);
  const auto ids = candidate_ids("loop_reorder", norm);
  EXPECT_FALSE(has_id(ids, "loop_reorder@0{p=1,q=2}"));
  EXPECT_TRUE(has_id(ids, "loop_reorder@0{p=0,q=1}"));
  // rfactor (entry 17) of the same + reduction is refused too.
  EXPECT_FALSE(candidate_ids("reduction_factorization", plain).empty());
  EXPECT_TRUE(candidate_ids("reduction_factorization", norm).empty());
}

TEST(ReductionFactorization, NormalisationStatisticsTakeLanesOnly) {
  // Entry 17 "Refused": in a program that divides by a root, LayerNorm's sums of x and of (x - mean)**2 over 8
  // elements take the lanes variant only (no split at v); the matrix product and the sum over its intermediate
  // (GroupNorm after a Gemm) take none.
  const std::vector<st::testing::KnownSpec> io{{"A", R::Input, {2, 8}}, {"C", R::Output, {2, 8}}};
  auto ln = make_task("B^{2}_{tx=0}L^{8}_{a=0}[M_{tx}=M_{tx}+A_{tx,a};];"
                      "B^{2}_{tx=0}L^{8}_{a=0}[Q_{tx}=Q_{tx}+(A_{tx,a}-M_{tx}/8.0)**2;];"
                      "B^{2}_{tx=0}L^{8}_{a=0}[C_{tx,a}=(A_{tx,a}-M_{tx}/8.0)/sqrt(Q_{tx}/8.0+1e-05);];",
                      io);
  EXPECT_EQ(candidate_ids("reduction_factorization", ln),
            (std::vector<std::string>{"reduction_factorization@0/s0{r=a,lanes=4}",
                                      "reduction_factorization@1/s0{r=a,lanes=4}"}));
  auto a = apply_id("reduction_factorization@1/s0{r=a,lanes=4}", ln);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}L^{8}_{a=0}[M_{tx}=M_{tx}+A_{tx,a};];"
                                 "B^{2}_{tx=0}L^{2}_{a=0}L^{4}_{c=0}[D_{tx,c}=D_{tx,c}+(A_{tx,a*4+c}-M_{tx}/8.0)**2;];"
                                 "B^{2}_{tx=0}L^{4}_{c=0}[Q_{tx}=Q_{tx}+D_{tx,c};];"
                                 "B^{2}_{tx=0}L^{8}_{a=0}[C_{tx,a}=(A_{tx,a}-M_{tx}/8.0)/sqrt(Q_{tx}/8.0+1e-05);];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_TRUE(st::testing::equivalent_in_class(ln, a));
  try {
    apply_id("reduction_factorization@0/s0{r=a,v=4}", ln);
    FAIL();
  } catch (const st::StrategyError& e) {
    EXPECT_NE(std::string(e.what()).find("lanes variant only"), std::string::npos) << e.what();
  }
  auto gn = make_task("B^{2}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[G_{tx,a}=G_{tx,a}+A_{tx,c}*W_{a,c};];"
                      "B^{2}_{tx=0}L^{8}_{a=0}[M_{tx}=M_{tx}+G_{tx,a};];"
                      "B^{2}_{tx=0}L^{8}_{a=0}[C_{tx,a}=(G_{tx,a}-M_{tx}/8.0)/sqrt(M_{tx}**2+1e-05);];",
                      {{"A", R::Input, {2, 8}}, {"W", R::Param, {8, 8}}, {"C", R::Output, {2, 8}}});
  EXPECT_TRUE(candidate_ids("reduction_factorization", gn).empty());
}

TEST(LoopReorder, IslClassWithTwoStatements) {
  // Two statements: the isl path decides; swapping the two reduction keys of S reorders its accumulation (R).
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[S_{tx}=S_{tx}+A_{tx,a,c};Q_{tx,a,c}=A_{tx,a,c}*2;];",
                     {{"A", R::Input, {2, 3, 4}}, {"Q", R::Output, {2, 3, 4}}, {"S", R::Output, {2}}});
  auto a = apply_id("loop_reorder@0{p=1,q=2}", t);
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["legality"][0]["method"], "isl");
  EXPECT_EQ(apply_id("loop_reorder@0{p=0,q=1}", t).cls, st::Exactness::Exact);
  // A max reduction is reordered exactly (E) — isl tags the dependence but max is associative.
  auto m = make_task("B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[S_{tx}=max(S_{tx},A_{tx,a,c});Q_{tx,a,c}=A_{tx,a,c}*2;];",
                     {{"A", R::Input, {2, 3, 4}}, {"Q", R::Output, {2, 3, 4}}, {"S", R::Output, {2}}});
  EXPECT_EQ(apply_id("loop_reorder@0{p=1,q=2}", m).cls, st::Exactness::Exact);
}

TEST(LoopReorder, NoSwapAcrossATrueDependence) {
  // Nest 1 has dependence distance (0, 1, -1) on (tx, a, c): only tx<->a keeps it lexicographically positive.
  auto t = make_task(
      "B^{4}_{tx=0}L^{6}_{a=0}L^{6}_{c=0}[X_{tx,a,c}=A_{tx,a,c};];"
      "B^{4}_{tx=0}L^{5}_{a=0}L^{5}_{c=0}[X_{tx,a+1,c}=X_{tx,a,c+1}+1;];",
      {{"A", R::Input, {4, 6, 6}}, {"X", R::Output, {4, 6, 6}}});
  auto ids = candidate_ids("loop_reorder", t);
  EXPECT_TRUE(has_id(ids, "loop_reorder@1{p=0,q=1}"));
  EXPECT_FALSE(has_id(ids, "loop_reorder@1{p=0,q=2}"));
  EXPECT_FALSE(has_id(ids, "loop_reorder@1{p=1,q=2}"));
  EXPECT_THROW(apply_id("loop_reorder@1{p=1,q=2}", t), st::StrategyError);
}

TEST(LoopReorder, UncheckedSwapsAreEverySwapAndApplyKeepsExactlyTheLegalOnes) {
  // The cost policy's lookahead ranks every swap before checking any (loop_util.hpp unchecked_reorders): each is
  // a candidate of enumerate's shape with the program apply would give, and apply accepts exactly enumerate's.
  auto t = make_task(
      "B^{4}_{tx=0}L^{6}_{a=0}L^{6}_{c=0}[X_{tx,a,c}=A_{tx,a,c};];"
      "B^{4}_{tx=0}L^{5}_{a=0}L^{5}_{c=0}[X_{tx,a+1,c}=X_{tx,a,c+1}+1;];",
      {{"A", R::Input, {4, 6, 6}}, {"X", R::Output, {4, 6, 6}}});
  const auto legal = candidate_ids("loop_reorder", t);
  const auto swaps = st::loop::unchecked_reorders(t);
  ASSERT_EQ(swaps.size(), 6u);  // three pairs in each of two nests
  std::size_t accepted = 0;
  for (const auto& [c, after] : swaps) {
    const std::string id = c.id();
    if (has_id(legal, id)) {
      ++accepted;
      EXPECT_EQ(leir(apply_id(id, t)), steptp::ir::print_program(after.program)) << id;
    } else {
      EXPECT_THROW(apply_id(id, t), st::StrategyError) << id;
    }
  }
  EXPECT_EQ(accepted, legal.size());
  EXPECT_TRUE(has_id(legal, "loop_reorder@1{p=0,q=1}"));
  EXPECT_FALSE(has_id(legal, "loop_reorder@1{p=1,q=2}"));
  // only the nests asked for (the cost policy asks for those its candidate changed)
  const std::set<std::uint32_t> second{1};
  const auto some = st::loop::unchecked_reorders(t, &second);
  ASSERT_EQ(some.size(), 3u);
  for (const auto& [c, after] : some) EXPECT_EQ(c.id().rfind("loop_reorder@1{", 0), 0u) << c.id();
}

TEST(LoopTiling, GemmCatalogueExample) {
  auto t = catalogue_gemm();
  auto a = apply_id("loop_tiling@0/l0{fx0=2,fy0=2}", t);
  EXPECT_EQ(leir(a), expand_refs("L^{2}_{d=0}L^{2}_{f=0}B^{4}_{tx=0}L^{2}_{a=0}L^{6}_{c=0}[D_{d*4+tx,f*2+a}=D_{d*4+tx,f*2+a}+"
                                 "A_{d*4+tx,c}*E_{c,f*2+a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Exact);
  EXPECT_EQ(a.facts["new_keys"], nlohmann::json::array({"d", "f"}));
  EXPECT_EQ(a.facts["factors"], nlohmann::json::parse("[[2,4],[2,2]]"));
  EXPECT_EQ(a.facts["names"], nlohmann::json::array({"d", "f"}));
  EXPECT_EQ(a.facts["substitution"][0], "tx -> d*4+tx");
  // (a, c): c is the only reduction key, so every element keeps its accumulation order (E).
  auto b = apply_id("loop_tiling@0/l1{fx0=2,fy0=3}", t);
  EXPECT_EQ(b.cls, st::Exactness::Exact);
  EXPECT_EQ(leir(b), expand_refs("B^{8}_{tx=0}L^{2}_{d=0}L^{3}_{f=0}L^{2}_{a=0}L^{2}_{c=0}[D_{tx,d*2+a}=D_{tx,d*2+a}+"
                                 "A_{tx,f*2+c}*E_{f*2+c,d*2+a};];"));
}

TEST(LoopTiling, IslClassWithTwoStatements) {
  // Two statements (isl path): tiling the two reduction keys of S reorders its accumulation (R); tiling
  // (tx, a) keeps it (E).
  auto t = make_task("B^{4}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[S_{tx}=S_{tx}+A_{tx,a,c};Q_{tx,a,c}=A_{tx,a,c}*2;];",
                     {{"A", R::Input, {4, 4, 4}}, {"Q", R::Output, {4, 4, 4}}, {"S", R::Output, {4}}});
  auto a = apply_id("loop_tiling@0/l1{fx0=2,fy0=2}", t);
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["legality"][1]["method"], "isl");
  EXPECT_EQ(apply_id("loop_tiling@0/l0{fx0=2,fy0=2}", t).cls, st::Exactness::Exact);
}

TEST(LoopTiling, TwoReductionKeysIsReassociation) {
  auto t = make_task("B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[S_{tx}=S_{tx}+A_{tx,a,c};];",
                     {{"A", R::Input, {2, 4, 4}}, {"S", R::Output, {2}}});
  EXPECT_EQ(apply_id("loop_tiling@0/l1{fx0=2,fy0=2}", t).cls, st::Exactness::Reassoc);
}

TEST(LoopSplit, CatalogueExample) {
  auto t = catalogue_gemm();
  auto ids = candidate_ids("loop_split", t);
  EXPECT_EQ(ids, (std::vector<std::string>{"loop_split@0/l0{outer=2}", "loop_split@0/l0{outer=4}",
                                           "loop_split@0/l1{outer=2}", "loop_split@0/l2{outer=2}",
                                           "loop_split@0/l2{outer=3}"}));
  auto a = apply_id("loop_split@0/l2{outer=2}", t);
  EXPECT_EQ(leir(a),
            expand_refs("B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{d=0}L^{3}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,d*3+c}*E_{d*3+c,a};];"));
  EXPECT_EQ(a.facts["factors"], nlohmann::json::array({2, 3}));
  EXPECT_EQ(a.facts["new_key"], "d");
  EXPECT_EQ(a.facts["substitution"], "c -> d*3+c");
  EXPECT_EQ(a.facts["loop"]["kind"], "L");
}

TEST(LoopSplit, ValueUsesAreSubstitutedAndKeysAreScopeLocal) {
  // cumsum-like: c is used as a value in the guard; the fresh key skips keys used anywhere in the nest (B7).
  auto t = make_task("B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[C_{tx,a}=C_{tx,a}+if_then_else(c<=a,A_{tx,c},0);];"
                     "B^{2}_{tx=0}L^{4}_{d=0}[E_{tx,d}=C_{tx,d};];",
                     {{"A", R::Input, {2, 4}}, {"E", R::Output, {2, 4}}});
  auto a = apply_id("loop_split@0/l2{outer=2}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}L^{4}_{a=0}L^{2}_{d=0}L^{2}_{c=0}[C_{tx,a}=C_{tx,a}+"
                                 "if_then_else(d*2+c<=a,A_{tx,d*2+c},0);];B^{2}_{tx=0}L^{4}_{d=0}[E_{tx,d}=C_{tx,d};];"));
}

TEST(LoopFusion, InverseOfSplit) {
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{d=0}L^{3}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,d*3+c}*E_{d*3+c,a};];",
                     {{"A", R::Input, {8, 6}}, {"E", R::Input, {6, 4}}, {"D", R::Output, {8, 4}}});
  EXPECT_EQ(candidate_ids("loop_fusion", t), (std::vector<std::string>{"loop_fusion@0/l2"}));
  auto a = apply_id("loop_fusion@0/l2", t);
  EXPECT_EQ(leir(a), expand_refs(kCatalogueGemm));
  EXPECT_EQ(a.facts["merged"]["key"], "c");
  EXPECT_EQ(a.facts["merged"]["extent"], 6);
  EXPECT_EQ(a.facts["entries"][0]["before"], "d*3+c");
  EXPECT_EQ(a.facts["entries"][0]["after"], "c");
}

TEST(LoopFusion, RejectsSeparateUses) {
  // GroupNorm-like: a*8+c combined, but a is also used alone in F_{tx,a}.
  auto t = make_task("B^{2}_{tx=0}L^{2}_{a=0}L^{8}_{c=0}[F_{tx,a}=F_{tx,a}+A_{tx,a*8+c};];",
                     {{"A", R::Input, {2, 16}}, {"F", R::Output, {2, 2}}});
  EXPECT_TRUE(candidate_ids("loop_fusion", t).empty());
  // Both uses combined: a*8+c everywhere -> fusable (the B key tx is not combined with anything).
  auto u = make_task("B^{2}_{tx=0}L^{2}_{a=0}L^{8}_{c=0}[F_{tx,a*8+c}=A_{tx,a*8+c}*2;];",
                     {{"A", R::Input, {2, 16}}, {"F", R::Output, {2, 16}}});
  EXPECT_EQ(candidate_ids("loop_fusion", u), (std::vector<std::string>{"loop_fusion@0/l1"}));
  EXPECT_EQ(leir(apply_id("loop_fusion@0/l1", u)), expand_refs("B^{2}_{tx=0}L^{16}_{c=0}[F_{tx,c}=A_{tx,c}*2;];"));
}

TEST(LoopUnrolling, OnlySerialLoops) {
  auto t = catalogue_gemm();
  EXPECT_EQ(candidate_ids("loop_unrolling", t),
            (std::vector<std::string>{"loop_unrolling@0/l1", "loop_unrolling@0/l2"}));
  auto a = apply_id("loop_unrolling@0/l2", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}U^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];"));
  EXPECT_EQ(a.facts["kind_after"], "U");
}

TEST(LoopParallelization, SpatialLoopOnlyNeverReduction) {
  auto t = catalogue_gemm();
  EXPECT_EQ(candidate_ids("loop_parallelization", t), (std::vector<std::string>{"loop_parallelization@0/l1"}));
  auto a = apply_id("loop_parallelization@0/l1", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}P^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];"));
  EXPECT_EQ(a.facts["parallel_evidence"]["method"], "syntactic");
  // No bound loop encloses a: not offered.
  auto u = make_task("L^{4}_{a=0}B^{8}_{tx=0}[C_{a,tx}=A_{a,tx};];", {{"A", R::Input, {4, 8}}, {"C", R::Output, {4, 8}}});
  EXPECT_TRUE(candidate_ids("loop_parallelization", u).empty());
}

TEST(LoopParallelization, IslFindsCarriedDependence) {
  // Shifted update along a: the syntactic test fails; isl proves tx... and a carries the dependence.
  auto t = make_task(
      "B^{2}_{tx=0}L^{6}_{a=0}L^{3}_{c=0}[X_{tx,a,c}=A_{tx,a,c};];"
      "B^{2}_{tx=0}L^{5}_{a=0}L^{3}_{c=0}[X_{tx,a+1,c}=X_{tx,a,c}+1;];",
      {{"A", R::Input, {2, 6, 3}}, {"X", R::Output, {2, 6, 3}}});
  auto ids = candidate_ids("loop_parallelization", t);
  EXPECT_TRUE(has_id(ids, "loop_parallelization@0/l1"));
  EXPECT_FALSE(has_id(ids, "loop_parallelization@1/l1"));  // a carries the flow dependence
  EXPECT_TRUE(has_id(ids, "loop_parallelization@1/l2"));   // c does not (isl)
  auto a = apply_id("loop_parallelization@1/l2", t);
  EXPECT_EQ(a.facts["parallel_evidence"]["method"], "isl");
}

TEST(LoopVectorization, ShortSpatialLoop) {
  auto t = catalogue_gemm();
  EXPECT_EQ(candidate_ids("loop_vectorization", t), (std::vector<std::string>{"loop_vectorization@0/l1"}));
  auto a = apply_id("loop_vectorization@0/l1", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}V^{4}_{a=0}L^{6}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];"));
  EXPECT_EQ(a.facts["vector_width"], 4);
}

TEST(LoopVectorization, NeverAReductionLoop) {
  // Both a and c fit the vector width (4); c is the reduction loop of D, so only a is a site.
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];",
                     {{"A", R::Input, {8, 4}}, {"E", R::Input, {4, 4}}, {"D", R::Output, {8, 4}}});
  EXPECT_EQ(candidate_ids("loop_vectorization", t), (std::vector<std::string>{"loop_vectorization@0/l1"}));
  // Swapped so the reduction loop is innermost-but-one: still no candidate on c.
  auto u = make_task("B^{8}_{tx=0}L^{4}_{c=0}L^{4}_{a=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*E_{c,a};];",
                     {{"A", R::Input, {8, 4}}, {"E", R::Input, {4, 4}}, {"D", R::Output, {8, 4}}});
  EXPECT_EQ(candidate_ids("loop_vectorization", u), (std::vector<std::string>{"loop_vectorization@0/l2"}));
}

TEST(LoopBinding, CatalogueExample) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F_{tx,a}=F_{tx,a}+A_{tx,a,c,d};];",
                     {{"A", R::Input, {2, 3, 4, 5}}, {"F", R::Output, {2, 3}}});
  EXPECT_EQ(candidate_ids("loop_binding", t),
            (std::vector<std::string>{"loop_binding@0{loop=1,tag=ty}", "loop_binding@0{loop=1,tag=tz}",
                                      "loop_binding@0{loop=1,tag=bx}", "loop_binding@0{loop=1,tag=by}",
                                      "loop_binding@0{loop=1,tag=bz}"}));
  auto a = apply_id("loop_binding@0{loop=1,tag=ty}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}B^{3}_{tya=0}L^{4}_{c=0}L^{5}_{d=0}[F_{tx,tya}=F_{tx,tya}+A_{tx,tya,c,d};];"));
  EXPECT_EQ(a.facts["new_key"], "tya");
  EXPECT_EQ(a.facts["thread_product"], nlohmann::json::array({2, 6}));
}

TEST(LoopBinding, ThreadLimits) {
  // 512 threads already: ty=4 would make 2048 threads per block; tz=4 too. Block tags remain.
  auto t = make_task("B^{512}_{tx=0}L^{4}_{a=0}[C_{tx,a}=A_{tx,a};];", {{"A", R::Input, {512, 4}}, {"C", R::Output, {512, 4}}});
  EXPECT_EQ(candidate_ids("loop_binding", t),
            (std::vector<std::string>{"loop_binding@0{loop=1,tag=bx}", "loop_binding@0{loop=1,tag=by}",
                                      "loop_binding@0{loop=1,tag=bz}"}));
  // An extent over 65535 only fits blockIdx.x.
  auto u = make_task("B^{1}_{tx=0}L^{70000}_{a=0}[C_{tx,a}=A_{tx,a};];",
                     {{"A", R::Input, {1, 70000}}, {"C", R::Output, {1, 70000}}});
  EXPECT_EQ(candidate_ids("loop_binding", u), (std::vector<std::string>{"loop_binding@0{loop=1,tag=bx}"}));
}

TEST(ReductionFactorization, CatalogueExample) {
  // The catalogue's example is part of a larger program in which C is taken: declare it as a known buffer.
  auto t = make_task(kCatalogueGemm, {{"A", R::Input, {8, 6}}, {"C", R::Input, {1}}, {"E", R::Input, {6, 4}},
                             {"D", R::Output, {8, 4}}});
  auto ids = candidate_ids("reduction_factorization", t);
  ASSERT_EQ(ids.size(), 5u);  // r = c, v = 1..5
  EXPECT_EQ(ids[3], "reduction_factorization@0/s0{r=c,v=4}");
  auto a = apply_id("reduction_factorization@0/s0{r=c,v=4}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[F_{tx,a}=F_{tx,a}+A_{tx,c}*E_{c,a};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{c=0}[G_{tx,a}=G_{tx,a}+A_{tx,c+4}*E_{c+4,a};];"
                                 "B^{8}_{tx=0}L^{4}_{a=0}[D_{tx,a}=F_{tx,a}+G_{tx,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["init_status"], "implicit");
  EXPECT_EQ(a.facts["split_point"], 4);
  EXPECT_EQ(a.facts["names"], nlohmann::json::array({"F", "G"}));
  EXPECT_EQ(a.facts["buffers"]["created"].size(), 2u);
  EXPECT_EQ(a.facts["nests"]["added"], nlohmann::json::array({0, 1, 2}));
}

TEST(ReductionFactorization, MultiAxisAndContinuingAndMax) {
  // Two reduction keys: both partials reduce over all of them; the combine runs over spatial tx only (B2).
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[S_{tx}=S_{tx}+A_{tx,a,c};];",
                     {{"A", R::Input, {2, 3, 4}}, {"S", R::Output, {2}}});
  auto a = apply_id("reduction_factorization@0/s0{r=a,v=1}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}L^{1}_{a=0}L^{4}_{c=0}[C_{tx}=C_{tx}+A_{tx,a,c};];"
                                 "B^{2}_{tx=0}L^{2}_{a=0}L^{4}_{c=0}[D_{tx}=D_{tx}+A_{tx,a+1,c};];"
                                 "B^{2}_{tx=0}[S_{tx}=C_{tx}+D_{tx};];"));
  // Continuing accumulator (bias written first) and max: E, combine keeps the earlier contents.
  auto m = make_task("B^{2}_{tx=0}[S_{tx}=A_{tx,0,0};];B^{2}_{tx=0}L^{3}_{a=0}[S_{tx}=max(S_{tx},A_{tx,a,1});];",
                     {{"A", R::Input, {2, 3, 4}}, {"S", R::Output, {2}}});
  auto b = apply_id("reduction_factorization@1/s0{r=a,v=2}", m);
  EXPECT_EQ(b.cls, st::Exactness::Exact);
  EXPECT_EQ(b.facts["init_status"], "continuing");
  EXPECT_EQ(b.facts["combine"], expand_refs("B^{2}_{tx=0}[S_{tx}=max(S_{tx},max(C_{tx},D_{tx}));];"));
  // A 0-d accumulator reduced over the bound loop: the combine nest gets B^{1}_{tx=0} (§7.5).
  auto h = make_task("B^{4}_{tx=0}L^{2}_{a=0}[H=H+A_{tx,a};];", {{"A", R::Input, {4, 2}}, {"H", R::Output, {}}});
  auto c = apply_id("reduction_factorization@0/s0{r=tx,v=1}", h);
  EXPECT_EQ(c.facts["combine"], expand_refs("B^{1}_{tx=0}[H=C+D;];"));
}

TEST(ReductionFactorization, LanesMakeTheInnermostLoopSpatial) {
  // Matrix-vector: 8 = 2 x 4 lanes. The partial E_{tx,a} holds 4 independent sums per row (a fresh innermost key a),
  // the combine reduces them over a into D with D's own initialiser (implicit).
  auto t = make_task("B^{2}_{tx=0}L^{8}_{c=0}[D_{tx}=D_{tx}+A_{tx,c}*C_{c};];",
                     {{"A", R::Input, {2, 8}}, {"C", R::Input, {8}}, {"D", R::Output, {2}}});
  // lanes 4 (8/4 = 2 iterations; 8 lanes would leave one), then the 7 range splits (v = 1..7)
  EXPECT_EQ(candidate_ids("reduction_factorization", t).front(), "reduction_factorization@0/s0{r=c,lanes=4}");
  EXPECT_EQ(candidate_ids("reduction_factorization", t).size(), 8u);
  auto a = apply_id("reduction_factorization@0/s0{r=c,lanes=4}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{2}_{tx=0}L^{2}_{c=0}L^{4}_{a=0}[E_{tx,a}=E_{tx,a}+A_{tx,c*4+a}*C_{c*4+a};];"
                                 "B^{2}_{tx=0}L^{4}_{a=0}[D_{tx}=D_{tx}+E_{tx,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["lanes"], 4);
  EXPECT_EQ(a.facts["init_status"], "implicit");
  EXPECT_TRUE(st::testing::equivalent_in_class(t, a));
  // max with an earlier write (continuing), over two reduction keys: E, the combine continues from S's contents.
  auto m = make_task("B^{2}_{tx=0}[S_{tx}=A_{tx,0,0};];B^{2}_{tx=0}L^{3}_{a=0}L^{16}_{c=0}[S_{tx}=max(S_{tx},A_{tx,a,c});];",
                     {{"A", R::Input, {2, 3, 16}}, {"S", R::Output, {2}}});
  auto b = apply_id("reduction_factorization@1/s0{r=c,lanes=8}", m);
  EXPECT_EQ(b.cls, st::Exactness::Exact);
  EXPECT_EQ(b.facts["init_status"], "continuing");
  EXPECT_EQ(leir(b), expand_refs("B^{2}_{tx=0}[S_{tx}=A_{tx,0,0};];"
                                 "B^{2}_{tx=0}L^{3}_{a=0}L^{2}_{c=0}L^{8}_{d=0}[C_{tx,d}=max(C_{tx,d},A_{tx,a,c*8+d});];"
                                 "B^{2}_{tx=0}L^{8}_{d=0}[S_{tx}=max(S_{tx},C_{tx,d});];"));
  EXPECT_TRUE(st::testing::equivalent_in_class(m, b));
  // Subtraction: the partials hold the negated sums and are added.
  auto u = make_task("B^{1}_{tx=0}L^{8}_{c=0}[D_{tx}=D_{tx}-A_{tx,c};];", {{"A", R::Input, {1, 8}}, {"D", R::Output, {1}}});
  auto c = apply_id("reduction_factorization@0/s0{r=c,lanes=4}", u);
  EXPECT_EQ(c.facts["combine"], expand_refs("B^{1}_{tx=0}L^{4}_{a=0}[D_{tx}=D_{tx}+C_{tx,a};];"));
  EXPECT_TRUE(st::testing::equivalent_in_class(u, c));
  try {
    apply_id("reduction_factorization@0/s0{r=c,lanes=8}", t);
    FAIL();
  } catch (const st::StrategyError& e) {
    EXPECT_EQ(e.code(), "S002");
  }
}

TEST(StrategyApply, StaleAndBadCandidates) {
  auto t = catalogue_gemm();
  try {
    apply_id("loop_split@3/l0{outer=2}", t);
    FAIL();
  } catch (const st::StrategyError& e) {
    EXPECT_EQ(e.code(), "S001");
  }
  try {
    apply_id("loop_split@0/l2{outer=5}", t);
    FAIL();
  } catch (const st::StrategyError& e) {
    EXPECT_EQ(e.code(), "S002");
  }
}
