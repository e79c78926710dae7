// Golden tests of the power/log strategies (STRATEGIES.md §11 entries 29-32): powsimp, expand_powsimp, expand_log
// and logsimp on the catalogue's examples (byte for byte, with their facts), one negative test per site condition,
// Prove vs Guard for each domain-conditioned rule (§6), the range rule (exp(A)*exp(A) -> exp(2*A) never offered),
// and the numeric check of every candidate in its class.
#include <gtest/gtest.h>

#include <iostream>

#include "algebraic_test_util.hpp"
#include "equiv/inputs.hpp"

namespace {

std::string stmt(const std::string& s) { return "B^{8}_{tx=0}[C_{tx}=" + s + ";];"; }

nlohmann::json js(const std::string& compact_json) { return nlohmann::json::parse(expand_refs(compact_json)); }

}  // namespace

// ---- 29 powsimp ----

TEST(AlgebraicPowsimp, CatalogueExample) {
  auto t = vec_task(stmt("exp(A_{tx})*exp(D_{tx})"));
  const std::string id = expand_refs(R"~(powsimp@0/s0/e1{rule=exp,group="exp(A_{tx})*exp(D_{tx})"})~");
  ASSERT_EQ(candidate_ids("powsimp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=exp(A_{tx}+D_{tx})"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["statement"], expand_refs("C_{tx}=exp(A_{tx})*exp(D_{tx});"));
  EXPECT_EQ(a.facts["rule"], "exp");
  EXPECT_EQ(a.facts["bases"], js(R"~(["exp"])~"));
  EXPECT_EQ(a.facts["exponents_before"], js(R"~(["A_{tx}","D_{tx}"])~"));
  EXPECT_EQ(a.facts["exponent_after"], expand_refs("A_{tx}+D_{tx}"));
  EXPECT_TRUE(a.facts["conditions"].empty());
  EXPECT_TRUE(equivalent_in_class(t, a));
  // A quotient of exponentials merges too.
  auto q = vec_task(stmt("E_{tx}*exp(A_{tx})/exp(D_{tx})"));
  ASSERT_EQ(candidate_ids("powsimp", q).size(), 1u);
  auto aq = apply_id(candidate_ids("powsimp", q)[0], q);
  EXPECT_EQ(leir(aq), body("C_{tx}=E_{tx}*exp(A_{tx}-D_{tx})"));
  EXPECT_TRUE(equivalent_in_class(q, aq));
}

TEST(AlgebraicPowsimp, RangeRuleNeverOffersExpTwoA) {
  // exp(A)*exp(A) -> exp(2*A) halves the overflow threshold (B13): never offered, under either policy.
  for (const char* s :
       {"exp(A_{tx})*exp(A_{tx})", "exp(A_{tx})*exp(A_{tx})*exp(D_{tx})", "exp(A_{tx})**2*exp(D_{tx})"}) {
    auto t = vec_task(stmt(s));
    EXPECT_TRUE(candidate_ids("powsimp", t).empty()) << s;
    st::ScopedConfig guard(guard_config());
    EXPECT_TRUE(candidate_ids("powsimp", t).empty()) << s;
  }
}

TEST(AlgebraicPowsimp, SameBaseIntegerExponents) {
  auto t = vec_task(stmt("A_{tx}**2*D_{tx}*A_{tx}**3"));
  const std::string id = expand_refs(R"~(powsimp@0/s0/e1{rule=same_base,group="A_{tx}**2*A_{tx}**3"})~");
  ASSERT_EQ(candidate_ids("powsimp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}**5*D_{tx}"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["bases"], js(R"~(["A_{tx}"])~"));
  EXPECT_EQ(a.facts["exponents_before"], js(R"~(["2","3"])~"));
  EXPECT_EQ(a.facts["exponent_after"], "5");
  EXPECT_TRUE(equivalent_in_class(t, a));
  // A divisor that disappears (A**3/A -> A**2) carries the §9.4 condition A != 0.
  auto d = vec_task(stmt("A_{tx}**3/A_{tx}"));
  EXPECT_TRUE(candidate_ids("powsimp", d).empty());
  st::ScopedConfig guard(guard_config());
  const std::string idd = expand_refs(R"~(powsimp@0/s0/e1{rule=same_base,group="A_{tx}**3/A_{tx}"})~");
  ASSERT_EQ(candidate_ids("powsimp", d), (Ids{idd}));
  auto ad = apply_id(idd, d);
  EXPECT_EQ(leir(ad), body("C_{tx}=if_then_else(A_{tx}!=0,A_{tx}**2,A_{tx}**3/A_{tx})"));
  EXPECT_EQ(ad.cls, st::Exactness::Domain);
  EXPECT_TRUE(equivalent_in_class(d, ad));
}

TEST(AlgebraicPowsimp, SameBaseNonIntegerNeedsNonNegativeBase) {
  const std::string s = stmt("sqrt(A_{tx})*D_{tx}*sqrt(A_{tx})");
  const std::string id = expand_refs(R"~(powsimp@0/s0/e1{rule=same_base,group="sqrt(A_{tx})*sqrt(A_{tx})"})~");
  // Prove, no declared range: A >= 0 is not proven.
  EXPECT_TRUE(candidate_ids("powsimp", vec_task(s)).empty());
  // Declared non-negative: proven, unguarded.
  auto p = vec_task(s, VR::NonNegative);
  ASSERT_EQ(candidate_ids("powsimp", p), (Ids{id}));
  auto ap = apply_id(id, p);
  EXPECT_EQ(leir(ap), body("C_{tx}=A_{tx}*D_{tx}"));
  EXPECT_EQ(ap.cls, st::Exactness::Domain);
  ASSERT_EQ(ap.facts["conditions"].size(), 1u);
  EXPECT_EQ(ap.facts["conditions"][0]["expr"], expand_refs("A_{tx}>=0"));
  EXPECT_EQ(ap.facts["conditions"][0]["status"], "proven");
  EXPECT_TRUE(equivalent_in_class(p, ap));
  // Guard: the condition guards the new form.
  st::ScopedConfig guard(guard_config());
  auto g = vec_task(s);
  ASSERT_EQ(candidate_ids("powsimp", g), (Ids{id}));
  auto ag = apply_id(id, g);
  EXPECT_EQ(leir(ag), body("C_{tx}=if_then_else(A_{tx}>=0,A_{tx}*D_{tx},sqrt(A_{tx})*D_{tx}*sqrt(A_{tx}))"));
  EXPECT_EQ(ag.facts["conditions"][0]["status"], "guarded");
  EXPECT_TRUE(equivalent_in_class(g, ag));
}

TEST(AlgebraicPowsimp, SameExponent) {
  // Integer exponent: no condition.
  auto t = vec_task(stmt("A_{tx}**2*D_{tx}**2"));
  const std::string id = expand_refs(R"~(powsimp@0/s0/e1{rule=same_exponent,group="A_{tx}**2*D_{tx}**2"})~");
  ASSERT_EQ(candidate_ids("powsimp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=(A_{tx}*D_{tx})**2"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["bases"], js(R"~(["A_{tx}","D_{tx}"])~"));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // sqrt(A)*sqrt(D) -> sqrt(A*D) needs A >= 0 and D >= 0 (both negative: the product is finite, the factors not).
  const std::string s = stmt("sqrt(A_{tx})*sqrt(D_{tx})");
  const std::string ids = expand_refs(R"~(powsimp@0/s0/e1{rule=same_exponent,group="sqrt(A_{tx})*sqrt(D_{tx})"})~");
  EXPECT_TRUE(candidate_ids("powsimp", vec_task(s)).empty());
  EXPECT_TRUE(candidate_ids("powsimp", vec_task(s, VR::Positive)).empty());  // D unproven
  auto p = vec_task(s, VR::Positive, VR::NonNegative);
  ASSERT_EQ(candidate_ids("powsimp", p), (Ids{ids}));
  auto ap = apply_id(ids, p);
  EXPECT_EQ(leir(ap), body("C_{tx}=sqrt(A_{tx}*D_{tx})"));
  EXPECT_TRUE(equivalent_in_class(p, ap));
  st::ScopedConfig guard(guard_config());
  auto g = vec_task(s);
  auto ag = apply_id(ids, g);
  EXPECT_EQ(leir(ag), body("C_{tx}=if_then_else(A_{tx}>=0&D_{tx}>=0,sqrt(A_{tx}*D_{tx}),sqrt(A_{tx})*sqrt(D_{tx}))"));
  EXPECT_EQ(ag.facts["conditions"].size(), 2u);
  EXPECT_TRUE(equivalent_in_class(g, ag));
}

TEST(AlgebraicPowsimp, PowerOfPower) {
  auto t = vec_task(stmt("(A_{tx}**2)**3"));
  const std::string id = expand_refs(R"~(powsimp@0/s0/e1{rule=power_of_power,group="(A_{tx}**2)**3"})~");
  ASSERT_EQ(candidate_ids("powsimp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}**6"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["exponents_before"], js(R"~(["2","3"])~"));
  EXPECT_EQ(a.facts["exponent_after"], "6");
  EXPECT_TRUE(equivalent_in_class(t, a));
  // (x^2)^(1/2) = |x|: x >= 0 is needed (b is not an integer).
  const std::string s = stmt("sqrt(A_{tx}**2)");
  const std::string ids = expand_refs(R"~(powsimp@0/s0/e1{rule=power_of_power,group="sqrt(A_{tx}**2)"})~");
  EXPECT_TRUE(candidate_ids("powsimp", vec_task(s)).empty());
  auto p = vec_task(s, VR::NonNegative);
  ASSERT_EQ(candidate_ids("powsimp", p), (Ids{ids}));
  auto ap = apply_id(ids, p);
  EXPECT_EQ(leir(ap), body("C_{tx}=A_{tx}"));
  EXPECT_EQ(ap.cls, st::Exactness::Domain);
  EXPECT_TRUE(equivalent_in_class(p, ap));
  st::ScopedConfig guard(guard_config());
  auto ag = apply_id(ids, vec_task(s));
  // The guard holds A>=0 (the rule's condition, first). The driver's A**2>=0 for the vanishing root is true for
  // every A, but the sign analysis does not prove even powers non-negative yet, so it may be guarded as well.
  const std::string printed = leir(ag);
  EXPECT_EQ(printed.rfind(expand_refs("B^{8}_{tx=0}[C_{tx}=if_then_else(A_{tx}>=0"), 0), 0u) << printed;
  EXPECT_NE(printed.find(expand_refs(",A_{tx},sqrt(A_{tx}**2));];")), std::string::npos) << printed;
  EXPECT_EQ(ag.facts["conditions"][0]["expr"], expand_refs("A_{tx}>=0"));
  EXPECT_EQ(ag.facts["conditions"][0]["status"], "guarded");
  EXPECT_TRUE(equivalent_in_class(vec_task(s), ag));
}

TEST(AlgebraicPowsimp, NegativeSites) {
  st::ScopedConfig guard(guard_config());
  for (const char* s : {"A_{tx}*D_{tx}",               // no shared base, exponent 1
                        "exp(A_{tx})*D_{tx}",          // one exponential
                        "A_{tx}**2/A_{tx}**2",         // exponents cancel: not a single power
                        "exp(A_{tx})*exp(-A_{tx})",    // arguments cancel: not a single exponential
                        "A_{tx}*sqrt(A_{tx})",         // A**1.5 is not representable (§9.1)
                        "A_{tx}**2*2**2",              // constant bases do not merge
                        "A_{tx}+A_{tx}"}) {            // not a product
    EXPECT_TRUE(candidate_ids("powsimp", vec_task(stmt(s))).empty()) << s;
  }
}

// ---- 30 expand_powsimp ----

TEST(AlgebraicExpandPowsimp, CatalogueExample) {
  auto t = vec_task(stmt("exp(A_{tx}+D_{tx})"));
  ASSERT_EQ(candidate_ids("expand_powsimp", t), (Ids{"expand_powsimp@0/s0/e1"}));
  auto a = apply_id("expand_powsimp@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=exp(A_{tx})*exp(D_{tx})"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["rule"], "exp");
  EXPECT_EQ(a.facts["subexpr_before"], expand_refs("exp(A_{tx}+D_{tx})"));
  EXPECT_EQ(a.facts["subexpr_after"], expand_refs("exp(A_{tx})*exp(D_{tx})"));
  EXPECT_TRUE(a.facts.contains("range_note"));
  EXPECT_TRUE(equivalent_in_class(t, a));
  // A difference: exp(A-D) -> exp(A)*exp(-D).
  auto d = vec_task(stmt("exp(A_{tx}-D_{tx})/E_{tx}"));
  ASSERT_EQ(candidate_ids("expand_powsimp", d), (Ids{"expand_powsimp@0/s0/e1.0"}));
  auto ad = apply_id("expand_powsimp@0/s0/e1.0", d);
  EXPECT_EQ(leir(ad), body("C_{tx}=exp(A_{tx})*exp(-D_{tx})/E_{tx}"));
  EXPECT_TRUE(equivalent_in_class(d, ad));
}

TEST(AlgebraicExpandPowsimp, ProductBase) {
  auto t = vec_task(stmt("(A_{tx}*D_{tx})**2"));
  ASSERT_EQ(candidate_ids("expand_powsimp", t), (Ids{"expand_powsimp@0/s0/e1"}));
  auto a = apply_id("expand_powsimp@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=A_{tx}**2*D_{tx}**2"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_EQ(a.facts["rule"], "product_base");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicExpandPowsimp, SqrtOfProductProveAndGuard) {
  const std::string s = stmt("sqrt(A_{tx}*D_{tx})");
  EXPECT_TRUE(candidate_ids("expand_powsimp", vec_task(s)).empty());
  EXPECT_TRUE(candidate_ids("expand_powsimp", vec_task(s, VR::NonNegative)).empty());  // D unproven
  auto p = vec_task(s, VR::NonNegative, VR::Positive);
  ASSERT_EQ(candidate_ids("expand_powsimp", p), (Ids{"expand_powsimp@0/s0/e1"}));
  auto ap = apply_id("expand_powsimp@0/s0/e1", p);
  EXPECT_EQ(leir(ap), body("C_{tx}=sqrt(A_{tx})*sqrt(D_{tx})"));
  EXPECT_EQ(ap.cls, st::Exactness::Domain);
  EXPECT_EQ(ap.facts["rule"], "sqrt");
  for (const auto& c : ap.facts["conditions"]) EXPECT_EQ(c["status"], "proven") << c.dump();
  EXPECT_TRUE(equivalent_in_class(p, ap));
  st::ScopedConfig guard(guard_config());
  auto g = vec_task(s);
  auto ag = apply_id("expand_powsimp@0/s0/e1", g);
  EXPECT_EQ(leir(ag), body("C_{tx}=if_then_else(A_{tx}>=0&D_{tx}>=0,sqrt(A_{tx})*sqrt(D_{tx}),sqrt(A_{tx}*D_{tx}))"));
  EXPECT_EQ(ag.facts["conditions"].size(), 2u);
  EXPECT_TRUE(equivalent_in_class(g, ag));
}

TEST(AlgebraicExpandPowsimp, NonIntegerPowerOfAProductProveAndGuard) {
  // (x*y)**n with n not an integer needs x >= 0 and y >= 0; with an integer n it needs nothing ((-A*D)**2).
  const std::string s = stmt("(A_{tx}*D_{tx})**0.5");
  EXPECT_TRUE(candidate_ids("expand_powsimp", vec_task(s)).empty());
  auto p = vec_task(s, VR::Positive, VR::Positive);
  ASSERT_EQ(candidate_ids("expand_powsimp", p), (Ids{"expand_powsimp@0/s0/e1"}));
  auto ap = apply_id("expand_powsimp@0/s0/e1", p);
  EXPECT_EQ(leir(ap), body("C_{tx}=sqrt(A_{tx})*sqrt(D_{tx})"));
  EXPECT_EQ(ap.facts["rule"], "product_base");
  EXPECT_TRUE(equivalent_in_class(p, ap));
  auto n = vec_task(stmt("(-A_{tx}*D_{tx})**2"));
  ASSERT_EQ(candidate_ids("expand_powsimp", n), (Ids{"expand_powsimp@0/s0/e1"}));
  auto an = apply_id("expand_powsimp@0/s0/e1", n);
  EXPECT_EQ(leir(an), body("C_{tx}=A_{tx}**2*D_{tx}**2"));
  EXPECT_EQ(an.cls, st::Exactness::Reassoc);
  EXPECT_TRUE(equivalent_in_class(n, an));
  st::ScopedConfig guard(guard_config());
  auto g = vec_task(s);
  auto ag = apply_id("expand_powsimp@0/s0/e1", g);
  EXPECT_EQ(leir(ag), body("C_{tx}=if_then_else(A_{tx}>=0&D_{tx}>=0,sqrt(A_{tx})*sqrt(D_{tx}),(A_{tx}*D_{tx})**0.5)"));
  EXPECT_TRUE(equivalent_in_class(g, ag));
}

TEST(AlgebraicExpandPowsimp, SumExponentProveAndGuard) {
  const std::string s = stmt("A_{tx}**(D_{tx}+E_{tx})");
  EXPECT_TRUE(candidate_ids("expand_powsimp", vec_task(s)).empty());
  auto p = vec_task(s, VR::Positive);
  ASSERT_EQ(candidate_ids("expand_powsimp", p), (Ids{"expand_powsimp@0/s0/e1"}));
  auto ap = apply_id("expand_powsimp@0/s0/e1", p);
  EXPECT_EQ(leir(ap), body("C_{tx}=A_{tx}**D_{tx}*A_{tx}**E_{tx}"));
  EXPECT_EQ(ap.cls, st::Exactness::Domain);
  EXPECT_EQ(ap.facts["rule"], "sum_exponent");
  EXPECT_EQ(ap.facts["conditions"][0]["expr"], expand_refs("A_{tx}>0"));
  EXPECT_TRUE(equivalent_in_class(p, ap));
  // x >= 0 is not enough: 0**(-1)*0**1 is NaN where 0**0 is 1. Under Guard, x > 0 guards the split.
  st::ScopedConfig guard(guard_config());
  auto g = vec_task(stmt("A_{tx}**(D_{tx}-E_{tx})"));
  auto ag = apply_id("expand_powsimp@0/s0/e1", g);
  EXPECT_EQ(leir(ag), body("C_{tx}=if_then_else(A_{tx}>0,A_{tx}**D_{tx}*A_{tx}**(-E_{tx}),A_{tx}**(D_{tx}-E_{tx}))"));
  EXPECT_TRUE(equivalent_in_class(g, ag));
}

TEST(AlgebraicExpandPowsimp, SumOfNonNegativeIntegerExponents) {
  // a (a loop key) and 1 are non-negative integers: no condition, class R.
  auto t = make_task("B^{8}_{tx=0}L^{3}_{a=0}[C_{tx}=C_{tx}+A_{tx}**(a+1);];",
                     {{"A", R::Input, {8}}, {"C", R::Output, {8}}});
  ASSERT_EQ(candidate_ids("expand_powsimp", t), (Ids{"expand_powsimp@0/s0/e1.1"}));
  auto a = apply_id("expand_powsimp@0/s0/e1.1", t);
  EXPECT_EQ(leir(a), expand_refs("B^{8}_{tx=0}L^{3}_{a=0}[C_{tx}=C_{tx}+A_{tx}**a*A_{tx}**1;];"));
  EXPECT_EQ(a.cls, st::Exactness::Reassoc);
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicExpandPowsimp, NegativeSites) {
  st::ScopedConfig guard(guard_config());
  for (const char* s : {"exp(A_{tx})",              // no sum in the argument
                        "exp(A_{tx}*D_{tx})",       // a product argument
                        "A_{tx}**2",                // numeric exponent, atom base
                        "(A_{tx}+D_{tx})**2",       // a sum base (expand_factorization's)
                        "sqrt(A_{tx}+D_{tx})"}) {   // a sum under the root
    EXPECT_TRUE(candidate_ids("expand_powsimp", vec_task(stmt(s))).empty()) << s;
  }
}

TEST(AlgebraicExpandPowsimp, ExpOfIntermediatesNeverSplit) {
  // softmax's exp(x - max): M is a running maximum, so A-M <= 0 and exp(A-M) never overflows, while exp(A) alone may
  // (then inf*exp(-M) = inf*0 = NaN). The exp split is offered over known inputs and loop keys only.
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}[M_{tx}=max(M_{tx},A_{tx,a});];"
                     "B^{8}_{tx=0}L^{4}_{a=0}[C_{tx}=C_{tx}+exp(A_{tx,a}-M_{tx});];",
                     {{"A", R::Input, {8, 4}}, {"C", R::Output, {8}}});
  EXPECT_TRUE(candidate_ids("expand_powsimp", t).empty());
  EXPECT_TRUE(candidate_ids("expand_powsimp", vec_task(stmt("exp(A_{tx}-max(A_{tx},D_{tx}))"))).empty());
  // The same split of an intermediate is wrong on large values: X = 100*A reaches exp's overflow threshold.
  auto big = make_task("B^{8}_{tx=0}[X_{tx}=A_{tx}*100;];B^{8}_{tx=0}[C_{tx}=exp(X_{tx}-D_{tx}*100);];",
                       {{"A", R::Input, {8}}, {"D", R::Input, {8}}, {"C", R::Output, {8}}});
  EXPECT_TRUE(candidate_ids("expand_powsimp", big).empty());
  // Known inputs and loop keys: split.
  EXPECT_EQ(candidate_ids("expand_powsimp", vec_task(stmt("exp(A_{tx}-D_{tx})"))), (Ids{"expand_powsimp@0/s0/e1"}));
}

// ---- 31 expand_log ----

TEST(AlgebraicExpandLog, CatalogueExampleDeclaredPositive) {
  auto t = vec_task(stmt("log(A_{tx}*D_{tx})"), VR::Positive, VR::Positive);
  ASSERT_EQ(candidate_ids("expand_log", t), (Ids{"expand_log@0/s0/e1"}));
  auto a = apply_id("expand_log@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=log(A_{tx})+log(D_{tx})"));
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  EXPECT_EQ(a.facts["log_argument"], expand_refs("A_{tx}*D_{tx}"));
  ASSERT_EQ(a.facts["factors"].size(), 2u);
  EXPECT_EQ(a.facts["factors"][0]["factor"], expand_refs("A_{tx}"));
  EXPECT_EQ(a.facts["factors"][0]["multiplicity"], 1);
  EXPECT_EQ(a.facts["factors"][0]["sign"], "positive");
  EXPECT_EQ(a.facts["factors"][1]["factor"], expand_refs("D_{tx}"));
  ASSERT_EQ(a.facts["conditions"].size(), 2u);
  EXPECT_EQ(a.facts["conditions"][0]["expr"], expand_refs("A_{tx}>0"));
  EXPECT_EQ(a.facts["conditions"][1]["expr"], expand_refs("D_{tx}>0"));
  for (const auto& c : a.facts["conditions"]) EXPECT_EQ(c["status"], "proven") << c.dump();
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicExpandLog, CatalogueExampleGuardedAndProve) {
  auto t = vec_task(stmt("log(A_{tx}*D_{tx})"));
  // Prove (the default), no declared range: not offered.
  EXPECT_TRUE(candidate_ids("expand_log", t).empty());
  st::ScopedConfig guard(guard_config());
  ASSERT_EQ(candidate_ids("expand_log", t), (Ids{"expand_log@0/s0/e1"}));
  auto a = apply_id("expand_log@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=if_then_else(A_{tx}>0&D_{tx}>0,log(A_{tx})+log(D_{tx}),log(A_{tx}*D_{tx}))"));
  // A*D>0 (the original log's argument) is implied by the factor conditions: not in the guard.
  ASSERT_EQ(a.facts["conditions"].size(), 2u);
  EXPECT_EQ(a.facts["conditions"][0]["status"], "guarded");
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicExpandLog, UnguardedRewriteRejectedWhereAMayBeNegative) {
  auto pos = vec_task(stmt("log(A_{tx}*D_{tx})"), VR::Positive, VR::Positive);
  auto a = apply_id("expand_log@0/s0/e1", pos);
  EXPECT_TRUE(equivalent_in_class(pos, a));
  // The same unguarded rewrite on a task whose A and D may be negative: A<0, D<0 gives a finite log(A*D) and a NaN
  // log(A)+log(D); the numeric check rejects it.
  auto any = vec_task(stmt("log(A_{tx}*D_{tx})"));
  steptp::ir::Task bad = any;
  bad.program = a.task.program;
  steptp::equiv::Options eo;
  auto r = steptp::equiv::check_equivalence(any, bad, eo);
  EXPECT_FALSE(r.equivalent);
}

TEST(AlgebraicExpandLog, PowersQuotientsAndCoefficients) {
  auto t = vec_task(stmt("log(A_{tx}**2/D_{tx})"), VR::Positive, VR::Positive);
  ASSERT_EQ(candidate_ids("expand_log", t), (Ids{"expand_log@0/s0/e1"}));
  auto a = apply_id("expand_log@0/s0/e1", t);
  EXPECT_EQ(leir(a), body("C_{tx}=2*log(A_{tx})-log(D_{tx})"));
  EXPECT_EQ(a.facts["factors"][0]["multiplicity"], 2);
  EXPECT_EQ(a.facts["factors"][1]["multiplicity"], -1);
  EXPECT_TRUE(equivalent_in_class(t, a));
  // log(exp(A)*D): refused (STRATEGIES.md entry 31): GiNaC evaluates log(exp(A)) to A, exact where exp(A)*D
  // underflows, and the check compares with the original's value.
  EXPECT_TRUE(candidate_ids("expand_log", vec_task(stmt("log(exp(A_{tx})*D_{tx})"), VR::Any, VR::Positive)).empty());
  check_all_candidates("expand_log", vec_task(stmt("log(2*A_{tx})"), VR::Positive));
}

TEST(AlgebraicExpandLog, NegativeSites) {
  st::ScopedConfig guard(guard_config());
  for (const char* s : {"log(A_{tx}+D_{tx})",   // a sum
                        "log(sqrt(A_{tx}))",    // a non-integer power
                        "log(A_{tx})",          // an atom
                        "log(-A_{tx}*D_{tx})",  // a negative coefficient has no real log
                        "exp(A_{tx}*D_{tx})"}) {
    EXPECT_TRUE(candidate_ids("expand_log", vec_task(stmt(s))).empty()) << s;
  }
}

// ---- 32 logsimp ----

TEST(AlgebraicLogsimp, CatalogueExample) {
  auto t = vec_task(stmt("log(A_{tx})+log(D_{tx})"), VR::Positive, VR::Positive);
  const std::string id = expand_refs(R"~(logsimp@0/s0/e1{group="log(A_{tx})+log(D_{tx})"})~");
  ASSERT_EQ(candidate_ids("logsimp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=log(A_{tx}*D_{tx})"));
  EXPECT_EQ(a.cls, st::Exactness::Domain);
  EXPECT_EQ(a.facts["merged_terms"], js(R"~(["log(A_{tx})","log(D_{tx})"])~"));
  EXPECT_EQ(a.facts["subexpr_after"], expand_refs("log(A_{tx}*D_{tx})"));
  ASSERT_EQ(a.facts["conditions"].size(), 2u);
  for (const auto& c : a.facts["conditions"]) EXPECT_EQ(c["status"], "proven") << c.dump();
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicLogsimp, ProveVsGuard) {
  auto t = vec_task(stmt("log(A_{tx})+log(D_{tx})"));
  EXPECT_TRUE(candidate_ids("logsimp", t).empty());
  EXPECT_TRUE(candidate_ids("logsimp", vec_task(stmt("log(A_{tx})+log(D_{tx})"), VR::Positive)).empty());
  st::ScopedConfig guard(guard_config());
  const std::string id = expand_refs(R"~(logsimp@0/s0/e1{group="log(A_{tx})+log(D_{tx})"})~");
  ASSERT_EQ(candidate_ids("logsimp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a), body("C_{tx}=if_then_else(A_{tx}>0&D_{tx}>0,log(A_{tx}*D_{tx}),log(A_{tx})+log(D_{tx}))"));
  EXPECT_TRUE(equivalent_in_class(t, a));
}

TEST(AlgebraicLogsimp, IntegerMultiplesAndSubsets) {
  auto t = vec_task(stmt("log(A_{tx})+log(D_{tx})-2*log(E_{tx})+A_{tx}"), VR::Positive, VR::Positive, VR::Positive);
  const Ids ids = candidate_ids("logsimp", t);
  ASSERT_EQ(ids, (Ids{expand_refs(R"~(logsimp@0/s0/e1{group="log(A_{tx})+log(D_{tx})-2*log(E_{tx})"})~"),
                      expand_refs(R"~(logsimp@0/s0/e1{group="log(A_{tx})+log(D_{tx})"})~"),
                      expand_refs(R"~(logsimp@0/s0/e1{group="log(A_{tx})-2*log(E_{tx})"})~"),
                      expand_refs(R"~(logsimp@0/s0/e1{group="log(D_{tx})-2*log(E_{tx})"})~")}));
  EXPECT_EQ(leir(apply_id(ids[0], t)), body("C_{tx}=A_{tx}+log(A_{tx}*D_{tx}/E_{tx}**2)"));
  EXPECT_EQ(check_all_candidates("logsimp", t), 4u);
}

TEST(AlgebraicLogsimp, NegativeSites) {
  st::ScopedConfig guard(guard_config());
  for (const char* s : {"log(A_{tx})+D_{tx}",              // one log term
                        "2.5*log(A_{tx})+log(D_{tx})",     // a non-integer multiple
                        "log(A_{tx})*D_{tx}+log(D_{tx})",  // a non-numeric multiple
                        "log(A_{tx})+log(A_{tx})"}) {      // GiNaC merged it into one term 2*log(A)
    EXPECT_TRUE(candidate_ids("logsimp", vec_task(stmt(s))).empty()) << s;
  }
}

// ---- every rule's candidates, under both policies and with and without declared ranges ----

TEST(AlgebraicLogpowSweep, EveryCandidateAppliesAndIsEquivalent) {
  // Rule 2 (§2) on a mini-corpus of the four entries' patterns: every candidate applies, validates and passes the
  // numeric check in its class, under Prove and Guard, with no declared range and with A, D, E declared positive.
  const std::vector<std::string> exprs = {
      "exp(A_{tx})*exp(D_{tx})",
      "E_{tx}*exp(A_{tx})/exp(D_{tx})",
      "exp(A_{tx})**2*exp(D_{tx})",
      "exp(A_{tx})*E_{tx}*exp(D_{tx})*exp(-E_{tx})",
      "A_{tx}**2*D_{tx}*A_{tx}**3",
      "A_{tx}**3/A_{tx}",
      "sqrt(A_{tx})*D_{tx}*sqrt(A_{tx})",
      "A_{tx}**2*D_{tx}**2",
      "sqrt(A_{tx})*sqrt(D_{tx})",
      "(A_{tx}**2)**3",
      "sqrt(A_{tx}**2)",
      "sqrt(A_{tx})**2",
      "A_{tx}*A_{tx}*D_{tx}*D_{tx}",
      "-A_{tx}*A_{tx}/D_{tx}",
      "1/(A_{tx}*A_{tx})*A_{tx}**3",
      "A_{tx}**2*D_{tx}**2*E_{tx}**2",
      "sqrt(A_{tx})*sqrt(D_{tx})/sqrt(E_{tx})",
      "exp(A_{tx}+D_{tx})",
      "exp(A_{tx}-D_{tx})/E_{tx}",
      "exp(2*A_{tx}+D_{tx})",
      "exp(A_{tx}+1)",
      "exp(A_{tx}+D_{tx}*(D_{tx}+E_{tx}))",
      "(A_{tx}*D_{tx})**2",
      "(A_{tx}/D_{tx})**3",
      "sqrt(A_{tx}*D_{tx})",
      "sqrt(A_{tx}/D_{tx})",
      "sqrt(2*A_{tx}*D_{tx})",
      "(A_{tx}*D_{tx})**0.5",
      "(-A_{tx}*D_{tx})**2",
      "(A_{tx}*D_{tx})**-2",
      "A_{tx}**(D_{tx}+E_{tx})",
      "A_{tx}**(D_{tx}-E_{tx})",
      "A_{tx}**(D_{tx}+2)",
      "log(A_{tx}*D_{tx})",
      "log(A_{tx}**2/D_{tx})",
      "log(2*A_{tx})",
      "log(exp(A_{tx})*D_{tx})",
      "log(A_{tx}*D_{tx}*E_{tx})",
      "log(1/A_{tx})",
      "log(A_{tx}*sqrt(D_{tx}))",
      "log(0.5*A_{tx})",
      "log(A_{tx}**3)",
      "log((A_{tx}+1)*D_{tx})",
      "log(A_{tx})+log(D_{tx})",
      "log(A_{tx})+log(D_{tx})-2*log(E_{tx})+A_{tx}",
      "log(A_{tx})-log(D_{tx})",
      "3*log(A_{tx})-log(A_{tx}*D_{tx})",
      "log(A_{tx})+log(1/A_{tx})+log(D_{tx})",
      "E_{tx}*(log(A_{tx})+log(D_{tx}))",
      "log(A_{tx}+1)+log(D_{tx})+log(E_{tx})",
  };
  std::size_t total = 0, guarded = 0;
  for (const auto& e : exprs) {
    for (VR r : {VR::Any, VR::Positive}) {
      auto t = vec_task(stmt(e), r, r, r);
      for (const char* s : {"powsimp", "expand_powsimp", "expand_log", "logsimp"}) {
        total += check_all_candidates(s, t);
        st::ScopedConfig guard(guard_config());
        guarded += check_all_candidates(s, t);
        // Candidate ids (groups with quotes, parentheses and operators) parse back to the same candidate.
        for (const auto& id : candidate_ids(s, t)) EXPECT_EQ(apply_id(id, t).facts["candidate"], id);
      }
    }
  }
  EXPECT_GE(total, 40u);
  EXPECT_GT(guarded, total);
  std::cout << "  logpow sweep: " << total << " candidates under Prove, " << guarded << " under Guard\n";
}
