// expand_cancellation (STRATEGIES.md §11 entry 26): multiply the numerator and the denominator of a division node
// N/D by the same non-zero factor q and expand both: expand(N*q)/expand(D*q). The candidates for q, in
// first-occurrence order: exp(-u) for each exp(u) of the quotient (u not constant), and every atom of the quotient
// that sign analysis proves non-zero (under the Guard policy every atom, its q != 0 guarded). Products of
// exponentials are merged by the hand-written rule (GiNaC leaves exp(A)*exp(-A) alone, §9.3). The quotient is
// built in the AST, so GiNaC never cancels q again. The range rule applies (shared driver). Class D.
// Range restriction (beyond §6, which treats overflow thresholds as no condition): q and the exponent u may only
// involve known inputs and loop keys. Multiplying by exp(-u) moves the overflow region of the quotient (the sigmoid
// 1/(1+exp(-C)) becomes exp(C)/(exp(C)+1), NaN where exp(C) overflows), and multiplying by an intermediate such as
// cosh (M = exp(D)+exp(-D)) raises the degree of a value that may already be large; with an intermediate u or q
// (a matmul output reaches magnitudes far beyond the input draws) the equivalence check meets those regions, so
// such sites are not offered. A range_note records the moved overflow threshold for exp multipliers.
#include <set>

#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/analysis/sign.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

/// exp(a)*exp(b)*... -> exp(a+b+...) in each term (integer powers of exp included).
ex merge_exps(const ex& x) {
  if (GiNaC::is_a<GiNaC::add>(x)) {
    ex s = 0;
    for (std::size_t i = 0; i < x.nops(); ++i) s = s + merge_exps(x.op(i));
    return s;
  }
  if (!GiNaC::is_a<GiNaC::mul>(x)) return x;
  ex rest = 1, arg = 0;
  int exps = 0;
  for (std::size_t i = 0; i < x.nops(); ++i) {
    const ex f = x.op(i);
    if (GiNaC::is_exactly_a<GiNaC::function>(f) && GiNaC::ex_to<GiNaC::function>(f).get_name() == "exp") {
      arg = arg + f.op(0);
      ++exps;
    } else if (GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_exactly_a<GiNaC::function>(f.op(0)) &&
               GiNaC::ex_to<GiNaC::function>(f.op(0)).get_name() == "exp" && GiNaC::is_a<GiNaC::numeric>(f.op(1))) {
      arg = arg + f.op(1) * f.op(0).op(0);
      ++exps;
    } else {
      rest = rest * f;
    }
  }
  return exps >= 2 ? rest * GiNaC::exp(arg.expand()) : x;
}

void exp_nodes(const ex& x, std::vector<ex>& out) {
  if (GiNaC::is_exactly_a<GiNaC::function>(x) && GiNaC::ex_to<GiNaC::function>(x).get_name() == "exp") {
    bool have = false;
    for (const auto& e : out) have = have || e.is_equal(x);
    if (!have) out.push_back(x);
  }
  for (std::size_t i = 0; i < x.nops(); ++i) exp_nodes(x.op(i), out);
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt&, const TargetNode& n, const ir::Task& t) {
  if (n.e->kind != ir::ExprKind::Binary || n.e->bop != ir::BinOp::Div) return {};
  const ex num = b.to_ex(n.e->args[0]), den = b.to_ex(n.e->args[1]);
  const ex quotient = num / den;
  const auto signs = analysis::task_signs(t);
  const bool guard = default_config().domain_policy == DomainPolicy::Guard;
  std::vector<std::pair<std::pair<std::vector<std::uint32_t>, std::string>, ex>> qs;
  std::vector<ex> exps;
  exp_nodes(num, exps);
  exp_nodes(den, exps);
  for (const auto& e : exps) {
    if (b.atoms_of(e).empty() || !over_inputs(b, e, t)) continue;  // u constant, or u over intermediates
    const ex q = GiNaC::exp(-e.op(0));
    qs.push_back({{b.key_of(e), b.print(q)}, q});
  }
  for (const auto& a : b.atoms_of(quotient)) {
    if (!over_inputs(b, a, t)) continue;
    const ir::Expr u = b.to_ast(a);
    if (!guard && !signs->expr(u).is_nonzero()) continue;
    qs.push_back({{b.key_of(a), b.print(a)}, a});
  }
  std::stable_sort(qs.begin(), qs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::pair<Params, Rewrite>> out;
  for (const auto& [key, q] : qs) {
    const ex n2 = merge_exps((num * q).expand()), d2 = merge_exps((den * q).expand());
    Rewrite r;
    r.after = ir::make_binary(ir::BinOp::Div, b.to_ast(n2), b.to_ast(d2));
    r.cls = Exactness::Domain;
    const ir::Expr qa = b.to_ast(q);
    if (!b.is_atom(q)) {
      Rewrite::Condition c;
      c.kind = "nonzero";
      c.u = qa;
      c.proven = true;
      c.reason = "exp(...) is positive";
      r.conditions.push_back(c);
    } else {
      r.conditions.push_back(condition("nonzero", qa, *signs));
    }
    r.facts = {{"multiplier", key.second}};
    if (!b.is_atom(q))
      r.range_note = "exp factors of " + key.second + " may overflow where the original quotient does not (and "
                     "the reverse): the overflow threshold of the quotient moves";
    out.push_back({Params{{"q", key.second}}, std::move(r)});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_expand_cancellation(const ir::Task& t) {
  return enumerate_rule("expand_cancellation", t, rule);
}
Applied apply_expand_cancellation(const ir::Task& t, const Candidate& c) {
  return apply_rule("expand_cancellation", t, c, rule);
}

STEPTP_REGISTER_STRATEGY(expand_cancellation, 26, Algebraic,
                         "Multiply the numerator and the denominator of a quotient by the same "
                         "non-zero factor, and expand both.",
                         enumerate_expand_cancellation, apply_expand_cancellation);

}  // namespace steptp::strategy::algebraic
