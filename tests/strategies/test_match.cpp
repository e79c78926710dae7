// analysis/match: structural equality up to key renaming, and operand skeletons (hand-built cases).
#include <gtest/gtest.h>

#include "ir/parser.hpp"
#include "strategies/analysis/match.hpp"

namespace an = steptp::strategy::analysis;
namespace {
steptp::ir::Expr rhs(const std::string& stmt) {
  auto p = steptp::ir::parse_program("B^{2}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}[" + stmt + "];");
  return p.nests[0].body[0].stmt().rhs;
}
}  // namespace

TEST(MatchUpToKeys, RenamesBijectively) {
  an::KeyRenaming r;
  EXPECT_TRUE(an::equal_up_to_keys(rhs("D^{f32,g}_{tx}=exp(A^{f32,g}_{tx,a}-a);"),
                                   rhs("D^{f32,g}_{tx}=exp(A^{f32,g}_{tx,c}-c);"), r));
  EXPECT_EQ(r.to_first.at("c"), "a");
  EXPECT_EQ(r.to_first.at("tx"), "tx");
  // c cannot stand for both a and tx.
  an::KeyRenaming r2;
  EXPECT_FALSE(an::equal_up_to_keys(rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a};"), rhs("D^{f32,g}_{tx}=A^{f32,g}_{c,c};"), r2));
  // Pre-bound pairs are honoured.
  an::KeyRenaming r3;
  ASSERT_TRUE(r3.bind("a", "a"));
  EXPECT_FALSE(an::equal_up_to_keys(rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a};"), rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,c};"), r3));
  // The compatibility test vets new bindings.
  an::KeyRenaming r4;
  EXPECT_FALSE(an::equal_up_to_keys(rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a};"), rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,c};"), r4,
                                    [](const std::string& x, const std::string& y) { return x == y; }));
  // Buffer names, literals and operators are not renamed.
  an::KeyRenaming r5;
  EXPECT_FALSE(an::equal_up_to_keys(rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a}+1;"), rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a}+1.0;"), r5));
}

TEST(MatchSkeleton, SlotsAccessesOnly) {
  std::vector<std::pair<const steptp::ir::Expr*, const steptp::ir::Expr*>> slots;
  auto a = rhs("D^{f32,g}_{tx}=exp(A^{f32,g}_{tx,a})*W^{f32,g}_{a};");
  auto b = rhs("D^{f32,g}_{tx}=exp(C^{f32,g}_{tx,c})*W^{f32,g}_{a};");
  ASSERT_TRUE(an::same_skeleton(a, b, &slots));
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[0].first->text, "A");
  EXPECT_EQ(slots[0].second->text, "C");
  EXPECT_EQ(an::print_skeleton(a), "exp($0)*$1");
  EXPECT_FALSE(an::same_skeleton(a, rhs("D^{f32,g}_{tx}=exp(C^{f32,g}_{tx,c})+W^{f32,g}_{a};")));
  EXPECT_FALSE(an::same_skeleton(rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a}*a;"), rhs("D^{f32,g}_{tx}=A^{f32,g}_{tx,a}*c;")));
}
