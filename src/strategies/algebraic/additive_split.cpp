// additive_split (STRATEGIES.md §11 entry 39): replace one operand X by `(X+Y-Y)` for a pivot Y. An AST rewrite
// (§9.2: identity insertion never goes through GiNaC, which would fold it back to X).
// Site: a statement; parameters (occurrence, pivot), every pair by pre-order of the occurrence, then pivot order.
// Occurrences and pivots are those of pivots.hpp (eligible accesses outside lazy branches, conditions and
// subscripts, never the output buffer; the previous element uses identity 0). Y is never the same access as X,
// and it is finite-valued (no statement writing its buffer contains `inf`, as for every pivot): an infinite Y
// would give inf-inf = NaN. Y is at most 2^20 in magnitude (2^9 for an f64 X; pivots.hpp "magnitudes"), so the
// rounding error of (X+Y)-Y stays far below the check's tolerance. No partial operation is added, so there is no domain condition. Class R: (X+Y)-Y
// equals X in real arithmetic and rounds differently.
#include <cmath>

#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/pivots.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

/// (X+Y)-Y keeps X to within 2^-53*|Y| (pivots.hpp "magnitudes"): |Y| <= 2^20 leaves 2^-33, far inside the f32 and
/// f16 tolerances; an f64 X (tolerance 1e-12 absolute, LEIR.md §11) needs |Y| <= 2^9, so the error stays below 6e-14.
bool offer(const ir::Task& t, const Occurrence& occ, const Pivot& p) {
  const double bound = std::ldexp(1.0, occ.ref->ty == ir::DType::F64 ? 9 : 20);
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
