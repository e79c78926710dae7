// cancellation (STRATEGIES.md §11 entry 25): cancel a common polynomial factor g = gcd(N, D) of a division node N/D
// whose two sides are polynomials in their atoms; the result is GiNaC `normal(N/D)` (§9.3: to_rational,
// numer_denom, gcd, normal). The cancelled factor needs g != 0 (§6: where g vanishes the original is not finite and
// the result would be): the shared driver derives that condition from the divisors before and after (§9.4), and
// the domain policy proves or guards it. Class D.
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt&, const TargetNode& n, const ir::Task&) {
  if (n.e->kind != ir::ExprKind::Binary || n.e->bop != ir::BinOp::Div) return {};
  const ex num = b.to_ex(n.e->args[0]), den = b.to_ex(n.e->args[1]);
  if (!b.is_polynomial(num) || !b.is_polynomial(den)) return {};
  const ex g = GiNaC::gcd(num.expand(), den.expand());
  if (GiNaC::is_a<GiNaC::numeric>(g)) return {};
  Rewrite r;
  r.after = b.to_ast(GiNaC::normal(num / den));
  r.cls = Exactness::Domain;
  r.facts = {{"cancelled_factor", b.print(b.canonical_signs(g))}};
  return {{Params{}, std::move(r)}};
}

}  // namespace

std::vector<Site> enumerate_cancellation(const ir::Task& t) { return enumerate_rule("cancellation", t, rule); }
Applied apply_cancellation(const ir::Task& t, const Candidate& c) { return apply_rule("cancellation", t, c, rule); }

STEPTP_REGISTER_STRATEGY(cancellation, 25, Algebraic,
                         "Cancel a common polynomial factor between the numerator and the "
                         "denominator of a quotient.",
                         enumerate_cancellation, apply_cancellation);

}  // namespace steptp::strategy::algebraic
