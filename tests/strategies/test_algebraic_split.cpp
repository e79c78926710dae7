// The identity-insertion strategies (STRATEGIES.md §11 entries 37 exponential_split, 38 multiplicative_split,
// 39 additive_split): the catalogue examples byte for byte with their facts, one negative test per site
// condition, the Prove/Guard domain policy of entry 38, B3 (the rest negated as a whole), and every candidate of
// small tasks applied, validated and checked numerically in its class.
#include <gtest/gtest.h>

#include <regex>

#include "algebraic_test_util.hpp"
#include "equiv/equivalence.hpp"
#include "equiv/options.hpp"

namespace {
const char* kExp = "exponential_split";
const char* kMul = "multiplicative_split";
const char* kAdd = "additive_split";

using steptp::ir::DType;

// Catalogue programs: A, C, D inputs [8,6] / [8] and the output named in the text.
steptp::ir::Task softmax_sum(const std::string& text) {
  return make_task(text, {{"A", R::Input, {8, 6}}, {"C", R::Input, {8}}, {"D", R::Input, {8}},
                          {"E", R::Output, {8}}});
}
steptp::ir::Task elementwise(const std::string& text) {
  return make_task(text, {{"A", R::Input, {8, 6}}, {"D", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
}

nlohmann::json prev_pivot(const std::string& buf, const std::string& identity) {
  return {{"kind", "previous element"},
          {"access", expand_refs(buf + "_{tx,a-1}")},
          {"expr", expand_refs("if_then_else(a-1<0," + identity + "," + buf + "_{tx,a-1})")},
          {"key", "a"}};
}
}  // namespace

// ---- 37 exponential_split ----

namespace {
/// The program with f64 buffers (refs without a superscript get ^{f64,g}) and softmax_sum's known list in f64.
steptp::ir::Task softmax_sum_f64(const std::string& text) {
  static const std::regex re(R"(([A-Z][a-z]*)(?![a-z\^]))");
  return make_task(std::regex_replace(text, re, "$1^{f64,g}"),
                   {{"A", R::Input, {8, 6}, DType::F64}, {"C", R::Input, {8}, DType::F64},
                    {"D", R::Input, {8}, DType::F64}, {"E", R::Output, {8}, DType::F64}});
}
/// Every candidate also passes `steptp equiv`'s full check (further draws: skewed, boundary, guided), issue #47.
std::size_t check_all_with_equiv(const std::string& strategy, const steptp::ir::Task& t) {
  std::size_t n = 0;
  for (const auto& c : st::enumerate_candidates(*st::find(strategy), t)) {
    const st::Applied a = st::find(strategy)->apply(t, c);
    const auto r = steptp::equiv::check_equivalence(t, a.task, steptp::equiv::cli_options());
    EXPECT_TRUE(r.equivalent) << c.id() << ": " << r.code << " " << r.message;
    ++n;
  }
  return n;
}
const char* kMaxNest = "B^{8}_{tx=0}L^{6}_{a=0}[G_{tx}=max(G_{tx},A_{tx,a});];";
}  // namespace

TEST(AlgebraicExponentialSplit, CatalogueExample) {
  // The softmax normaliser: G is the max written by nest 0 and the rest R itself, so exp(G-G) = exp(0).
  auto t = softmax_sum(std::string(kMaxNest) + "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx});];");
  ASSERT_EQ(candidate_ids(kExp, t), (Ids{"exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=multiply}",
                                         "exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=divide}"}));
  auto a = apply_id("exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=multiply}", t);
  EXPECT_EQ(leir(a), expand_refs(std::string(kMaxNest) +
                                 "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx})*exp(G_{tx}-G_{tx});];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["class"], "R");
  EXPECT_EQ(a.facts["statement"], expand_refs("E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx});"));
  EXPECT_EQ(a.facts["exp_node"]["printed"], expand_refs("exp(A_{tx,a}-G_{tx})"));
  EXPECT_EQ(a.facts["exp_node"]["path"], nlohmann::json::array({1, 1}));
  EXPECT_EQ(a.facts["X"], expand_refs("A_{tx,a}"));
  EXPECT_EQ(a.facts["rest"], expand_refs("G_{tx}"));
  EXPECT_EQ(a.facts["pivot"], nlohmann::json({{"kind", "earlier nest"},
                                              {"access", expand_refs("G_{tx}")},
                                              {"expr", expand_refs("G_{tx}")},
                                              {"nest", 0}}));
  EXPECT_EQ(a.facts["form"], "multiply");
  ASSERT_TRUE(a.facts["range_note"].is_string());
  EXPECT_NE(a.facts["range_note"].get<std::string>().find("overflow"), std::string::npos);
  EXPECT_EQ(a.facts["params"], nlohmann::json({{"pivot", "G_{tx}"}, {"form", "multiply"}}));
  EXPECT_TRUE(equivalent_in_class(t, a));

  auto d = apply_id("exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=divide}", t);
  EXPECT_EQ(leir(d), expand_refs(std::string(kMaxNest) +
                                 "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx})/exp(G_{tx}-G_{tx});];"));
  EXPECT_EQ(d.facts["form"], "divide");
  EXPECT_EQ(check_all_with_equiv(kExp, t), 2u);
}

TEST(AlgebraicExponentialSplit, B3TheRestIsNegatedAsAWhole) {
  // f64: the earlier-nest pivot G (magnitude at most 66) keeps both exponents within 700.
  auto t = softmax_sum_f64(std::string(kMaxNest) +
                           "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx}-C_{tx});];");
  const std::string f64_head = "B^{8}_{tx=0}L^{6}_{a=0}[G^{f64,g}_{tx}=max(G^{f64,g}_{tx},A^{f64,g}_{tx,a});];";
  auto d = apply_id("exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=divide}", t);
  EXPECT_EQ(leir(d), f64_head +
                         "B^{8}_{tx=0}L^{6}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-G^{f64,g}_{tx})/"
                         "exp(D^{f64,g}_{tx}+C^{f64,g}_{tx}-G^{f64,g}_{tx});];");
  EXPECT_EQ(d.facts["rest"], "D^{f64,g}_{tx}+C^{f64,g}_{tx}");
  auto m = apply_id("exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=multiply}", t);
  EXPECT_EQ(leir(m), f64_head +
                         "B^{8}_{tx=0}L^{6}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-G^{f64,g}_{tx})*"
                         "exp(G^{f64,g}_{tx}-(D^{f64,g}_{tx}+C^{f64,g}_{tx}));];");
  EXPECT_EQ(check_all_with_equiv(kExp, t), 2u);
  // A leading negative term and a positive one after X: exp(-D+A+C) has X = A and R = D-C.
  auto t2 = softmax_sum_f64(std::string(kMaxNest) +
                            "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(-D_{tx}+A_{tx,a}+C_{tx});];");
  auto d2 = apply_id("exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=divide}", t2);
  EXPECT_EQ(d2.facts["X"], "A^{f64,g}_{tx,a}");
  EXPECT_EQ(d2.facts["rest"], "D^{f64,g}_{tx}-C^{f64,g}_{tx}");
  EXPECT_TRUE(equivalent_in_class(t2, d2));
}

TEST(AlgebraicExponentialSplit, BoundsDependOnTheExpType) {
  // exp(A-G+D): R = G-D is not the pivot G. |A|+|G| <= 132 is past f32's 87 but within f64's 700.
  const std::string text =
      std::string(kMaxNest) + "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx}+D_{tx});];";
  EXPECT_TRUE(candidate_ids(kExp, softmax_sum(text)).empty());
  auto t = softmax_sum_f64(text);
  EXPECT_EQ(candidate_ids(kExp, t), (Ids{"exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=multiply}",
                                         "exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=divide}"}));
  auto a = apply_id("exponential_split@1/s0/e1.1{pivot=\"G_{tx}\",form=divide}", t);
  EXPECT_NE(a.facts["legality"].dump().find("within 700 (f64)"), std::string::npos) << a.facts["legality"].dump();
  EXPECT_EQ(check_all_with_equiv(kExp, t), 2u);
}

TEST(AlgebraicExponentialSplit, ThePreviousElementIsNeverAPivot) {
  // Offered before issue #47: exp(A-A_{a-1})*exp(A_{a-1}-D) fails `steptp equiv` (logits 2^10 apart overflow one
  // factor while the other flushes to 0), in f32 and in f64.
  const char* plain = "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];";
  EXPECT_TRUE(candidate_ids(kExp, softmax_sum(plain)).empty());
  EXPECT_TRUE(candidate_ids(kExp, softmax_sum_f64(plain)).empty());
}

TEST(AlgebraicExponentialSplit, OutputInTheArgumentIsNotASite) {
  auto ok = softmax_sum("B^{8}_{tx=0}[E_{tx}=C_{tx};];" + std::string(kMaxNest) +
                        "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx});];");
  EXPECT_EQ(candidate_ids(kExp, ok).size(), 2u);
  auto bad = softmax_sum("B^{8}_{tx=0}[E_{tx}=C_{tx};];" + std::string(kMaxNest) +
                         "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx}-E_{tx});];");
  EXPECT_TRUE(candidate_ids(kExp, bad).empty());
}

TEST(AlgebraicExponentialSplit, LazyBranchConditionAndNonSumsAreNotSites) {
  // With the pivot G available: exp inside a lazy branch, exp inside a condition, exp of a single term, exp whose
  // only positive term is not an access.
  auto with_g = [](const std::string& nest) { return softmax_sum(std::string(kMaxNest) + nest); };
  ASSERT_EQ(candidate_ids(kExp, with_g("B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-G_{tx});];")).size(), 2u);
  EXPECT_TRUE(candidate_ids(kExp, with_g("B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+if_then_else(a<3,"
                                         "exp(A_{tx,a}-G_{tx}),0.0);];"))
                  .empty());
  EXPECT_TRUE(
      candidate_ids(kExp, with_g("B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+(exp(A_{tx,a}-G_{tx})>1.0);];")).empty());
  EXPECT_TRUE(candidate_ids(kExp, with_g("B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a});];")).empty());
  EXPECT_TRUE(candidate_ids(kExp, with_g("B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(2.0*A_{tx,a}-G_{tx});];")).empty());
}

TEST(AlgebraicExponentialSplit, OperandsThatMayOverflowAreNotSplit) {
  // f64. S is a sum of 64 products: exp(S-N)*exp(N-C) could overflow where exp(S-C) does not (pivots.hpp
  // "magnitudes"). The same statement over a difference of inputs is split around S itself (entry 37, unlike 38
  // and 39, does not exclude X as its own pivot).
  const std::vector<st::testing::KnownSpec> known{{"A", R::Input, {4, 64}, DType::F64},
                                                  {"D", R::Input, {6, 64}, DType::F64},
                                                  {"C", R::Input, {4}, DType::F64},
                                                  {"E", R::Output, {4}, DType::F64}};
  auto f64 = [](const std::string& s) {
    static const std::regex re(R"(([A-Z][a-z]*)(?![a-z\^]))");
    return std::regex_replace(s, re, "$1^{f64,g}");
  };
  auto big = make_task(f64("B^{4}_{tx=0}L^{6}_{a=0}L^{64}_{c=0}[S_{tx,a}=S_{tx,a}+A_{tx,c}*D_{a,c};];"
                           "B^{4}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(S_{tx,a}-C_{tx});];"),
                       known);
  EXPECT_TRUE(candidate_ids(kExp, big).empty());
  auto small = make_task(f64("B^{4}_{tx=0}L^{6}_{a=0}[S_{tx,a}=A_{tx,a}-D_{a,a};];"
                             "B^{4}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(S_{tx,a}-C_{tx});];"),
                         known);
  EXPECT_EQ(candidate_ids(kExp, small), (Ids{"exponential_split@1/s0/e1.1{pivot=\"S_{tx,a}\",form=multiply}",
                                             "exponential_split@1/s0/e1.1{pivot=\"S_{tx,a}\",form=divide}"}));
  EXPECT_EQ(check_all_with_equiv(kExp, small), 2u);
}

// ---- 38 multiplicative_split ----

namespace {
// The catalogue's program for entry 38: F is written earlier as exp(A), so it is positive.
const char* kMulProgram =
    "B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=exp(A_{tx,a});];B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=F_{tx,a}*D_{tx,a};];";
}  // namespace

TEST(AlgebraicMultiplicativeSplit, CatalogueExampleProven) {
  auto t = elementwise(kMulProgram);
  // Prove (default): D/F*F with the earlier-nest pivot F, proven positive. F over its own previous element is
  // proven non-zero too, but may reach e^132, past f32 (QuotientsPastTheTypesRangeAreNotOffered). D's previous
  // element and A's are unknown (inputs without a declared range): not offered. F_{tx,a} is never its own pivot.
  ASSERT_EQ(candidate_ids(kMul, t), (Ids{"multiplicative_split@1/s0{occurrence=1,pivot=\"F_{tx,a}\"}"}));
  auto a = apply_id("multiplicative_split@1/s0{occurrence=1,pivot=\"F_{tx,a}\"}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=exp(A_{tx,a});];B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=F_{tx,a}*"
                                 "(D_{tx,a}/F_{tx,a}*F_{tx,a});];"));
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  EXPECT_EQ(a.facts["class"], "D");
  EXPECT_EQ(a.facts["statement"], expand_refs("C_{tx,a}=F_{tx,a}*D_{tx,a};"));
  EXPECT_EQ(a.facts["occurrence"]["printed"], expand_refs("D_{tx,a}"));
  EXPECT_EQ(a.facts["occurrence"]["path"], nlohmann::json::array({1, 1}));
  ASSERT_EQ(a.facts["conditions"].size(), 1u);
  const auto& c = a.facts["conditions"][0];
  EXPECT_EQ(c["kind"], "domain");
  EXPECT_EQ(c["expr"], expand_refs("F_{tx,a}!=0"));
  EXPECT_EQ(c["status"], "proven");
  EXPECT_FALSE(c["reason"].get<std::string>().empty());
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates(kMul, t), 1u);
}

TEST(AlgebraicMultiplicativeSplit, QuotientsPastTheTypesRangeAreNotOffered) {
  // F=exp(A) and E=exp(D) lie in [e^-66, e^66] (inputs up to 2^6, pivots.hpp "magnitudes"), so F/E or F over its
  // previous element may reach e^132: past f32's largest value, where typed runs divide (`steptp equiv` rejected
  // exp_exp's splits: inf*0), within f64's. D/F (at most 66*e^66) stays within f32.
  const std::string prog = "B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=exp(A_{tx,a});];"
                           "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx,a}=exp(D_{tx,a});];"
                           "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=F_{tx,a}*E_{tx,a};];";
  EXPECT_EQ(candidate_ids(kMul, make_task(prog, {{"A", R::Input, {8, 6}}, {"D", R::Input, {8, 6}},
                                                 {"C", R::Output, {8, 6}}})),
            (Ids{"multiplicative_split@1/s0{occurrence=0,pivot=\"F_{tx,a}\"}"}));
  static const std::regex re(R"(([A-Z][a-z]*)(?![a-z\^]))");
  auto f64 = make_task(std::regex_replace(prog, re, "$1^{f64,g}"),
                       {{"A", R::Input, {8, 6}, DType::F64}, {"D", R::Input, {8, 6}, DType::F64},
                        {"C", R::Output, {8, 6}, DType::F64}});
  EXPECT_EQ(candidate_ids(kMul, f64).size(), 5u);
}

TEST(AlgebraicMultiplicativeSplit, DeclaredPositiveInputIsProven) {
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a}*D_{tx,a};];",
                     {{"A", R::Input, {8, 6}, DType::F32, steptp::ir::ValueRange::Positive},
                      {"D", R::Input, {8, 6}},
                      {"C", R::Output, {8, 6}}});
  EXPECT_EQ(candidate_ids(kMul, t), (Ids{"multiplicative_split@0/s0{occurrence=0,pivot=prev}"}));
  EXPECT_EQ(check_all_candidates(kMul, t), 1u);
}

