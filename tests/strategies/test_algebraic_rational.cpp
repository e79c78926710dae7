// Golden tests of the rational-function strategies (STRATEGIES.md §11 entries 25-28): cancellation with its
// domain condition proven or guarded (§6 domain policy), expand_cancellation's multipliers, apart's partial
// fractions and together's common denominator, with facts and numeric checks; negative tests per site condition.
#include <gtest/gtest.h>

#include "graph_memory_test_util.hpp"
#include "strategies/config.hpp"

namespace {

using VR = steptp::ir::ValueRange;

steptp::ir::Task vec_task(const std::string& text, VR ra = VR::Any, VR rd = VR::Any) {
  return make_task(text, {{"A", R::Input, {8}, steptp::ir::DType::F32, ra},
                          {"D", R::Input, {8}, steptp::ir::DType::F32, rd},
                          {"E", R::Input, {8}},
                          {"C", R::Output, {8}}});
}

std::string body(const std::string& stmt) { return expand_refs("B^{8}_{tx=0}[" + stmt + ";];"); }

st::StrategyConfig guard_config() {
  st::StrategyConfig c;
  c.domain_policy = st::DomainPolicy::Guard;
  return c;
}

}  // namespace

// ---- 25 cancellation ----

TEST(AlgebraicCancellation, CatalogueExampleGuarded) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}*A_{tx}-D_{tx}*D_{tx})/(A_{tx}-D_{tx});];");
  // Under Prove (the default) A-D != 0 cannot be shown: no candidate.
  EXPECT_TRUE(candidate_ids("cancellation", t).empty());
  st::ScopedConfig guard(guard_config());
  ASSERT_EQ(candidate_ids("cancellation", t), (Ids{"cancellation@0/s0/e1"}));
  auto a = apply_id("cancellation@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=if_then_else(A_{tx}-D_{tx}!=0,A_{tx}+D_{tx},(A_{tx}*A_{tx}-D_{tx}*D_{tx})/"
                          "(A_{tx}-D_{tx}))"));
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  EXPECT_EQ(a.facts["cancelled_factor"], expand_refs("A_{tx}-D_{tx}"));
  ASSERT_EQ(a.facts["conditions"].size(), 1u);
  EXPECT_EQ(a.facts["conditions"][0]["expr"], expand_refs("A_{tx}-D_{tx}!=0"));
  EXPECT_EQ(a.facts["conditions"][0]["status"], "guarded");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicCancellation, ProvenByDeclaredRange) {
  // A declared positive: A+1 is positive, so the cancelled factor is proven non-zero and no guard is needed.
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}*A_{tx}-1)/(A_{tx}+1);];", VR::Positive);
  ASSERT_EQ(candidate_ids("cancellation", t), (Ids{"cancellation@0/s0/e1"}));
  auto a = apply_id("cancellation@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}-1"));
  EXPECT_EQ(a.facts["conditions"][0]["status"], "proven");
  EXPECT_EQ(a.facts["conditions"][0]["expr"], expand_refs("A_{tx}+1!=0"));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Coprime sides or a non-polynomial side: no site.
  EXPECT_TRUE(candidate_ids("cancellation", vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}+1)/(A_{tx}+2);];", VR::Positive))
                  .empty());
  EXPECT_TRUE(candidate_ids("cancellation", vec_task("B^{8}_{tx=0}[C_{tx}=exp(A_{tx})*A_{tx}/A_{tx}**2;];",
                                                     VR::Positive)).size() <= 1u);
}

// ---- 26 expand_cancellation ----

TEST(AlgebraicExpandCancellation, CatalogueExample) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=(exp(A_{tx})-1)/(exp(A_{tx})+1);];");
  const std::string id = expand_refs(R"x(expand_cancellation@0/s0/e1{q="exp(-A_{tx})"})x");
  ASSERT_EQ(candidate_ids("expand_cancellation", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=(1-exp(-A_{tx}))/(exp(-A_{tx})+1)"));
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  EXPECT_EQ(a.facts["multiplier"], expand_refs("exp(-A_{tx})"));
  for (const auto& c : a.facts["conditions"]) EXPECT_EQ(c["status"], "proven") << c.dump();
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicExpandCancellation, AtomMultiplierNeedsProofOrGuard) {
  // A and D are declared positive, E is not: under Prove the multipliers are D and A (first-occurrence order);
  // under Guard E joins them, its q != 0 guarded.
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=E_{tx}*D_{tx}/(A_{tx}+1);];", VR::Positive, VR::Positive);
  const std::string qd = expand_refs(R"x(expand_cancellation@0/s0/e1{q="D_{tx}"})x");
  const std::string qa = expand_refs(R"x(expand_cancellation@0/s0/e1{q="A_{tx}"})x");
  const std::string qe = expand_refs(R"x(expand_cancellation@0/s0/e1{q="E_{tx}"})x");
  ASSERT_EQ(candidate_ids("expand_cancellation", t), (Ids{qd, qa}));
  // §9.1 order: D's key [D] is a prefix of D*A's [D,A], so D comes first in the denominator.
  EXPECT_EQ(leir(apply_id(qd, t)), body("C_{tx}=E_{tx}*D_{tx}**2/(D_{tx}+D_{tx}*A_{tx})"));
  EXPECT_EQ(check_all_candidates("expand_cancellation", t), 2u);
  st::ScopedConfig guard(guard_config());
  ASSERT_EQ(candidate_ids("expand_cancellation", t), (Ids{qe, qd, qa}));
  auto a = apply_id(qe, t);
  EXPECT_EQ(a.facts["conditions"][0]["expr"], expand_refs("E_{tx}!=0"));
  EXPECT_EQ(a.facts["conditions"][0]["status"], "guarded");
  EXPECT_EQ(check_all_candidates("expand_cancellation", t), 3u);
}

