// Golden before/after tests of the GiNaC-based algebraic strategies (STRATEGIES.md §11 entries 23-34) on the
// catalogue's examples, with their facts and numeric checks, and one negative test per site condition.
#include <gtest/gtest.h>

#include "algebraic_test_util.hpp"

// ---- 23 factorization ----

TEST(AlgebraicFactorization, CatalogueExampleSqrfree) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+A_{tx}*E_{tx};];");
  ASSERT_EQ(candidate_ids("factorization", t), (Ids{"factorization@0/s0/e1{mode=sqrfree}"}));
  auto a = apply_id("factorization@0/s0/e1{mode=sqrfree}", t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}*(D_{tx}+E_{tx})"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["mode"], "sqrfree");
  EXPECT_EQ(a.facts["subexpr_before"], expand_refs("A_{tx}*D_{tx}+A_{tx}*E_{tx}"));
  EXPECT_EQ(a.facts["subexpr_after"], expand_refs("A_{tx}*(D_{tx}+E_{tx})"));
  EXPECT_EQ(a.facts["factors"], nlohmann::json::parse(expand_refs(
                                    R"x([{"factor":"A_{tx}","multiplicity":1},{"factor":"D_{tx}+E_{tx}","multiplicity":1}])x")));
  EXPECT_EQ(a.facts["atoms"].size(), 3u);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicFactorization, CatalogueExampleFull) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*A_{tx}-D_{tx}*D_{tx};];");
  // Square-free factorisation is trivial here; only the full mode is offered.
  ASSERT_EQ(candidate_ids("factorization", t), (Ids{"factorization@0/s0/e1{mode=full}"}));
  auto a = apply_id("factorization@0/s0/e1{mode=full}", t);
  EXPECT_EQ(leir(a), body("C_{tx}=(A_{tx}+D_{tx})*(A_{tx}-D_{tx})"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicFactorization, MultiplicityAndBothModes) {
  // A^2+2AD+D^2 = (A+D)^2: square-free finds the repeated factor; full gives the same, so it is not offered.
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*A_{tx}+2*A_{tx}*D_{tx}+D_{tx}*D_{tx};];");
  ASSERT_EQ(candidate_ids("factorization", t), (Ids{"factorization@0/s0/e1{mode=sqrfree}"}));
  auto a = apply_id("factorization@0/s0/e1{mode=sqrfree}", t);
  EXPECT_EQ(leir(a), body("C_{tx}=(A_{tx}+D_{tx})**2"));
  EXPECT_EQ(a.facts["factors"][0]["multiplicity"], 2);
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Both modes differ: A^3-A*D^2 = A*(A^2-D^2) square-free, A*(A+D)*(A-D) full.
  auto t2 = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*A_{tx}*A_{tx}-A_{tx}*D_{tx}*D_{tx};];");
  ASSERT_EQ(candidate_ids("factorization", t2),
            (Ids{"factorization@0/s0/e1{mode=sqrfree}", "factorization@0/s0/e1{mode=full}"}));
  EXPECT_EQ(leir(apply_id("factorization@0/s0/e1{mode=sqrfree}", t2)), body("C_{tx}=A_{tx}*(A_{tx}**2-D_{tx}**2)"));
  EXPECT_EQ(leir(apply_id("factorization@0/s0/e1{mode=full}", t2)),
            body("C_{tx}=A_{tx}*(A_{tx}+D_{tx})*(A_{tx}-D_{tx})"));
  EXPECT_EQ(check_all_candidates("factorization", t2), 2u);
}

TEST(AlgebraicFactorization, NegativeSites) {
  // A constant content only (2*A+2*D): one non-constant factor -> trivial.
  EXPECT_TRUE(candidate_ids("factorization", vec_task("B^{8}_{tx=0}[C_{tx}=2*A_{tx}+2*D_{tx};];")).empty());
  // Irreducible sum.
  EXPECT_TRUE(candidate_ids("factorization", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+E_{tx};];")).empty());
  // Not a polynomial (exp is not an atom).
  EXPECT_TRUE(candidate_ids("factorization",
                            vec_task("B^{8}_{tx=0}[C_{tx}=exp(A_{tx})*D_{tx}+exp(A_{tx})*E_{tx};];"))
                  .empty());
  // Not maximal: the factorable part A*D+A*E is a sub-sum of A*D+A*E+D, which does not factor.
  EXPECT_TRUE(candidate_ids("factorization", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+A_{tx}*E_{tx}+D_{tx};];"))
                  .empty());
  // B1: A_{tx} and A at another subscript are different atoms: A_{tx}*D + A_{7-tx}*D factors as D*(...), not 2*A*D.
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+A_{7-tx}*D_{tx};];");
  ASSERT_EQ(candidate_ids("factorization", t), (Ids{"factorization@0/s0/e1{mode=sqrfree}"}));
  EXPECT_EQ(leir(apply_id("factorization@0/s0/e1{mode=sqrfree}", t)), body("C_{tx}=(A_{tx}+A_{7-tx})*D_{tx}"));
}

// ---- 24 expand_factorization ----