TEST(AlgebraicMultiplicativeSplit, GuardPolicyGuardsUnprovenDivisors) {
  auto t = elementwise(kMulProgram);
  st::ScopedConfig scoped(guard_config());
  // Every pair within the type's range is offered: A's and D's previous elements are guarded, the proven one stays
  // unguarded.
  ASSERT_EQ(candidate_ids(kMul, t), (Ids{"multiplicative_split@0/s0{occurrence=0,pivot=prev}",
                                         "multiplicative_split@1/s0{occurrence=1,pivot=prev}",
                                         "multiplicative_split@1/s0{occurrence=1,pivot=\"F_{tx,a}\"}"}));
  auto g = apply_id("multiplicative_split@1/s0{occurrence=1,pivot=prev}", t);
  EXPECT_EQ(leir(g), expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=exp(A_{tx,a});];B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=F_{tx,a}*"
                                 "if_then_else(if_then_else(a-1<0,1,D_{tx,a-1})!=0,D_{tx,a}/if_then_else(a-1<0,1,"
                                 "D_{tx,a-1})*if_then_else(a-1<0,1,D_{tx,a-1}),D_{tx,a});];"));
  EXPECT_EQ(g.cls, st::Exactness::Domain);
  ASSERT_EQ(g.facts["conditions"].size(), 1u);
  EXPECT_EQ(g.facts["conditions"][0]["status"], "guarded");
  EXPECT_EQ(g.facts["conditions"][0]["expr"], expand_refs("if_then_else(a-1<0,1,D_{tx,a-1})!=0"));
  // A proven divisor is not guarded under Guard either.
  auto p = apply_id("multiplicative_split@1/s0{occurrence=1,pivot=\"F_{tx,a}\"}", t);
  EXPECT_EQ(p.facts["conditions"][0]["status"], "proven");
  EXPECT_EQ(check_all_candidates(kMul, t), 3u);
}

