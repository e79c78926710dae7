// expand_powsimp (STRATEGIES.md §11 entry 30): split a power or exponential whose exponent is a sum, or whose base
// is a product, into a product of simpler powers. The site is the node itself (one rule fits a node, so there are
// no parameters; sites come in pre-order, §5):
//  - exp             `exp(a+b+...)` -> `exp(a)*exp(b)*...`: GiNaC `expand(expand_transcendental)` on the node, whose
//                    argument must be a sum in GiNaC; class R. Range restriction (beyond §6, as expand_cancellation):
//                    every atom of the argument is a known input or a loop key. With intermediates the factors
//                    reach exp's overflow threshold where the sum does not: softmax's exp(x - max) is finite by
//                    construction, exp(x)*exp(-max) is inf*0 = NaN once x > 88.7 (f32), which the equivalence
//                    check meets (a matmul or conv output goes far beyond the input draws);
//  - sum_exponent    `x**(a+b)` -> `x**a*x**b` (`x**(a-b)` -> `x**a*x**(-b)`): a non-numeric exponent is an opaque atom
//                    for GiNaC (§9.1), so this split is written in the AST; needs x>0 unless every term of the
//                    exponent is a non-negative integer (an integer-typed term that sign analysis proves >= 0);
//  - product_base    `(x*y)**n` -> `x**n*y**n` (n a numeric literal): GiNaC `expand` of the powers of the base's
//                    factors; needs x>=0 and y>=0 unless n is an integer;
//  - sqrt            `sqrt(x*y)` -> `sqrt(x)*sqrt(y)`: needs x>=0 and y>=0.
// Every candidate records a range_note: a factor may overflow where the combined form does not. The driver adds the
// §9.4 conditions of the partial operations that change (a sqrt argument that splits, a divisor).
#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/logpow.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;
using GiNaC::numeric;
using namespace logpow;

constexpr const char* kRangeNote =
    "a factor of the split form may overflow (or underflow to 0) where the combined form stays finite";

/// The signed terms of a sum node (groups and unary minus looked through).
void sum_terms(const ir::Expr& e, bool negative, std::vector<std::pair<const ir::Expr*, bool>>& out) {
  const ir::Expr& s = strip(e);
  if (s.kind == ir::ExprKind::Neg) return sum_terms(s.args[0], !negative, out);
  if (is_sum_node(&s)) {
    sum_terms(s.args[0], negative, out);
    sum_terms(s.args[1], s.bop == ir::BinOp::Sub ? !negative : negative, out);
    return;
  }
  out.push_back({&s, negative});
}

std::vector<std::pair<Params, Rewrite>> exp_rule(Bridge& b, const ir::Expr& e, const ir::Task& t) {
  const ex arg = b.to_ex(e.args[0]);
  if (!GiNaC::is_a<GiNaC::add>(arg) || !over_inputs(b, arg, t)) return {};
  const ex split = GiNaC::exp(arg).expand(GiNaC::expand_options::expand_transcendental);
  if (!GiNaC::is_a<GiNaC::mul>(split)) return {};
  Rewrite r;
  r.after = b.to_ast(split);
  r.cls = Exactness::Reassoc;
  r.facts = {{"rule", "exp"}};
  return {{Params{}, std::move(r)}};
}

std::vector<std::pair<Params, Rewrite>> sum_exponent_rule(const ir::Expr& e, const analysis::SignAnalysis& signs) {
  const ir::Expr& expo = strip(e.args[1]);
  if (!is_sum_node(&expo)) return {};
  std::vector<std::pair<const ir::Expr*, bool>> terms;
  sum_terms(expo, false, terms);
  const ir::Expr& base = strip(e.args[0]);
  std::vector<ir::Expr> factors;
  bool nonneg_integers = true;
  for (const auto& [t, negative] : terms) {
    const bool int_term = t->ty != ir::DType::Invalid && ir::is_int(t->ty) && signs.expr(*t).is_nonnegative();
    nonneg_integers = nonneg_integers && int_term && !negative;
    // x**(a-b) -> x**a*x**(-b): no new divisor (x**b could underflow to 0 where x**(a-b) is finite).
    factors.push_back(ir::make_binary(ir::BinOp::Pow, base, negative ? ir::make_group(ir::make_neg(*t)) : *t));
  }
  Rewrite r;
  r.after = build_product(factors, {}, false);
  r.cls = Exactness::Reassoc;
  if (!nonneg_integers) r.conditions.push_back(condition("positive", base, signs));
  r.facts = {{"rule", "sum_exponent"}};
  return {{Params{}, std::move(r)}};
}

std::vector<std::pair<Params, Rewrite>> product_base_rule(Bridge& b, const ir::Expr& e,
                                                          const analysis::SignAnalysis& signs) {
  const PowerForm p = power_form(e);
  if (!p.literal || !is_product_node(p.base)) return {};
  const Flat flat = flatten_product(*p.base);
  if (flat.negative && !p.k.is_integer()) return {};  // sqrt(-x*y): no real split
  ex prod = flat.negative ? ex(GiNaC::pow(-1, p.k)) : ex(1);
  Rewrite r;
  r.cls = Exactness::Reassoc;
  for (const auto& f : flat.factors) {
    const ex x = b.to_ex(*f.e);
    prod = prod * GiNaC::pow(x, f.inverse ? numeric(-p.k) : p.k);
    if (!p.k.is_integer() && !b.atoms_of(x).empty())
      add_conditions(r.conditions, {condition("nonnegative", *f.e, signs)});
  }
  r.after = b.to_ast(prod);
  const bool is_sqrt = e.kind == ir::ExprKind::Call;
  r.facts = {{"rule", is_sqrt ? "sqrt" : "product_base"}};
  return {{Params{}, std::move(r)}};
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt&, const TargetNode& n, const ir::Task& t) {
  const ir::Expr& e = *n.e;
  std::vector<std::pair<Params, Rewrite>> out;
  if (e.kind == ir::ExprKind::Call && e.fn == ir::Func::Exp) {
    out = exp_rule(b, e, t);
  } else if (e.kind == ir::ExprKind::Binary && e.bop == ir::BinOp::Pow && !literal_exponent(e.args[1])) {
    out = sum_exponent_rule(e, *analysis::task_signs(t));
  } else {
    out = product_base_rule(b, e, *analysis::task_signs(t));
  }
  for (auto& pr : out) pr.second.range_note = kRangeNote;
  return out;
}

}  // namespace

std::vector<Site> enumerate_expand_powsimp(const ir::Task& t) { return enumerate_rule("expand_powsimp", t, rule); }
Applied apply_expand_powsimp(const ir::Task& t, const Candidate& c) {
  return apply_rule("expand_powsimp", t, c, rule);
}

STEPTP_REGISTER_STRATEGY(expand_powsimp, 30, Algebraic,
                         "Split a power or exponential whose exponent is a sum, or whose base is "
                         "a product, into a product of simpler powers.",
                         enumerate_expand_powsimp, apply_expand_powsimp);

}  // namespace steptp::strategy::algebraic
