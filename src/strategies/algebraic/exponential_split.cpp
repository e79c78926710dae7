// exponential_split (STRATEGIES.md §11 entry 37): split `exp(X-R)` around a pivot N, into `exp(X-N)*exp(N-R)`
// (form multiply) or `exp(X-N)/exp(R-N)` (form divide). An AST rewrite (§9.2: identity insertion never goes
// through GiNaC).
// Site: an `exp` node of the right-hand side of a statement that pivots.hpp's site_statements allows (a float
// output whose value decides no comparison or integer result), evaluated unconditionally (not in a lazy branch,
// a condition or a subscript, §7.4), whose argument is a sum (`+`/`-` nodes, unary minus and parentheses looked
// through) with at least two terms, one of them a positive access term X: the first such term, left to right,
// that is an eligible occurrence (pivots.hpp: float-typed, not the output). The statement's output must not occur
// anywhere in the argument. R is the rest of the argument negated as a whole, built as one AST node (B3): for
// `A-D-C` it is `D+C`, so the divide form gives `exp(D+C-N)`, never `exp(D-C-N)`.
// Pivots: those of pivots.hpp with identity 0 (the previous element `if_then_else(k-1<0,0,X_{...,k-1})`, then the
// earlier-nest accesses). Parameters (pivot, form): both forms for every pivot, multiply first.
// Only pivots whose two factors provably stay finite and normal are offered (exp_pivots).
// Class R: exact in real arithmetic, and the rounding points change. Range note (§6): the two factors are computed
// separately, so one may overflow or underflow where exp(X-R) does not; overflow is not a domain condition.
#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/pivots.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

/// |argument| bound of both factors in the exp node's type: exp is finite and normal on [-87, 88] in f32 and bf16,
/// [-9.7, 11] in f16 and [-708, 709] in f64 (pivots.hpp "magnitudes"). A factor that leaves it overflows to inf,
/// flushes to 0 (inf*0 = NaN) or keeps only a few bits as a subnormal.
double max_exp_arg(ir::DType t) {
  switch (t) {
    case ir::DType::F64: return 700;
    case ir::DType::F16: return 9;
    default: return 87;
  }
}

struct Term {
  bool neg = false;
  const ir::Expr* e = nullptr;
};

void flatten_sum(const ir::Expr& e, bool neg, std::vector<Term>& out) {
  if (e.kind == ir::ExprKind::Group) return flatten_sum(e.args[0], neg, out);
  if (e.kind == ir::ExprKind::Neg) return flatten_sum(e.args[0], !neg, out);
  if (e.kind == ir::ExprKind::Binary && (e.bop == ir::BinOp::Add || e.bop == ir::BinOp::Sub)) {
    flatten_sum(e.args[0], neg, out);
    flatten_sum(e.args[1], e.bop == ir::BinOp::Sub ? !neg : neg, out);
    return;
  }
  out.push_back(Term{neg, &e});
}

bool mentions_buffer(const ir::Expr& e, const std::string& buf) {
  bool m = false;
  ir::visit_expr(e, [&](const ir::Expr& x) { m = m || x.is_ref(buf); });
  return m;
}

/// An exp site: the node, its path, X and R.
struct ExpSite {
  analysis::ExprPath path;
  const ir::Expr* exp = nullptr;
  const ir::Expr* x = nullptr;
  ir::Expr rest;  // R
};

std::optional<ExpSite> exp_site(const ir::Stmt& s, const analysis::ExprPath& path) {
  const ir::Expr* e = analysis::expr_at(s, path);
  if (!e || e->kind != ir::ExprKind::Call || e->fn != ir::Func::Exp) return std::nullopt;
  if (!evaluated_unconditionally(s, path) || mentions_buffer(e->args[0], s.lhs.text)) return std::nullopt;
  std::vector<Term> terms;
  flatten_sum(e->args[0], false, terms);
  if (terms.size() < 2) return std::nullopt;
  std::size_t xi = terms.size();
  for (std::size_t i = 0; i < terms.size() && xi == terms.size(); ++i)
    if (!terms[i].neg && terms[i].e->is_ref() && ir::is_float(terms[i].e->ty)) xi = i;
  if (xi == terms.size()) return std::nullopt;
  ExpSite site{path, e, terms[xi].e, {}};
  bool first = true;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i == xi) continue;
    const bool neg = !terms[i].neg;  // R = -(rest)
    if (first) site.rest = neg ? ir::make_neg(*terms[i].e) : *terms[i].e;
    else site.rest = ir::make_binary(neg ? ir::BinOp::Sub : ir::BinOp::Add, site.rest, *terms[i].e);
    first = false;
  }
  return site;
}

std::vector<ExpSite> stmt_exp_sites(const ir::Stmt& typed) {
  std::vector<ExpSite> out;
  for (const auto& path : analysis::find_paths(typed, [](const ir::Expr& x) {
         return x.kind == ir::ExprKind::Call && x.fn == ir::Func::Exp;
       }))
    if (auto s = exp_site(typed, path)) out.push_back(std::move(*s));
  return out;
}

/// Is the pivot the rest R itself (then exp(N-R) is exp(0) and exp(X-N) the original factor)?
bool pivot_is_rest(const Pivot& p, const ExpSite& es) { return ir::print_expr(p.expr) == ir::print_expr(es.rest); }