TEST(AlgebraicMultiplicativeSplit, GuardMatchesTheOriginalWhereTheDivisorIsZero) {
  // D holds zeros in every other column (written as A*0 on even a): the guard must select the original there.
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a}=if_then_else(a%2==0,0.0,A_{tx,a});];"
                     "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a}*G_{tx,a};];",
                     {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
  EXPECT_TRUE(candidate_ids(kMul, t).empty());  // nothing proven
  st::ScopedConfig scoped(guard_config());
  auto a = apply_id("multiplicative_split@1/s0{occurrence=0,pivot=\"G_{tx,a}\"}", t);
  EXPECT_EQ(a.facts["conditions"][0]["status"], "guarded");
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates(kMul, t), 3u);
}

TEST(AlgebraicMultiplicativeSplit, LazyBranchesAndConditionsAreNotOccurrencesEvenUnderGuard) {
  st::ScopedConfig scoped(guard_config());
  EXPECT_TRUE(candidate_ids(kMul, elementwise("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=if_then_else(a<3,A_{tx,a},"
                                              "D_{tx,a});];"))
                  .empty());
  auto c = elementwise("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=(A_{tx,a}>0.0)*D_{tx,a};];");
  EXPECT_EQ(candidate_ids(kMul, c), (Ids{"multiplicative_split@0/s0{occurrence=0,pivot=prev}"}));
  EXPECT_EQ(check_all_candidates(kMul, c), 1u);
}

