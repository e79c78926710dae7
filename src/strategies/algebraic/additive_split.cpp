// additive_split (STRATEGIES.md §11 entry 39): replace one operand X by `(X+Y-Y)` for a pivot Y. An AST rewrite
// (§9.2: identity insertion never goes through GiNaC, which would fold it back to X).
// Site: a statement; parameters (occurrence, pivot), every pair by pre-order of the occurrence, then pivot order.
// Occurrences and pivots are those of pivots.hpp (eligible accesses outside lazy branches, conditions and
// subscripts, never the output buffer; the previous element uses identity 0). Y is never the same access as X,
// and it is finite-valued (no statement writing its buffer contains `inf`, as for every pivot): an infinite Y
// would give inf-inf = NaN. Y is bounded in magnitude by X's type (pivots.hpp "magnitudes"), so the rounding error
// of (X+Y)-Y in that type stays within the check's absolute tolerance. An occurrence inside an exp argument takes no
// previous-element pivot, an earlier-nest pivot must be computed from X's own input buffers, and a program that
// divides by a root offers no pair (entry 39 "Refused pivots"). No partial operation is added, so there is no domain
// condition. Class R: (X+Y)-Y equals X in real arithmetic and rounds differently.
#include <cmath>

#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/pivots.hpp"
#include "strategies/analysis/conditioning.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

/// (X+Y)-Y keeps X to within half an ulp of X+Y in X's type (pivots.hpp "magnitudes"): unit roundoff 2^-53, 2^-24,
/// 2^-11, 2^-8 for f64, f32, f16, bf16, against absolute tolerances 1e-12, 1e-5, 1e-3, 1e-3 (LEIR.md §11), so
/// |Y| <= 2^9, 2^7, 2, 2^-2. (`steptp equiv` rejected f32 splits around matrix-product accumulators, |Y| up to 2^15,
/// on its typed draws.)
///
/// Refused (entry 39 "Refused pivots"; analysis/conditioning.hpp): the previous element inside an exp argument (exp
/// turns the absolute error into a relative one); an earlier-nest pivot computed from other input buffers than X
/// (the check's skewed draws scale each buffer apart, so Y may dwarf X by 2^20); and every pair in a program that
/// divides by a root (a normalisation multiplies the absolute error by up to 1/sqrt(eps)), and an occurrence in the
/// numerator of a ratio whose divisor reads X's buffer (the ratio keeps X's relative error whatever X's scale).
bool offer(const ir::Task& t, const Occurrence& occ, const Pivot& p) {
  if (occ.in_exp && p.kind == PivotKind::Previous) return false;
  if (occ.in_ratio) return false;
  if (p.kind == PivotKind::Earlier &&
      analysis::source_buffers(t, p.access.text) != analysis::source_buffers(t, occ.ref->text))
    return false;
  if (analysis::divides_by_root(t)) return false;
  const ir::DType ty = occ.ref->ty;
  const double bound = std::ldexp(1.0, ty == ir::DType::F64 ? 9 : ty == ir::DType::F32 ? 7 : ty == ir::DType::F16 ? 1 : -2);
  return magnitude(t, p.expr).hi <= bound && magnitude(t, *occ.ref).hi <= 1e290;
}

}  // namespace

std::vector<Site> enumerate_additive_split(const ir::Task& t) { return operand_sites(t, 0, offer); }

Applied apply_additive_split(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("additive_split");
  const OperandChoice ch = operand_choice(info, t, c, 0, offer);
  const ir::Expr& x = *ch.occ.ref;
  const ir::Expr& y = ch.pivot.expr;
  const ir::Expr to =
      ir::make_group(ir::make_binary(ir::BinOp::Sub, ir::make_binary(ir::BinOp::Add, x, y), y));
  ir::Task after = replace_in_copy(t, ch.sc.nest, ch.sc.item, ch.occ.path, to);

  Facts f(info, c);
  pivot_facts(f, t, c, *ch.sc.stmt, ch.pivot);
  f.set("occurrence", {{"index", ch.occurrence_index}, {"path", ch.occ.path}, {"printed", ir::print_expr(x)}});
  f.set("replacement", ir::print_expr(to));
  return finish(t, std::move(after), std::move(f), Exactness::Reassoc);
}

STEPTP_REGISTER_STRATEGY(additive_split, 39, Algebraic,
                         "Replace one operand X by (X+Y)-Y for a pivot Y, to prepare a later "
                         "additive recombination.",
                         enumerate_additive_split, apply_additive_split);

}  // namespace steptp::strategy::algebraic
