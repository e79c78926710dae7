// multiplicative_split (STRATEGIES.md §11 entry 38): replace one operand X by `(X/Y*Y)` for a pivot Y. An AST
// rewrite (§9.2: identity insertion never goes through GiNaC; GiNaC would fold X/Y*Y back to X).
// Site: a statement; parameters (occurrence, pivot), every pair by pre-order of the occurrence, then pivot order.
// Occurrences and pivots are those of pivots.hpp (eligible accesses outside lazy branches, conditions and
// subscripts, never the output buffer; the previous element uses identity 1). Y is never the same access as X.
// Domain condition (§6, §9.4): the rewrite adds the divisor Y, so it needs `Y!=0`. Proven when sign analysis
// (analysis/sign.hpp) shows Y non-zero; the evidence is recorded. Otherwise the domain policy decides: Prove (the
// default) does not offer the pair; Guard offers it with the occurrence replaced by
// `if_then_else(Y!=0,X/Y*Y,X)` (the smallest sub-expression containing the change), which is exact where Y is 0.
// No guess about which buffers "look" non-zero is involved (B13). Only pairs whose X/Y provably neither overflows
// nor divides by an underflowed Y are offered (pivots.hpp "magnitudes"). Class D.
#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/pivots.hpp"
#include "strategies/analysis/sign.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"

namespace steptp::strategy::algebraic {
namespace {

bool proven_nonzero(const ir::Task& t, const Pivot& p) { return analysis::task_signs(t)->expr(p.expr).is_nonzero(); }

/// X/Y neither overflows nor divides by an underflowed Y (pivots.hpp "magnitudes"), in X's type: typed runs compute
/// X/Y there, so the bounds are that type's largest finite value and smallest normal one (f64: 1e290 and 1e-290,
/// with a margin for the product that follows). `steptp equiv` rejected exp(A)/exp(C)*exp(C) in f32, where
/// e^66/e^-66 overflows.
bool safe(const ir::Task& t, const Occurrence& occ, const Pivot& p) {
  const Magnitude x = magnitude(t, *occ.ref), y = magnitude(t, p.expr);
  const ir::DType ty = occ.ref->ty;
  const double hi = ty == ir::DType::F64 ? 1e290 : ty == ir::DType::F16 ? 65504.0 : 0x1.fffffep127;
  const double lo = ty == ir::DType::F64 ? 1e-290 : ty == ir::DType::F16 ? 0x1.0p-14 : 0x1.0p-126;
  return y.hi <= hi && y.lo >= lo && x.hi / y.lo <= hi;
}

bool offer(const ir::Task& t, const Occurrence& occ, const Pivot& p) {
  return safe(t, occ, p) && (default_config().domain_policy == DomainPolicy::Guard || proven_nonzero(t, p));
}

ir::Expr nonzero_cond(const Pivot& p) { return ir::make_compare(ir::CmpOp::Ne, p.expr, ir::make_int(0)); }

}  // namespace

std::vector<Site> enumerate_multiplicative_split(const ir::Task& t) { return operand_sites(t, 1, offer); }

Applied apply_multiplicative_split(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("multiplicative_split");
  const OperandChoice ch = operand_choice(info, t, c, 1, offer);
  const ir::Expr& x = *ch.occ.ref;
  const ir::Expr& y = ch.pivot.expr;
  const ir::Expr split = ir::make_binary(ir::BinOp::Mul, ir::make_binary(ir::BinOp::Div, x, y), y);
  const bool proven = proven_nonzero(t, ch.pivot);
  const ir::Expr to = proven ? ir::make_group(split)
                             : ir::make_call(ir::Func::IfThenElse, {nonzero_cond(ch.pivot), split, x});
  ir::Task after = replace_in_copy(t, ch.sc.nest, ch.sc.item, ch.occ.path, to);

  Facts f(info, c);
  pivot_facts(f, t, c, *ch.sc.stmt, ch.pivot);
  f.set("occurrence", {{"index", ch.occurrence_index}, {"path", ch.occ.path}, {"printed", ir::print_expr(x)}});
  f.set("replacement", ir::print_expr(to));
  const std::string cond = ir::print_expr(nonzero_cond(ch.pivot));
  if (proven)
    f.condition("domain", cond, "proven", analysis::task_signs(t)->evidence(y));
  else
    f.condition("domain", cond, "guarded",
                "sign analysis does not prove the divisor non-zero (" +
                    std::string(analysis::task_signs(t)->expr(y).name()) + "); domain policy Guard");
  return finish(t, std::move(after), std::move(f), Exactness::Domain);
}

STEPTP_REGISTER_STRATEGY(multiplicative_split, 38, Algebraic,
                         "Replace one operand X by (X/Y)*Y for a pivot Y, to prepare a later "
                         "multiplicative recombination.",
                         enumerate_multiplicative_split, apply_multiplicative_split);

}  // namespace steptp::strategy::algebraic