// ---- 39 additive_split ----

TEST(AlgebraicAdditiveSplit, CatalogueExample) {
  auto t = elementwise("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a}*D_{tx,a};];");
  ASSERT_EQ(candidate_ids(kAdd, t), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}",
                                         "additive_split@0/s0{occurrence=1,pivot=prev}"}));
  auto a = apply_id("additive_split@0/s0{occurrence=0,pivot=prev}", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=(A_{tx,a}+if_then_else(a-1<0,0,A_{tx,a-1})-"
                                 "if_then_else(a-1<0,0,A_{tx,a-1}))*D_{tx,a};];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["class"], "R");
  EXPECT_EQ(a.facts["statement"], expand_refs("C_{tx,a}=A_{tx,a}*D_{tx,a};"));
  EXPECT_EQ(a.facts["occurrence"]["printed"], expand_refs("A_{tx,a}"));
  EXPECT_EQ(a.facts["pivot"], prev_pivot("A", "0"));
  EXPECT_TRUE(a.facts["conditions"].is_null() || a.facts["conditions"].empty());
  EXPECT_TRUE(equivalent_in_class(t, a));
  EXPECT_EQ(check_all_candidates(kAdd, t), 2u);
}

TEST(AlgebraicAdditiveSplit, AccumulatorIsNeverAnOccurrence) {
  // G_{tx} is an earlier-nest pivot computed from A (X's own input buffer) whose keys cover E's; E itself (the
  // accumulator) gets none. A_{tx,0} in nest 0 has no previous element (its last entry is no loop key).
  auto t = softmax_sum("B^{8}_{tx=0}[G_{tx}=A_{tx,0}*0.5;];"
                       "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+A_{tx,a}*G_{tx};];");
  // G_{tx} gets its own previous element (occurrence 1) but is never its own pivot.
  EXPECT_EQ(candidate_ids(kAdd, t), (Ids{"additive_split@1/s0{occurrence=0,pivot=prev}",
                                         "additive_split@1/s0{occurrence=0,pivot=\"G_{tx}\"}",
                                         "additive_split@1/s0{occurrence=1,pivot=prev}"}));
  auto a = apply_id("additive_split@1/s0{occurrence=0,pivot=\"G_{tx}\"}", t);
  EXPECT_EQ(a.facts["occurrence"]["printed"], expand_refs("A_{tx,a}"));
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}[G_{tx}=A_{tx,0}*0.5;];"
                                 "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+(A_{tx,a}+G_{tx}-G_{tx})*G_{tx};];"));
  EXPECT_EQ(check_all_candidates(kAdd, t), 3u);
  // A pivot computed from other input buffers (C and D) is refused: the check's skewed draws scale each buffer
  // apart, so it may dwarf A (entry 39 "Refused pivots").
  auto other = softmax_sum("B^{8}_{tx=0}[G_{tx}=(C_{tx}+D_{tx})*0.5;];"
                           "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+A_{tx,a}*G_{tx};];");
  EXPECT_EQ(candidate_ids(kAdd, other), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}",
                                             "additive_split@0/s0{occurrence=1,pivot=prev}",
                                             "additive_split@1/s0{occurrence=0,pivot=prev}",
                                             "additive_split@1/s0{occurrence=1,pivot=prev}"}));
}

