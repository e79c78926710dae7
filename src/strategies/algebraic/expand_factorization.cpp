// expand_factorization (STRATEGIES.md §11 entry 24): multiply out a product node with at least two non-monomial
// (sum) factors, or a power s**n of a sum s with 2 <= n <= 4, with GiNaC `expand()` of that node (§9.3). The node
// is a maximal product (its parent is not a product), so one product is one site. A product with exactly one sum
// factor belongs to expand_collect (entry 34). Results over 16 monomials are not offered (precision, see the rule),
// nor products or powers of a sum expected to cancel (see `cancels`).
// Class R.
#include <cmath>
#include <set>

#include "strategies/analysis/conditioning.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

const ir::Expr& strip(const ir::Expr& e) { return e.kind == ir::ExprKind::Group ? strip(e.args[0]) : e; }

/// The terms of an IR sum with their signs (`A-(C-K)`: +A, -C, +K), through groups and unary minus.
void signed_terms(const ir::Expr& e, bool neg, std::vector<std::pair<const ir::Expr*, bool>>& out) {
  const ir::Expr& x = strip(e);
  if (x.kind == ir::ExprKind::Neg) return signed_terms(x.args[0], !neg, out);
  if (x.kind == ir::ExprKind::Binary && (x.bop == ir::BinOp::Add || x.bop == ir::BinOp::Sub)) {
    signed_terms(x.args[0], neg, out);
    signed_terms(x.args[1], x.bop == ir::BinOp::Sub ? !neg : neg, out);
    return;
  }
  out.emplace_back(&x, neg);
}

/// Input buffers a term is computed from (analysis/conditioning.hpp).
std::set<std::string> term_sources(const ir::Task& t, const ir::Expr& term) {
  std::set<std::string> out;
  ir::visit_expr(term, [&](const ir::Expr& r) {
    if (!r.is_ref()) return;
    const auto s = analysis::source_buffers(t, r.text);
    out.insert(s.begin(), s.end());
  });
  return out;
}

/// A sum expected to cancel (entry 24 "Refused"): its expansion turns (a-b)**2 into a**2-2*a*b+b**2, near a**2
/// while the result is near 0, and loses the digits class R must keep. Expected where a subtracted term is computed
/// from the input buffers of an added one (a value minus its mean, as in every variance: `steptp equiv` rejected
/// the expanded variance of GroupNorm and BatchNorm), or where the sum adds a guard literal of magnitude below
/// 2^-10 (`A-C+1e-06`: an epsilon written because the difference can be 0).
bool cancels(const ir::Task& t, const ir::Expr& sum) {
  std::vector<std::pair<const ir::Expr*, bool>> terms;
  signed_terms(sum, false, terms);
  std::set<std::string> pos, neg;
  bool guard = false;
  for (const auto& [term, minus] : terms) {
    const bool lit = term->kind == ir::ExprKind::FloatLit || term->kind == ir::ExprKind::IntLit;
    const double v = term->kind == ir::ExprKind::FloatLit ? term->fval : double(term->ival);
    if (lit && v != 0 && std::fabs(v) < 0x1.0p-10) guard = true;
    const auto src = term_sources(t, *term);
    (minus ? neg : pos).insert(src.begin(), src.end());
  }
  if (guard && terms.size() > 1) return true;
  for (const auto& b : neg)
    if (pos.count(b)) return true;
  return false;
}

/// The IR factors of a product node (through groups), and the base of a power node.
void factors(const ir::Expr& e, std::vector<const ir::Expr*>& out) {
  const ir::Expr& x = strip(e);
  if (x.kind == ir::ExprKind::Binary && x.bop == ir::BinOp::Mul) {
    factors(x.args[0], out);
    factors(x.args[1], out);
    return;
  }
  out.push_back(x.kind == ir::ExprKind::Binary && x.bop == ir::BinOp::Pow ? &strip(x.args[0]) : &x);
}

/// A sum, or a positive integer power of a sum.
bool sum_factor(const ex& f) {
  if (GiNaC::is_a<GiNaC::add>(f)) return true;
  return GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<GiNaC::add>(f.op(0)) &&
         GiNaC::is_a<GiNaC::numeric>(f.op(1)) && GiNaC::ex_to<GiNaC::numeric>(f.op(1)).is_pos_integer();
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task& t) {
  const bool pow_node = n.e->kind == ir::ExprKind::Binary && n.e->bop == ir::BinOp::Pow;
  if (!pow_node && (n.e->kind != ir::ExprKind::Binary || n.e->bop != ir::BinOp::Mul)) return {};
  if (!pow_node && is_product_node(parent_of(ts, n))) return {};
  ex x = b.to_ex(*n.e);
  // GiNaC may write an odd power of a sum as -1 times the power of the negated sum, by its serial-number order:
  // look through a numeric coefficient in front of a single power.
  if (pow_node && GiNaC::is_a<GiNaC::mul>(x) && x.nops() == 2 && GiNaC::is_a<GiNaC::numeric>(x.op(1)) &&
      GiNaC::is_a<GiNaC::power>(x.op(0)))
    x = x.op(0);
  else if (pow_node && GiNaC::is_a<GiNaC::mul>(x) && x.nops() == 2 && GiNaC::is_a<GiNaC::numeric>(x.op(0)) &&
           GiNaC::is_a<GiNaC::power>(x.op(1)))
    x = x.op(1);
  if (pow_node) {
    if (!GiNaC::is_a<GiNaC::power>(x)) return {};
    if (!GiNaC::is_a<GiNaC::add>(x.op(0)) || !GiNaC::is_a<GiNaC::numeric>(x.op(1))) return {};
    const auto k = GiNaC::ex_to<GiNaC::numeric>(x.op(1));
    if (!k.is_integer() || k < 2 || k > 4) return {};
  } else {
    if (!GiNaC::is_a<GiNaC::mul>(x)) return {};
    int sums = 0;
    for (std::size_t i = 0; i < x.nops(); ++i) sums += sum_factor(x.op(i)) ? 1 : 0;
    if (sums < 2) return {};
  }
  std::vector<const ir::Expr*> fs;
  factors(*n.e, fs);
  for (const ir::Expr* f : fs)
    if (cancels(t, *f)) return {};
  const ex e = b.to_ex(*n.e).expand();
  // At most 16 monomials (four binomials multiplied out): a longer expansion of a deep product of sums cancels
  // catastrophically in floating point (a newcomer run lost 3 digits on a 30-factor nest), beyond class R's
  // tolerance, and its printed chain nears LEIR's nesting limit.
  if (GiNaC::is_a<GiNaC::add>(e) && e.nops() > 16) return {};
  Rewrite r;
  r.after = b.to_ast(e);
  r.cls = Exactness::Reassoc;
  r.facts = {{"term_count", GiNaC::is_a<GiNaC::add>(e) ? e.nops() : 1}};
  return {{Params{}, std::move(r)}};
}

}  // namespace

std::vector<Site> enumerate_expand_factorization(const ir::Task& t) {
  return enumerate_rule("expand_factorization", t, rule);
}
Applied apply_expand_factorization(const ir::Task& t, const Candidate& c) {
  return apply_rule("expand_factorization", t, c, rule);
}

STEPTP_REGISTER_STRATEGY(expand_factorization, 24, Algebraic,
                         "Multiply out a product of sums, or a small integer power of a sum, into "
                         "a sum of monomials.",
                         enumerate_expand_factorization, apply_expand_factorization);

}  // namespace steptp::strategy::algebraic