TEST(AlgebraicExpandFactorization, CatalogueExample) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}+D_{tx})*(A_{tx}+E_{tx});];");
  ASSERT_EQ(candidate_ids("expand_factorization", t), (Ids{"expand_factorization@0/s0/e1"}));
  auto a = apply_id("expand_factorization@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}**2+A_{tx}*D_{tx}+A_{tx}*E_{tx}+D_{tx}*E_{tx}"));
  EXPECT_EQ(a.facts["term_count"], 4);
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicExpandFactorization, PowerOfASumAndNegatives) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}-D_{tx})**2;];");
  ASSERT_EQ(candidate_ids("expand_factorization", t), (Ids{"expand_factorization@0/s0/e1"}));
  EXPECT_EQ(leir(apply_id("expand_factorization@0/s0/e1", t)), body("C_{tx}=A_{tx}**2+D_{tx}**2-2*A_{tx}*D_{tx}"));
  EXPECT_EQ(check_all_candidates("expand_factorization", t), 1u);
  // n outside 2..4, one sum factor (expand_collect's), a product of monomials: no site.
  EXPECT_TRUE(candidate_ids("expand_factorization", vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}+D_{tx})**5;];")).empty());
  EXPECT_TRUE(candidate_ids("expand_factorization", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*(D_{tx}+E_{tx});];")).empty());
  EXPECT_TRUE(candidate_ids("expand_factorization", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}*E_{tx};];")).empty());
}

TEST(AlgebraicExpandFactorization, SumsExpectedToCancelAreRefused) {
  // Entry 24 "Refused": a value minus its own mean (a variance) and a difference guarded by an epsilon cancel when
  // expanded; `steptp equiv` rejected both (GroupNorm's variance, TripletMarginLoss's distance).
  auto var = make_task("B^{8}_{tx=0}L^{6}_{a=0}[M_{tx}=M_{tx}+A_{tx,a}/6.0;];"
                       "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx}=C_{tx}+(A_{tx,a}-M_{tx})**2;];",
                       {{"A", steptp::ir::Role::Input, {8, 6}}, {"C", steptp::ir::Role::Output, {8}}});
  EXPECT_TRUE(candidate_ids("expand_factorization", var).empty());
  EXPECT_TRUE(candidate_ids("expand_factorization", vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}-D_{tx}+1e-06)**2;];")).empty());
  // Independent inputs, and a literal that is no guard, stay sites.
  EXPECT_EQ(candidate_ids("expand_factorization", vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}-D_{tx}+0.5)**2;];")),
            (Ids{"expand_factorization@0/s0/e1"}));
}

// ---- 33 collect ----

TEST(AlgebraicCollect, CatalogueExample) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+A_{tx}*E_{tx}+D_{tx};];");
  const std::string va = expand_refs(R"x(collect@0/s0/e1{v="A_{tx}"})x");
  const std::string vd = expand_refs(R"x(collect@0/s0/e1{v="D_{tx}"})x");
  ASSERT_EQ(candidate_ids("collect", t), (Ids{va, vd}));
  auto a = apply_id(va, t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}*(D_{tx}+E_{tx})+D_{tx}"));
  EXPECT_EQ(a.facts["variable"], expand_refs("A_{tx}"));
  EXPECT_EQ(a.facts["groups"], nlohmann::json::parse(expand_refs(R"x({"0":"D_{tx}","1":"D_{tx}+E_{tx}"})x")));
  EXPECT_TRUE(equivalent_in_class(t, a));
  auto d = apply_id(vd, t);
  EXPECT_EQ(leir(d), body("C_{tx}=(A_{tx}+1)*D_{tx}+A_{tx}*E_{tx}"));
  EXPECT_TRUE(equivalent_in_class(t, d));
}

TEST(AlgebraicCollect, NegativeSites) {
  // No atom carries the same power in two terms.
  EXPECT_TRUE(candidate_ids("collect", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+E_{tx};];")).empty());
  // Same atom, different powers: nothing merges.
  EXPECT_TRUE(candidate_ids("collect", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx}+A_{tx}*A_{tx};];")).empty());
}

// ---- 34 expand_collect ----

TEST(AlgebraicExpandCollect, CatalogueExample) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*(D_{tx}+E_{tx})+D_{tx};];");
  ASSERT_EQ(candidate_ids("expand_collect", t), (Ids{"expand_collect@0/s0/e1.0"}));
  auto a = apply_id("expand_collect@0/s0/e1.0", t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}*D_{tx}+A_{tx}*E_{tx}+D_{tx}"));
  EXPECT_EQ(a.facts["distributed_factor"], expand_refs("A_{tx}"));
  EXPECT_EQ(a.facts["sum_before"], expand_refs("D_{tx}+E_{tx}"));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Two sums (expand_factorization's), no sum: no site.
  EXPECT_TRUE(candidate_ids("expand_collect", vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}+D_{tx})*(A_{tx}+E_{tx});];")).empty());
  EXPECT_TRUE(candidate_ids("expand_collect", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}*D_{tx};];")).empty());
}

// ---- the reduction target (§9.1) and opaque atoms ----

TEST(AlgebraicTarget, ReductionOperandOnlyAndOpaqueAtomsRestored) {
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}[C_{tx}=C_{tx}+(A_{tx,a}*max(D_{tx,a},0)+A_{tx,a}*E_{tx,a});];",
                     {{"A", R::Input, {8, 4}}, {"D", R::Input, {8, 4}}, {"E", R::Input, {8, 4}}, {"C", R::Output, {8}}});
  // The accumulator structure is kept: the target is the operand u (path 1.1, inside its parentheses 1.1.0).
  ASSERT_EQ(candidate_ids("factorization", t), (Ids{"factorization@0/s0/e1.1.0{mode=sqrfree}"}));
  auto a = apply_id("factorization@0/s0/e1.1.0{mode=sqrfree}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{4}_{a=0}[C_{tx}=C_{tx}+A_{tx,a}*(max(D_{tx,a},0)+E_{tx,a});];"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}