TEST(AlgebraicAdditiveSplit, LazyBranchesConditionsAndIntegersAreNotOccurrences) {
  EXPECT_TRUE(candidate_ids(kAdd, elementwise("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=if_then_else(a<3,A_{tx,a},"
                                              "D_{tx,a});];"))
                  .empty());
  // A in a condition: only D (occurrence 0) is eligible.
  auto c = elementwise("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=(A_{tx,a}>0.0)*D_{tx,a};];");
  EXPECT_EQ(candidate_ids(kAdd, c), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}"}));
  EXPECT_EQ(apply_id("additive_split@0/s0{occurrence=0,pivot=prev}", c).facts["occurrence"]["printed"],
            expand_refs("D_{tx,a}"));
  // A gathered entry: no previous element (I may select another element at a-1).
  auto g = make_task("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{I^{i32,g}_{tx},a}*D_{tx,a};];",
                     {{"A", R::Input, {8, 6}}, {"I", R::Input, {8}, DType::I32}, {"D", R::Input, {8, 6}},
                      {"C", R::Output, {8, 6}}});
  EXPECT_EQ(candidate_ids(kAdd, g), (Ids{"additive_split@0/s0{occurrence=1,pivot=prev}"}));
  // An integer operand is not an occurrence (an inserted float pivot would change the arithmetic's type).
  auto i = make_task("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=I^{i32,g}_{tx,a}*D_{tx,a};];",
                     {{"I", R::Input, {8, 6}, DType::I32}, {"D", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
  EXPECT_EQ(candidate_ids(kAdd, i), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}"}));
  EXPECT_EQ(apply_id("additive_split@0/s0{occurrence=0,pivot=prev}", i).facts["occurrence"]["printed"],
            expand_refs("D_{tx,a}"));
}

namespace {
// Site: C_{tx,a}=A_{tx,a}*D_{tx,a} after a nest writing G; the earlier-nest pivots of A are listed.
std::vector<std::string> earlier_pivots(const std::string& before, const std::string& site_extra = "") {
  auto t = make_task(before + "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a}*D_{tx,a};" + site_extra + "];",
                     {{"A", R::Input, {8, 6}}, {"D", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
  std::vector<std::string> out;
  const std::string site = std::to_string(t.program.nests.size() - 1) + "/s0{occurrence=0,pivot=";
  for (const auto& id : candidate_ids(kAdd, t))
    if (id.find(site) != std::string::npos && id.find("pivot=prev") == std::string::npos) out.push_back(id.substr(id.find("pivot=") + 6));
  return out;
}
}  // namespace

TEST(AlgebraicAdditiveSplit, EarlierNestPivotConditions) {
  // (A+A)*0.5 is at most 2^6 in magnitude: within the f32 bound 2^7 (an f32 A+A, up to 2^7.05, is not).
  const std::string g = "B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a}=(A_{tx,a}+A_{tx,a})*0.5;];";
  EXPECT_EQ(earlier_pivots(g), (Ids{"\"G_{tx,a}\"}"}));
  // Computed from D too: another input buffer, another scale under the skewed draws.
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a}=(A_{tx,a}+D_{tx,a})*0.5;];").empty());
  // Overwritten since: a later nest writes G again, with a subscript that cannot be a pivot.
  EXPECT_TRUE(earlier_pivots(g + "B^{8}_{tx=0}[G_{tx,0}=A_{tx,0};];").empty());
  // Overwritten in the site's own nest.
  EXPECT_TRUE(earlier_pivots(g, "G_{tx,a}=D_{tx,a};").empty());
  // Keys not a superset of the output's {tx,a}.
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}[G_{tx}=A_{tx,0};];").empty());
  // Keys not distinct / not plain.
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a,a}=A_{tx,a};];").empty());
  // Written over a smaller extent than the site reads.
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{3}_{a=0}[G_{tx,a}=A_{tx,a};];").empty());
  // bool and f64 pivots (not X's dtype).
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G^{bool,g}_{tx,a}=A_{tx,a}>0.0;];").empty());
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G^{f64,g}_{tx,a}=A_{tx,a};];").empty());
  // A defining statement with inf.
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a}=max(A_{tx,a},-inf);];").empty());
  // A shared-scope buffer cannot be read in another nest.
  EXPECT_EQ(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G^{f32,s}_{tx,a}=A_{tx,a};H_{tx,a}=G^{f32,s}_{tx,a};];"),
            (Ids{"\"H_{tx,a}\"}"}));
  // An exp-valued pivot is too large for (X+Y)-Y to keep X (pivots.hpp "magnitudes").
  EXPECT_TRUE(earlier_pivots("B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a}=exp(A_{tx,a});];").empty());
}