/// The pivots of the site whose two factors stay finite and normal (STRATEGIES.md entry 37 "Refused pivots"): the
/// rest R itself; otherwise an earlier-nest access whose magnitude bounds keep both exponents within the type's
/// bound (pivots.hpp "magnitudes"). The previous element is refused: X and X_{k-1} are independent inputs, so
/// under the check's skewed and guided draws (magnitudes past 2^9) X-N leaves exp's range in every type.
std::vector<Pivot> exp_pivots(const ir::Task& t, const ir::Task& typed, const analysis::StmtCtx& sc,
                              const ExpSite& es) {
  std::vector<Pivot> out;
  const double x = magnitude(t, *es.x).hi, r = magnitude(t, es.rest).hi, bound = max_exp_arg(es.exp->ty);
  for (auto& p : pivots(typed, sc, *es.x, 0)) {
    if (pivot_is_rest(p, es)) {
      out.push_back(std::move(p));
      continue;
    }
    if (p.kind == PivotKind::Previous) continue;
    const double n = magnitude(t, p.expr).hi;
    if (x + n <= bound && n + r <= bound) out.push_back(std::move(p));
  }
  return out;
}

ir::Expr exp_of(ir::Expr a) { return ir::make_call(ir::Func::Exp, {std::move(a)}); }
ir::Expr sub(ir::Expr a, ir::Expr b) { return ir::make_binary(ir::BinOp::Sub, std::move(a), std::move(b)); }

}  // namespace

std::vector<Site> enumerate_exponential_split(const ir::Task& t) {
  auto tt = analysis::typed_task(t);
  std::vector<Site> out;
  for (const auto& sc : site_statements(tt->task))
    for (const auto& es : stmt_exp_sites(*sc.stmt)) {
      std::vector<Params> tuples;
      for (const auto& p : exp_pivots(t, tt->task, sc, es))
        for (const char* form : {"multiply", "divide"}) tuples.push_back(Params{{"pivot", p.param}, {"form", form}});
      if (tuples.empty()) continue;
      SiteRef ref;
      ref.nest = sc.nest;
      ref.stmt = sc.item;
      ref.expr = es.path;
      out.push_back(Site{ref, list_params(std::move(tuples))});
    }
  return out;
}

Applied apply_exponential_split(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("exponential_split");
  recheck(info, t, c);
  const std::string pivot = param_str(c, "pivot"), form = param_str(c, "form");
  auto tt = analysis::typed_task(t);
  for (const auto& sc : site_statements(tt->task)) {
    if (sc.nest != c.ref.nest || !c.ref.stmt || sc.item != *c.ref.stmt) continue;
    auto es = exp_site(*sc.stmt, c.ref.expr);
    if (!es) break;
    for (const auto& p : exp_pivots(t, tt->task, sc, *es)) {
      if (p.param != pivot) continue;
      const ir::Expr& n = p.expr;
      ir::Expr left = exp_of(sub(*es->x, n));
      ir::Expr to = form == "multiply" ? ir::make_binary(ir::BinOp::Mul, left, exp_of(sub(n, es->rest)))
                                       : ir::make_binary(ir::BinOp::Div, left, exp_of(sub(es->rest, n)));
      ir::Task after = replace_in_copy(t, sc.nest, sc.item, c.ref.expr, to);
      Facts f(info, c);
      pivot_facts(f, t, c, *sc.stmt, p);
      f.set("exp_node", {{"path", c.ref.expr}, {"printed", ir::print_expr(*es->exp)}});
      f.set("X", ir::print_expr(*es->x));
      f.set("rest", ir::print_expr(es->rest));
      f.set("form", form);
      f.set("replacement", ir::print_expr(to));
      f.set("range_note", "exp(" + ir::print_expr(sub(*es->x, n)) + ") and exp(" +
                              ir::print_expr(form == "multiply" ? sub(n, es->rest) : sub(es->rest, n)) +
                              ") are computed separately: either may overflow or underflow where " +
                              ir::print_expr(*es->exp) + " does not (§6: not a domain condition)");
      f.legality("exp node evaluated unconditionally, output not in its argument", "structural", true,
                 ir::print_expr(*es->exp));
      f.legality("factors finite and normal", "structural", true,
                 pivot_is_rest(p, *es)
                     ? "the pivot is the rest R: exp(N-R) = exp(0) = 1 and exp(X-N) is the original factor"
                     : "magnitude bounds |X|<=" + std::to_string(magnitude(t, *es->x).hi) + ", |N|<=" +
                           std::to_string(magnitude(t, n).hi) + ", |R|<=" +
                           std::to_string(magnitude(t, es->rest).hi) + ": both exponents within " +
                           std::to_string(int(max_exp_arg(es->exp->ty))) + " (" +
                           std::string(ir::dtype_name(es->exp->ty)) + ")");
      return finish(t, std::move(after), std::move(f), Exactness::Reassoc);
    }
  }
  throw_stale(c.id() + " is not a candidate of this task");
}

STEPTP_REGISTER_STRATEGY(exponential_split, 37, Algebraic,
                         "Split exp(X-R) around a pivot N, into either exp(X-N)*exp(N-R) or "
                         "exp(X-N)/exp(R-N).",
                         enumerate_exponential_split, apply_exponential_split);

}  // namespace steptp::strategy::algebraic