// ---- 27 apart ----

TEST(AlgebraicApart, CatalogueExample) {
  // A declared positive: every pole factor (A+1, A+2) is proven non-zero (see AlgebraicTogether on poles).
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=1/((A_{tx}+1)*(A_{tx}+2));];", VR::Positive);
  const std::string id = expand_refs(R"x(apart@0/s0/e1{v="A_{tx}"})x");
  ASSERT_EQ(candidate_ids("apart", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=1/(A_{tx}+1)-1/(A_{tx}+2)"));
  // Class D, not the catalogue's R: the pole factors carry A+1 != 0 and A+2 != 0 (here proven), see
  // AlgebraicTogether.PolesNeedTheirDivisorsNonZero.
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  ASSERT_EQ(a.facts["conditions"].size(), 2u);
  EXPECT_EQ(a.facts["conditions"][0]["status"], "proven");
  EXPECT_EQ(a.facts["variable"], expand_refs("A_{tx}"));
  EXPECT_EQ(a.facts["polynomial_part"], "0");
  EXPECT_EQ(a.facts["denominator_factors"].size(), 2u);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicApart, PolynomialPartAndRepeatedFactor) {
  // deg N >= deg D: (A*A+1)/(A+1) = A - 1 + 2/(A+1).
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}*A_{tx}+1)/(A_{tx}+1);];", VR::Positive);
  const std::string id = expand_refs(R"x(apart@0/s0/e1{v="A_{tx}"})x");
  ASSERT_EQ(candidate_ids("apart", t), (Ids{id}));
  // Terms with equal keys ([A]) are ordered by their printed text: "2/(...)" before "A".
  EXPECT_EQ(leir(apply_id(id, t)), body("C_{tx}=2/(A_{tx}+1)+A_{tx}-1"));
  EXPECT_EQ(check_all_candidates("apart", t), 1u);
  // (A+3)/((A+1)**2*(A+2)): three partial fractions, one of them over (A+1)**2.
  auto t2 = vec_task("B^{8}_{tx=0}[C_{tx}=(A_{tx}+3)/((A_{tx}+1)**2*(A_{tx}+2));];", VR::Positive);
  EXPECT_EQ(check_all_candidates("apart", t2), 1u);
  // One factor and deg N < deg D: nothing to decompose.
  EXPECT_TRUE(candidate_ids("apart", vec_task("B^{8}_{tx=0}[C_{tx}=D_{tx}/(A_{tx}+1);];")).empty());
}

// ---- 28 together ----

TEST(AlgebraicTogether, CatalogueExample) {
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=1/A_{tx}+1/D_{tx};];", VR::Positive, VR::Positive);
  ASSERT_EQ(candidate_ids("together", t), (Ids{"together@0/s0/e1"}));
  auto a = apply_id("together@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=(A_{tx}+D_{tx})/(A_{tx}*D_{tx})"));
  EXPECT_EQ(a.facts["common_denominator"], expand_refs("A_{tx}*D_{tx}"));
  EXPECT_EQ(a.facts["denominators"], nlohmann::json::parse(expand_refs(R"x(["A_{tx}","D_{tx}"])x")));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // Shared factors: the lcm, not the product; nothing is cancelled.
  auto t2 = vec_task("B^{8}_{tx=0}[C_{tx}=1/(A_{tx}*D_{tx})+E_{tx}/A_{tx};];", VR::Positive, VR::Positive);
  EXPECT_EQ(leir(apply_id("together@0/s0/e1", t2)), body("C_{tx}=(D_{tx}*E_{tx}+1)/(A_{tx}*D_{tx})"));
  EXPECT_EQ(check_all_candidates("together", t2), 1u);
  // No denominator: no site.
  EXPECT_TRUE(candidate_ids("together", vec_task("B^{8}_{tx=0}[C_{tx}=A_{tx}+D_{tx}/2;];")).empty());
}

TEST(AlgebraicTogether, PolesNeedTheirDivisorsNonZero) {
  // At A=0 the original 1/(A*D)+E/A is inf+(+-inf or NaN) while (D*E+1)/(A*D) is +-inf: LEIR.md §11 counts
  // inf against NaN as a mismatch, so rearranged divisors carry d != 0 (a correction of §9.4, see the README).
  auto t = vec_task("B^{8}_{tx=0}[C_{tx}=1/(A_{tx}*D_{tx})+E_{tx}/A_{tx};];");
  EXPECT_TRUE(candidate_ids("together", t).empty());
  st::ScopedConfig guard(guard_config());
  auto a = apply_id("together@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=if_then_else(A_{tx}!=0&D_{tx}!=0,(D_{tx}*E_{tx}+1)/(A_{tx}*D_{tx}),1/(A_{tx}*D_{tx})+"
                          "E_{tx}/A_{tx})"));
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  EXPECT_TRUE(equivalent_in_class(t, a));
}