TEST(AlgebraicAdditiveSplit, NumeratorOfARatioOfXIsNotSplit) {
  // Entry 39 "Refused pivots": A in the numerator of a division whose divisor reads A keeps its relative error in
  // the ratio whatever A's scale; D, which the divisor does not read, is still split.
  auto t = elementwise("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a}*D_{tx,a}/(A_{tx,a}**2+1.0);];");
  EXPECT_EQ(candidate_ids(kAdd, t), (Ids{"additive_split@0/s0{occurrence=1,pivot=prev}"}));
}

TEST(AlgebraicAdditiveSplit, PreviousElementOfAnInfiniteBufferIsNotAPivot) {
  auto t = elementwise("B^{8}_{tx=0}L^{6}_{a=0}[G_{tx,a}=max(A_{tx,a},-inf);];"
                       "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=G_{tx,a}*D_{tx,a};];");
  // Only D's previous element at nest 1 (and A's at nest 0).
  EXPECT_EQ(candidate_ids(kAdd, t), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}",
                                         "additive_split@1/s0{occurrence=1,pivot=prev}"}));
}

TEST(AlgebraicAdditiveSplit, ParallelKeyOverABufferOfTheSameNest) {
  // F is written in the site's nest: its previous element along the bound key tx would read another thread's
  // write, so only the serial key a may be split along.
  auto t = elementwise("B^{8}_{tx=0}L^{6}_{a=0}[F_{a,tx}=A_{tx,a}+1.0;C_{tx,a}=F_{a,tx}*D_{tx,a};];");
  EXPECT_EQ(candidate_ids(kAdd, t), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}",
                                         "additive_split@0/s1{occurrence=1,pivot=prev}"}));
}

