// Numerical conditioning facts (strategies/analysis/conditioning.hpp): source buffers and normalisation by a root,
// hand-computed on small programs.
#include <gtest/gtest.h>

#include "strategy_test_util.hpp"
#include "strategies/analysis/conditioning.hpp"

namespace an = steptp::strategy::analysis;
using steptp::ir::Role;
using steptp::strategy::testing::make_task;

namespace {
const char* kLayerNorm =
    "B^{4}_{tx=0}L^{6}_{a=0}[M_{tx}=M_{tx}+A_{tx,a}/6.0;];"
    "B^{4}_{tx=0}L^{6}_{a=0}[Q_{tx}=Q_{tx}+(A_{tx,a}-M_{tx})**2/6.0;];"
    "B^{4}_{tx=0}[S_{tx}=sqrt(Q_{tx}+1e-05);];"
    "B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=W_{a}*(A_{tx,a}-M_{tx})/S_{tx};];";
}  // namespace

TEST(Conditioning, SourceBuffersFollowTheWriters) {
  auto t = make_task(kLayerNorm, {{"A", Role::Input, {4, 6}}, {"W", Role::Param, {6}}, {"C", Role::Output, {4, 6}}});
  using Set = std::set<std::string>;
  EXPECT_EQ(an::source_buffers(t, "A"), (Set{"A"}));
  EXPECT_EQ(an::source_buffers(t, "M"), (Set{"A"}));
  EXPECT_EQ(an::source_buffers(t, "S"), (Set{"A"}));
  EXPECT_EQ(an::source_buffers(t, "C"), (Set{"A", "W"}));
  EXPECT_TRUE(an::source_buffers(t, "Z").empty());
}

TEST(Conditioning, DividesByRootThroughABuffer) {
  auto ln = make_task(kLayerNorm, {{"A", Role::Input, {4, 6}}, {"W", Role::Param, {6}}, {"C", Role::Output, {4, 6}}});
  EXPECT_TRUE(an::divides_by_root(ln));
  const std::vector<steptp::strategy::testing::KnownSpec> io{{"A", Role::Input, {4, 6}}, {"C", Role::Output, {4, 6}}};
  // A root in a divisor directly, and as the base of a negative power.
  EXPECT_TRUE(an::divides_by_root(make_task("B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=1/sqrt(A_{tx,a}**2+1.0);];", io)));
  EXPECT_TRUE(an::divides_by_root(make_task("B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=sqrt(A_{tx,a}**2+1.0)**-1;];", io)));
  // A constant root (GELU's x/sqrt(2)), a root that is not divided by, and a division by something else
  // (softmax's sum of exponentials).
  EXPECT_FALSE(an::divides_by_root(make_task("B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=A_{tx,a}/sqrt(2);];", io)));
  EXPECT_FALSE(an::divides_by_root(make_task("B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=sqrt(A_{tx,a}**2)*2.0;];", io)));
  EXPECT_FALSE(an::divides_by_root(make_task("B^{4}_{tx=0}L^{6}_{a=0}[S_{tx}=S_{tx}+exp(A_{tx,a});];"
                                             "B^{4}_{tx=0}L^{6}_{a=0}[C_{tx,a}=exp(A_{tx,a})/S_{tx};];", io)));
}

TEST(Conditioning, StatisticOfOneInput) {
  auto t = make_task(kLayerNorm + std::string("B^{4}_{tx=0}L^{6}_{a=0}[X_{tx}=X_{tx}+A_{tx,a}*W_{a};];"
                                              "B^{4}_{tx=0}L^{6}_{a=0}[Y_{tx}=Y_{tx}+C_{tx,a};];"),
                     {{"A", Role::Input, {4, 6}}, {"W", Role::Param, {6}}, {"C", Role::Output, {4, 6}}});
  auto operand = [&](std::size_t nest) { return t.program.nests[nest].body[0].stmt().rhs.args[1]; };
  const std::vector<std::string> a{"a"};
  EXPECT_TRUE(an::statistic_of_one_input(t, operand(0), a));   // A/6.0
  EXPECT_TRUE(an::statistic_of_one_input(t, operand(1), a));   // (A - M)**2/6.0: M is broadcast over a
  EXPECT_FALSE(an::statistic_of_one_input(t, operand(4), a));  // A*W: two buffers read with a
  EXPECT_FALSE(an::statistic_of_one_input(t, operand(5), a));  // C: an output, not an input
  EXPECT_FALSE(an::statistic_of_one_input(t, operand(0), {"b"}));  // no buffer read with the reduction key
}
