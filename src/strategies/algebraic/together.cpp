// together (STRATEGIES.md §11 entry 28): combine a maximal sum node of >= 2 terms, at least one with a non-constant
// denominator, into one fraction over the least common denominator, without cancelling. Denominators are read
// structurally from negative powers of each term (not through `normal`, which would also cancel: cancellation's
// job). L = lcm(d_i) (GiNaC `lcm`), each L/d_i by `divide`; the result is (sum n_i*(L/d_i))/L. Every factor of L
// divides an old denominator and vice versa, so no domain condition arises (§9.4). Denominators must be
// polynomials (lcm is polynomial). Class R.
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

/// Splits a term into numerator and (structural) denominator.
std::pair<ex, ex> split_term(const ex& t) {
  auto den_part = [](const ex& f) -> std::optional<ex> {
    if (GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<GiNaC::numeric>(f.op(1)) &&
        GiNaC::ex_to<GiNaC::numeric>(f.op(1)).is_negative())
      return GiNaC::pow(f.op(0), -f.op(1));
    return std::nullopt;
  };
  ex n = 1, d = 1;
  if (GiNaC::is_a<GiNaC::mul>(t)) {
    for (std::size_t i = 0; i < t.nops(); ++i) {
      if (auto dp = den_part(t.op(i))) d = d * *dp;
      else n = n * t.op(i);
    }
  } else if (auto dp = den_part(t)) {
    d = *dp;
  } else {
    n = t;
  }
  return {n, d};
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task&) {
  if (!is_sum_node(n.e) || is_sum_node(parent_of(ts, n))) return {};
  const ex x = b.to_ex(*n.e);
  if (!GiNaC::is_a<GiNaC::add>(x)) return {};
  std::vector<std::pair<ex, ex>> parts;
  bool any = false;
  std::vector<ex> terms;
  for (std::size_t i = 0; i < x.nops(); ++i) terms.push_back(x.op(i));
  b.sort_by_key(terms);  // §9.1 order, so the facts do not follow GiNaC's serial numbers
  for (const auto& term : terms) {
    parts.push_back(split_term(term));
    if (!b.is_polynomial(parts.back().second)) return {};
    any = any || !GiNaC::is_a<GiNaC::numeric>(parts.back().second);
  }
  if (!any) return {};
  ex L = 1;
  for (const auto& [nu, d] : parts) L = GiNaC::lcm(L, d);
  L = GiNaC::factor(L);
  // The lcm is defined up to a sign, which GiNaC picks by its own object order: take the one that prints without
  // a leading minus, so the result does not depend on the process.
  if (b.to_ast(L).kind == ir::ExprKind::Neg) L = -L;
  ex num = 0;
  nlohmann::json dens = nlohmann::json::array();
  for (const auto& [nu, d] : parts) {
    ex q;
    if (!GiNaC::divide(L.expand(), d.expand(), q)) return {};
    num = num + nu * GiNaC::factor(q);
    dens.push_back(b.print(b.canonical_signs(d)));
  }
  Rewrite r;
  r.after = ir::make_binary(ir::BinOp::Div, b.to_ast(num), b.to_ast(L));
  r.cls = Exactness::Reassoc;
  r.facts = {{"denominators", dens}, {"common_denominator", b.print(L)}};
  return {{Params{}, std::move(r)}};
}

}  // namespace

std::vector<Site> enumerate_together(const ir::Task& t) { return enumerate_rule("together", t, rule); }
Applied apply_together(const ir::Task& t, const Candidate& c) { return apply_rule("together", t, c, rule); }

STEPTP_REGISTER_STRATEGY(together, 28, Algebraic,
                         "Combine a sum of fractions into one fraction over the least common "
                         "denominator, without cancelling.",
                         enumerate_together, apply_together);

}  // namespace steptp::strategy::algebraic