TEST(AlgebraicAdditiveSplit, ValuesThatDecideAComparisonOrAnIntegerAreNotRewritten) {
  // Argmax: D decides A>=D, so a rounding change in D flips the integer result C. Nothing is offered.
  auto argmax = make_task("B^{2}_{tx=0}L^{16}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});C^{i64,g}_{tx}=0;];"
                          "B^{2}_{tx=0}L^{16}_{a=0}[C^{i64,g}_{tx}=if_then_else(A_{tx,a}>=D_{tx},a,C^{i64,g}_{tx});];",
                          {{"A", R::Input, {2, 16}}, {"C", R::Output, {2}, DType::I64}});
  for (const char* s : {kExp, kMul, kAdd}) EXPECT_TRUE(candidate_ids(s, argmax).empty()) << s;
  // The same max feeding a float output is rewritten.
  auto maxout = make_task("B^{2}_{tx=0}L^{16}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];"
                          "B^{2}_{tx=0}[C_{tx}=D_{tx}*2.0;];",
                          {{"A", R::Input, {2, 16}}, {"C", R::Output, {2}}});
  EXPECT_EQ(candidate_ids(kAdd, maxout), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}",
                                              "additive_split@1/s0{occurrence=0,pivot=prev}"}));
  // A float product stored into an integer output.
  auto toint = make_task("B^{8}_{tx=0}L^{6}_{a=0}[C^{i32,g}_{tx,a}=A_{tx,a}*D_{tx,a};];",
                         {{"A", R::Input, {8, 6}}, {"D", R::Input, {8, 6}}, {"C", R::Output, {8, 6}, DType::I32}});
  EXPECT_TRUE(candidate_ids(kAdd, toint).empty());
}

// ---- every candidate of small tasks ----

