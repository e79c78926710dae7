// Sign analysis (STRATEGIES.md §9.4): the lattice operations and the fixpoint over a program, hand-computed.
#include <gtest/gtest.h>

#include "graph_memory_test_util.hpp"
#include "ir/parser.hpp"
#include "strategies/analysis/sign.hpp"

namespace an = steptp::strategy::analysis;
using an::Sign;

namespace {
steptp::ir::Expr expr(const std::string& text) {
  // Parse through a one-statement program so the expression syntax is exactly LEIR's.
  auto p = steptp::ir::parse_program(expand_refs("B^{8}_{tx=0}[C_{tx}=" + text + ";];"));
  return p.nests[0].body[0].stmt().rhs;
}
}  // namespace

TEST(SignLattice, JoinAddMulDiv) {
  EXPECT_EQ(an::sign_add(Sign::positive(), Sign::nonnegative()), Sign::positive());
  EXPECT_EQ(an::sign_add(Sign::positive(), Sign::negative()), Sign::unknown());
  EXPECT_EQ(an::sign_mul(Sign::negative(), Sign::negative()), Sign::positive());
  EXPECT_EQ(an::sign_mul(Sign::nonzero(), Sign::positive()), Sign::nonzero());
  EXPECT_EQ(an::sign_div(Sign::positive(), Sign::nonnegative()), Sign::positive());  // 1/0 is not a finite value
  EXPECT_EQ(an::sign_join(Sign::negative(), Sign::positive()), Sign::nonzero());
  EXPECT_EQ(an::sign_neg(Sign::nonnegative()), Sign::nonpositive());
  EXPECT_EQ(Sign::nonzero().name(), "non-zero");
}

TEST(SignAnalysis, ExpressionsAndDeclaredRanges) {
  auto t = make_task("B^{8}_{tx=0}[C_{tx}=A_{tx}+D_{tx};];",
                     {{"A", R::Input, {8}}, {"D", R::Input, {8}, steptp::ir::DType::F32, steptp::ir::ValueRange::Positive},
                      {"C", R::Output, {8}}});
  an::SignAnalysis s(t);
  EXPECT_EQ(s.expr(expr("A_{tx}")), Sign::unknown());
  EXPECT_EQ(s.expr(expr("D_{tx}")), Sign::positive());
  EXPECT_EQ(s.expr(expr("-2")), Sign::negative());
  EXPECT_EQ(s.expr(expr("exp(A_{tx})")), Sign::positive());
  EXPECT_EQ(s.expr(expr("A_{tx}**2")), Sign::nonnegative());  // one value squared, not two
  EXPECT_EQ(s.expr(expr("A_{tx}**3")), Sign::unknown());
  EXPECT_EQ(s.expr(expr("sqrt(D_{tx})")), Sign::positive());
  EXPECT_EQ(s.expr(expr("sqrt(A_{tx})")), Sign::nonnegative());
  EXPECT_EQ(s.expr(expr("abs(A_{tx})+D_{tx}")), Sign::positive());
  EXPECT_EQ(s.expr(expr("D_{tx}-1")), Sign::unknown());
  EXPECT_EQ(s.expr(expr("if_then_else(A_{tx}>0,D_{tx},2)")), Sign::positive());
  EXPECT_EQ(s.expr(expr("tx*D_{tx}")), Sign::nonnegative());  // loop keys start at 0
  EXPECT_EQ(s.expr(expr("max(A_{tx},D_{tx})")), Sign::positive());
  EXPECT_EQ(s.expr(expr("min(A_{tx},-D_{tx})")), Sign::negative());
  EXPECT_NE(s.evidence(expr("D_{tx}")).find("D is declared positive"), std::string::npos);
}

TEST(SignAnalysis, FixpointOverReductionsAndPrefixForms) {
  // N = sum of exp (positive, from 0); M = running max of exp from -inf (positive); F = running prefix max of A
  // (unknown); Q written twice, -1 then exp: the join is non-zero.
  auto t = make_task("B^{8}_{tx=0}L^{4}_{a=0}[N_{tx}=N_{tx}+exp(A_{tx,a});];"
                     "B^{8}_{tx=0}L^{4}_{a=0}[M_{tx}=max(M_{tx},exp(A_{tx,a}));];"
                     "B^{8}_{tx=0}L^{4}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),A_{tx,a});];"
                     "B^{8}_{tx=0}[Q_{tx}=-1;];B^{8}_{tx=0}[Q_{tx}=exp(A_{tx,0});];"
                     "B^{8}_{tx=0}[C_{tx}=N_{tx}+M_{tx}+F_{tx,3}+Q_{tx};];",
                     {{"A", R::Input, {8, 4}}, {"C", R::Output, {8}}});
  an::SignAnalysis s(t);
  EXPECT_EQ(s.buffer("N"), Sign::positive());
  EXPECT_EQ(s.buffer("M"), Sign::positive());
  EXPECT_EQ(s.buffer("F"), Sign::unknown());
  EXPECT_EQ(s.buffer("Q"), Sign::nonzero());
  EXPECT_NE(s.evidence(expr("N_{tx}")).find("N is positive"), std::string::npos);
}
