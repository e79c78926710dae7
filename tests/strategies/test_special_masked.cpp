// Masked softmax / attention (issue #12 acceptance): rows whose LEADING scores are -inf. The catalogue's online
// rescaling `exp(if_then_else(k-1<0,-inf,Mp_{s,k-1})-Mp_{s,k})` computes -inf-(-inf) = NaN there, so entries 40,
// 41 and 42 guard it with if_then_else(k<n-1&Mp_{s,k}==-inf,0,...) whenever the scores may be -inf. Each test
// checks the guarded output is equivalent, and that the same output with the guard stripped is not (NaN), so the
// test can fail. Row 0 is fully masked: the unfused softmax gives NaN there and so must the fused one.
#include <gtest/gtest.h>

#include "equiv/inputs.hpp"
#include "special_test_util.hpp"
#include "strategies/common.hpp"

namespace st = steptp::strategy;
namespace ir = steptp::ir;
using namespace st::testing;
using R = ir::Role;
using Ids = std::vector<std::string>;

namespace {
// Leading two scores of every row are -inf, row 0 entirely.
const std::string kMask = "B^{8}_{tx=0}L^{6}_{a=0}[W_{tx,a}=if_then_else(a<2|tx==0,-inf,A_{tx,a});];";

/// The program with every guard `if_then_else(c&d,0,e)` replaced by e (the catalogue's unguarded formula).
ir::Task unguarded(const ir::Task& t) {
  ir::Task u = t;
  int n = 0;
  ir::for_each_stmt_mut(u.program, [&](ir::Stmt& s, const auto&, std::size_t) {
    ir::visit_expr_mut(s.rhs, [&](ir::Expr& x) {
      if (x.kind == ir::ExprKind::Call && x.fn == ir::Func::IfThenElse && x.args[0].kind == ir::ExprKind::Binary &&
          x.args[0].bop == ir::BinOp::And && x.args[1].kind == ir::ExprKind::IntLit) {
        ir::Expr e = x.args[2];
        x = std::move(e);
        ++n;
      }
    });
  });
  EXPECT_GT(n, 0);
  return u;
}

void expect_guard_needed(const ir::Task& t, const st::Applied& a) {
  EXPECT_TRUE(equivalent_in_class(t, a));
  ASSERT_FALSE(a.facts["conditions"].empty());
  EXPECT_EQ(a.facts["conditions"][0]["status"], "guarded");
  auto r = steptp::equiv::check_equivalence(t, unguarded(a.task), {});
  EXPECT_FALSE(r.equivalent) << "the unguarded formula should give NaN on the masked rows";
  EXPECT_NE(r.message.find("NaN"), std::string::npos) << r.message;
}
}  // namespace

TEST(SpecialMasked, PrefixSumExp) {
  auto t = make_task(kMask + max_nest("W_{tx,a}") + sum_nest("W_{tx,a}"),
                     {{"A", R::Input, {8, 6}}, {"C", R::Input, {1}}, {"D", R::Output, {8}}, {"E", R::Output, {8}}});
  const std::string id = "normal_loop_summation_on_exp_to_prefix_summation_on_exp@1/s0";
  ASSERT_EQ(candidate_ids("normal_loop_summation_on_exp_to_prefix_summation_on_exp", t), (Ids{id}));
  auto a = apply_id(id, t);
  EXPECT_EQ(leir(a),
            expand_refs(kMask + "B^{8}_{tx=0}L^{6}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),W_{tx,a});"
                                "G_{tx,a}=if_then_else(a<5&F_{tx,a}==-inf,0,if_then_else(a-1<0,1,G_{tx,a-1})*"
                                "exp(if_then_else(a-1<0,-inf,F_{tx,a-1})-F_{tx,a})+exp(W_{tx,a}-F_{tx,a}));];"
                                "B^{8}_{tx=0}[D_{tx}=F_{tx,5};E_{tx}=G_{tx,5};];"));
  EXPECT_EQ(a.facts["conditions"][0]["expr"], "a<5&F^{f32,g}_{tx,a}==-inf");
  expect_guard_needed(t, a);
}

TEST(SpecialMasked, OnlineSoftmax) {
  auto t = make_task(kMask + max_nest("W_{tx,a}") + sum_nest("W_{tx,a}") + div_nest("W_{tx,a}"),
                     {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}, {"E", R::Output, {8}}});
  ASSERT_EQ(candidate_ids("online_softmax", t), (Ids{"online_softmax@3/s0"}));
  auto a = apply_id("online_softmax@3/s0", t);
  EXPECT_NE(leir(a).find(expand_refs("G_{tx,a}=if_then_else(a<5&F_{tx,a}==-inf,0,")), std::string::npos) << leir(a);
  expect_guard_needed(t, a);
}

TEST(SpecialMasked, FlashAttention) {
  auto t = make_task(kMask + max_nest("W_{tx,a}") + sum_nest("W_{tx,a}") + div_nest("W_{tx,a}") +
                         "B^{8}_{tx=0}L^{2}_{c=0}L^{6}_{a=0}[O_{tx,c}=O_{tx,c}+C_{tx,a}*Y_{a,c};];",
                     {{"A", R::Input, {8, 6}}, {"Y", R::Input, {6, 2}}, {"O", R::Output, {8, 2}}});
  ASSERT_EQ(candidate_ids("flashattention_wo_tiling", t), (Ids{"flashattention_wo_tiling@4/s0"}));
  auto a = apply_id("flashattention_wo_tiling@4/s0", t);
  EXPECT_NE(leir(a).find("if_then_else(a<5&"), std::string::npos) << leir(a);
  EXPECT_EQ(ir::print_program(ir::parse_program(leir(a))), leir(a));
  expect_guard_needed(t, a);
}

TEST(SpecialMasked, FiniteScoresAreNotGuarded) {
  // -1000.0 instead of -inf (Softmax_masked): no guard, the catalogue's text.
  auto t = make_task("B^{8}_{tx=0}L^{6}_{a=0}[W_{tx,a}=if_then_else(a<2,-1000.0,A_{tx,a});];" + max_nest("W_{tx,a}") +
                         sum_nest("W_{tx,a}") + div_nest("W_{tx,a}"),
                     {{"A", R::Input, {8, 6}}, {"C", R::Output, {8, 6}}});
  auto a = apply_id("online_softmax@3/s0", t);
  EXPECT_EQ(leir(a).find("==-inf"), std::string::npos);
  EXPECT_TRUE(equivalent_in_class(t, a));
}