TEST(AlgebraicSplitAll, SoftmaxEveryCandidateIsEquivalent) {
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];"
                     "B^{8}_{tx=0}L^{6}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];"
                     "B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=exp(A_{tx,a}-D_{tx})/E_{tx};];",
                     {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
  // 37: nest 1 splits around the max D, its rest; nest 2 not at all (D's keys do not cover C's, and the previous
  // element is never a pivot).
  EXPECT_EQ(candidate_ids(kExp, t), (Ids{"exponential_split@1/s0/e1.1{pivot=\"D_{tx}\",form=multiply}",
                                         "exponential_split@1/s0/e1.1{pivot=\"D_{tx}\",form=divide}"}));
  EXPECT_EQ(check_all_with_equiv(kExp, t), 2u);
  // 38 under Prove: none. E (a sum of exponentials, positive) would be the only occurrence with a proven pivot,
  // but it is C's divisor, and occurrences inside a partial operation's argument are not split (pivots.cpp).
  EXPECT_TRUE(candidate_ids(kMul, t).empty());
  // 39: nest 0 splits A around its previous element; nest 1 splits A around the max D, and inside the exp
  // arguments no previous element is a pivot (entry 39 "Refused pivots": `steptp equiv` rejected those four on
  // skewed draws); E is an accumulator in nest 1 and a divisor in nest 2.
  EXPECT_EQ(candidate_ids(kAdd, t), (Ids{"additive_split@0/s0{occurrence=0,pivot=prev}",
                                         "additive_split@1/s0{occurrence=0,pivot=\"D_{tx}\"}"}));
  EXPECT_EQ(check_all_with_equiv(kAdd, t), 2u);
  st::ScopedConfig scoped(guard_config());
  EXPECT_EQ(check_all_candidates(kMul, t), 6u);
}

TEST(AlgebraicSplitAll, MatmulBiasAndLayerNormEveryCandidateIsEquivalent) {
  auto mm = make_task("B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}[G_{tx,a}=G_{tx,a}+A_{tx,c}*D_{c,a};];"
                      "B^{4}_{tx=0}L^{3}_{a=0}[C_{tx,a}=G_{tx,a}+E_{a};];",
                      {{"A", R::Input, {4, 5}}, {"D", R::Input, {5, 3}}, {"E", R::Input, {3}},
                       {"C", R::Output, {4, 3}}});
  EXPECT_EQ(check_all_candidates(kExp, mm), 0u);
  EXPECT_EQ(check_all_candidates(kMul, mm), 0u);
  // the matrix product G (up to 5*2^12) is too large a pivot for an f32 X (2^7); what remains is previous elements
  EXPECT_EQ(check_all_candidates(kAdd, mm), 3u);
  auto ln = make_task("B^{4}_{tx=0}L^{6}_{a=0}[M_{tx}=M_{tx}+A_{tx,a}/6.0;];"
                      "B^{4}_{tx=0}L^{6}_{a=0}[Q_{tx}=Q_{tx}+(A_{tx,a}-M_{tx})*(A_{tx,a}-M_{tx})/6.0;];"
                      "B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=(A_{tx,a}-M_{tx})/sqrt(Q_{tx}+1e-05);];",
                      {{"A", R::Input, {4, 6}}, {"C", R::Output, {4, 6}}});
  // A program that divides by a root offers no pair: the normalisation multiplies the absolute error of (X+Y)-Y by
  // up to 1/sqrt(1e-05) (entry 39 "Refused pivots"; `steptp equiv` rejected such splits in GroupNorm on K draws).
  EXPECT_TRUE(candidate_ids(kAdd, ln).empty());
  EXPECT_EQ(check_all_candidates(kExp, ln), 0u);
  st::ScopedConfig scoped(guard_config());
  EXPECT_EQ(check_all_candidates(kMul, ln), 4u);  // X/Y within f32's range (entry 38)
}

TEST(AlgebraicSplitAll, NoSplitInsideAPartialOperation) {
  // Newcomer finding: additive_split put (A+Y)-Y inside log's argument (class R, but rounding can move the argument
  // to <= 0). Log and sqrt arguments, divisors and the operands of non-integer powers hold no occurrence.
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[C_{tx,a}=log(A_{tx,a})+sqrt(A_{tx,a})+1/A_{tx,a}+A_{tx,a}**0.5;];",
                     {{"A", R::Input, {8, 6}, steptp::ir::DType::F32, steptp::ir::ValueRange::Positive},
                      {"C", R::Output, {8, 6}}});
  EXPECT_TRUE(candidate_ids(kAdd, t).empty());
  EXPECT_TRUE(candidate_ids(kMul, t).empty());
  st::ScopedConfig scoped(guard_config());
  EXPECT_TRUE(candidate_ids(kMul, t).empty());
}
