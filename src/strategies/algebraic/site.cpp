// Shared driver of the GiNaC strategies (STRATEGIES.md §9, §6, §9.4). See site.hpp.
#include "strategies/algebraic/site.hpp"

#include <mutex>

#include "ir/printer.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subexpr.hpp"
#include "strategies/analysis/typed.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

std::mutex g_fail_mu;
std::map<std::string, std::int64_t>& fail_map() {
  static std::map<std::string, std::int64_t> m;
  return m;
}

void count_failure(const std::string& strategy, const std::string& what) {
  std::lock_guard<std::mutex> lock(g_fail_mu);
  ++fail_map()[strategy + ": " + what.substr(0, 80)];
}

/// Pre-order walk below `e` at `path` (groups looked through, subscripts skipped).
void walk(const ir::Expr& e, std::vector<std::uint32_t>& path, std::vector<TargetNode>& out) {
  if (e.kind == ir::ExprKind::Group) {
    path.push_back(0);
    walk(e.args[0], path, out);
    path.pop_back();
    return;
  }
  if (e.ty == ir::DType::Invalid || ir::is_float(e.ty)) out.push_back({path, &e});
  if (e.kind == ir::ExprKind::Ref) return;
  for (std::uint32_t i = 0; i < e.args.size(); ++i) {
    path.push_back(i);
    walk(e.args[i], path, out);
    path.pop_back();
  }
}

/// Path of `target` (a node of s.rhs, by address) from the statement root; empty if absent.
bool find_path(const ir::Expr& e, const ir::Expr* target, std::vector<std::uint32_t>& path) {
  if (&e == target) return true;
  for (std::uint32_t i = 0; i < e.args.size(); ++i) {
    path.push_back(i);
    if (find_path(e.args[i], target, path)) return true;
    path.pop_back();
  }
  return false;
}

ir::Expr condition_expr(const Rewrite::Condition& c) {
  const ir::CmpOp op = c.kind == "nonzero" ? ir::CmpOp::Ne : c.kind == "positive" ? ir::CmpOp::Gt : ir::CmpOp::Ge;
  return ir::make_compare(op, c.u, ir::make_int(0));
}

/// Does a condition of kind `have` on u imply one of kind `need` on the same u?
bool implies(const std::string& have, const std::string& need) {
  return have == need || (have == "positive" && (need == "nonzero" || need == "nonnegative"));
}

/// The factors of u that together establish u's condition: a product or quotient p*q, p/q (all factors), an odd
/// integer power x**n (x; for nonzero any positive integer power). Empty when u is not such a node.
std::vector<const ir::Expr*> condition_factors(const ir::Expr& u, const std::string& kind) {
  const ir::Expr* e = &u;
  while (e->kind == ir::ExprKind::Group) e = &e->args[0];
  std::vector<const ir::Expr*> out;
  if (e->kind == ir::ExprKind::Binary && (e->bop == ir::BinOp::Mul || e->bop == ir::BinOp::Div)) {
    for (const auto& a : e->args) {
      auto sub = condition_factors(a, kind);
      if (sub.empty()) out.push_back(&a);
      else out.insert(out.end(), sub.begin(), sub.end());
    }
  } else if (e->kind == ir::ExprKind::Binary && e->bop == ir::BinOp::Pow &&
             e->args[1].kind == ir::ExprKind::IntLit && e->args[1].ival >= 1 &&
             (kind == "nonzero" || e->args[1].ival % 2 == 1)) {
    out.push_back(&e->args[0]);
  }
  return out;
}

/// Drops every condition implied by the others (§9.4 lists each unmatched operation; a guard or a facts record
/// needs only the independent ones): u>0 when every factor of u has a >0 condition, u!=0 when u>0 is listed, ...
std::vector<Rewrite::Condition> prune_implied(std::vector<Rewrite::Condition> cs) {
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < cs.size() && !changed; ++i) {
      auto covered = [&](const ir::Expr& f, const std::string& kind) {
        for (std::size_t j = 0; j < cs.size(); ++j)
          if (j != i && implies(cs[j].kind, kind) && cs[j].u == f) return true;
        return false;
      };
      bool drop = covered(cs[i].u, cs[i].kind);
      if (!drop) {
        auto fs = condition_factors(cs[i].u, cs[i].kind);
        drop = !fs.empty();
        for (const auto* f : fs) drop = drop && covered(*f, cs[i].kind);
      }
      if (drop) {
        cs.erase(cs.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
  return cs;
}

bool all_proven(const Rewrite& r) {
  for (const auto& c : r.conditions)
    if (!c.proven) return false;
  return true;
}

/// Size caps: GiNaC's factor/expand/lcm are exponential in the worst case, and a multiplied-out result can exceed
/// LEIR's nesting limit (E015, 256). A node over kMaxSiteNodes AST nodes is not offered ("site too large"); a
/// result deeper than kMaxResultDepth or over kMaxResultNodes nodes is dropped ("result too large").
constexpr std::size_t kMaxSiteNodes = 160, kMaxResultNodes = 4000;
constexpr int kMaxResultDepth = 160;

std::size_t node_count(const ir::Expr& e) {
  std::size_t n = 1;
  for (const auto& a : e.args) n += node_count(a);
  return n;
}

int depth(const ir::Expr& e) {
  int d = 0;
  for (const auto& a : e.args) d = std::max(d, depth(a));
  return d + 1;
}

/// The rewrites of `rule` at one node that the domain policy admits, GiNaC failures caught and counted.
std::vector<std::pair<Params, Rewrite>> admitted(const std::string& strategy, const Rule& rule, Bridge& b,
                                                 const TargetStmt& ts, const TargetNode& n, const ir::Task& t) {
  std::vector<std::pair<Params, Rewrite>> v;
  if (node_count(*n.e) > kMaxSiteNodes) {
    count_failure(strategy, "site too large");
    return {};
  }
  if (reads_wrapping_integer(*n.e)) return {};  // integer regrouping could wrap (bridge.hpp)
  try {
    v = rule(b, ts, n, t);
  } catch (const NotRepresentable& e) {
    count_failure(strategy, std::string("not representable: ") + e.what());
    return {};
  } catch (const std::exception& e) {
    count_failure(strategy, e.what());
    return {};
  }
  const bool guard = default_config().domain_policy == DomainPolicy::Guard;
  std::vector<std::pair<Params, Rewrite>> out;
  for (auto& pr : v) {
    Rewrite& rw = pr.second;
    try {
      // §9.2: GiNaC evaluates on construction (A/A -> 1, exp(log(x)) -> x, exp(A)^2 -> exp(2*A)), so the domain
      // check and the range rule always compare the back-converted result with the original AST.
      if (depth(rw.after) > kMaxResultDepth || node_count(rw.after) > kMaxResultNodes) {
        count_failure(strategy, "result too large");
        continue;
      }
      if (breaks_range_rule(*n.e, rw.after)) {
        count_failure(strategy, "range rule (exp argument scaled by a constant > 1)");
        continue;
      }
      add_conditions(rw.conditions, partial_conditions(b, *n.e, rw.after, *analysis::task_signs(t)));
      rw.conditions = prune_implied(std::move(rw.conditions));
    } catch (const std::exception& e) {
      count_failure(strategy, e.what());
      continue;
    }
    if (!rw.conditions.empty()) rw.cls = Exactness::Domain;
    if (guard || all_proven(rw)) out.push_back(std::move(pr));
  }
  return out;
}

}  // namespace

std::vector<TargetStmt> target_stmts(const ir::Task& typed) {
  std::vector<TargetStmt> out;
  for (const auto& sc : analysis::collect_stmts(typed.program)) {
    TargetStmt ts;
    ts.stmt = sc.stmt;
    ts.nest = sc.nest;
    ts.item = sc.item;
    const ir::Expr* root = &sc.stmt->rhs;
    if (auto r = analysis::match_reduction(typed.program, sc)) root = r->operand;
    std::vector<std::uint32_t> p;
    if (!find_path(sc.stmt->rhs, root, p)) continue;
    ts.target = {1};
    ts.target.insert(ts.target.end(), p.begin(), p.end());
    const ir::Expr* e = root;
    while (e->kind == ir::ExprKind::Group) e = &e->args[0];
    if (!ir::is_float(e->ty)) continue;
    ts.dtype = e->ty;
    out.push_back(std::move(ts));
  }
  return out;
}

std::vector<TargetNode> target_nodes(const TargetStmt& ts) {
  std::vector<TargetNode> out;
  std::vector<std::uint32_t> path = ts.target;
  walk(*analysis::expr_at(*ts.stmt, ts.target), path, out);
  return out;
}

const ir::Expr* parent_of(const TargetStmt& ts, const TargetNode& n) {
  if (n.path.size() <= ts.target.size()) return nullptr;
  std::vector<std::uint32_t> p = n.path;
  while (p.size() > ts.target.size()) {
    p.pop_back();
    const ir::Expr* e = analysis::expr_at(*ts.stmt, p);
    if (e && e->kind != ir::ExprKind::Group) return e;
  }
  return nullptr;
}

bool is_sum_node(const ir::Expr* e) {
  return e && e->kind == ir::ExprKind::Binary && (e->bop == ir::BinOp::Add || e->bop == ir::BinOp::Sub);
}
bool is_product_node(const ir::Expr* e) {
  return e && e->kind == ir::ExprKind::Binary && (e->bop == ir::BinOp::Mul || e->bop == ir::BinOp::Div);
}

std::vector<Site> enumerate_rule(const std::string& strategy, const ir::Task& t, const Rule& rule) {
  auto tt = analysis::typed_task(t);
  std::vector<Site> out;
  for (const auto& ts : target_stmts(tt->task)) {
    Bridge b(*ts.stmt, ts.dtype);
    for (const auto& n : target_nodes(ts)) {
      auto v = admitted(strategy, rule, b, ts, n, t);
      if (v.empty()) continue;
      std::vector<Params> tuples;
      for (auto& pr : v) tuples.push_back(pr.first);
      SiteRef ref;
      ref.nest = ts.nest;
      ref.stmt = ts.item;
      ref.expr = n.path;
      out.push_back(Site{ref, tuples.size() == 1 && tuples[0].empty() ? no_params() : list_params(tuples)});
    }
  }
  return out;
}

Applied apply_rule(const std::string& strategy, const ir::Task& t, const Candidate& c, const Rule& rule) {
  const StrategyInfo& info = info_of(strategy);
  if (c.strategy != info.name) throw_bad_params(c.id());
  auto tt = analysis::typed_task(t);
  const TargetStmt* ts = nullptr;
  auto stmts = target_stmts(tt->task);
  for (const auto& s : stmts)
    if (c.ref.stmt && s.nest == c.ref.nest && s.item == *c.ref.stmt && !c.ref.loop) ts = &s;
  if (!ts) throw_stale(c.id() + ": no algebraic target statement at " + c.ref.to_string());
  std::optional<TargetNode> node;
  for (const auto& n : target_nodes(*ts))
    if (n.path == c.ref.expr) node = n;
  if (!node) throw_stale(c.id() + ": no target node at " + c.ref.to_string());
  Bridge b(*ts->stmt, ts->dtype);
  auto v = admitted(strategy, rule, b, *ts, *node, t);
  if (v.empty()) throw_stale(c.id() + ": the rule does not fire at " + ir::print_expr(*node->e));
  const Rewrite* rw = nullptr;
  for (const auto& pr : v)
    if (pr.first == c.params) rw = &pr.second;
  if (!rw) throw_bad_params(c.id() + ": not a parameter tuple of this site");

  ir::Expr after = rw->after;
  std::vector<const Rewrite::Condition*> guarded;
  for (const auto& cd : rw->conditions)
    if (!cd.proven) guarded.push_back(&cd);
  if (!guarded.empty()) {
    ir::Expr cond = condition_expr(*guarded[0]);
    for (std::size_t i = 1; i < guarded.size(); ++i)
      cond = ir::make_binary(ir::BinOp::And, cond, condition_expr(*guarded[i]));
    after = ir::make_call(ir::Func::IfThenElse, {cond, after, *node->e});
  }
  ir::Task out = t;
  ir::Stmt* s = nullptr;
  {
    ir::Nest* nest = analysis::nest_at(out.program, c.ref.nest);
    s = &nest->body.at(*c.ref.stmt).stmt();
  }
  analysis::replace_node(*s, c.ref.expr, after);

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  const ir::Stmt& orig = analysis::nest_at(t.program, c.ref.nest)->body.at(*c.ref.stmt).stmt();
  f.site_stmt(orig);
  f.set("statement", ir::print_stmt(orig));
  f.set("subexpr_before", ir::print_expr(*node->e));
  f.set("subexpr_after", ir::print_expr(after));
  for (const auto& cd : rw->conditions)
    f.condition("domain", ir::print_expr(condition_expr(cd)), cd.proven ? "proven" : "guarded", cd.reason);
  if (!rw->conditions.empty()) f.legality("domain conditions", "structural", true,
                                          guarded.empty() ? "every condition proven by sign analysis"
                                                          : "unproven conditions guarded with if_then_else");
  if (!rw->range_note.empty()) f.set("range_note", rw->range_note);
  for (auto it = rw->facts.begin(); it != rw->facts.end(); ++it) f.set(it.key(), it.value());
  return finish(t, std::move(out), std::move(f), rw->cls);
}

Rewrite::Condition condition(const std::string& kind, const ir::Expr& u, const analysis::SignAnalysis& signs) {
  Rewrite::Condition c;
  c.kind = kind;
  c.u = u;
  const analysis::Sign s = signs.expr(u);
  c.proven = kind == "nonzero" ? s.is_nonzero() : kind == "positive" ? s.is_positive() : s.is_nonnegative();
  c.reason = c.proven ? signs.evidence(u)
                      : "not proven: " + ir::print_expr(u) + " is " + std::string(s.name()) + " by sign analysis";
  return c;
}

void add_conditions(std::vector<Rewrite::Condition>& into, const std::vector<Rewrite::Condition>& more) {
  for (const auto& c : more) {
    bool have = false;
    for (const auto& d : into) have = have || (d.kind == c.kind && d.u == c.u);
    if (!have) into.push_back(c);
  }
}

namespace {

struct Partials {
  std::vector<ex> divisors, logs, roots;
};

void collect_partials(Bridge& b, const ir::Expr& e, Partials& p) {
  using K = ir::ExprKind;
  if (e.kind == K::Ref) return;
  if (e.kind == K::Binary && e.bop == ir::BinOp::Div) p.divisors.push_back(b.to_ex(e.args[1]));
  if (e.kind == K::Call && e.fn == ir::Func::Log) p.logs.push_back(b.to_ex(e.args[0]));
  if (e.kind == K::Call && e.fn == ir::Func::Sqrt) p.roots.push_back(b.to_ex(e.args[0]));
  if (e.kind == K::Binary && e.bop == ir::BinOp::Pow) {
    const ex n = b.to_ex(e.args[1]);
    if (GiNaC::is_a<GiNaC::numeric>(n)) {
      const auto k = GiNaC::ex_to<GiNaC::numeric>(n);
      if (!k.is_integer()) p.roots.push_back(b.to_ex(e.args[0]));
      else if (k.is_negative()) p.divisors.push_back(b.to_ex(e.args[0]));
    }
  }
  for (const auto& a : e.args) collect_partials(b, a, p);
}

bool same(const ex& a, const ex& c) { return (a - c).expand().is_zero(); }

/// Irreducible non-constant factors of d (d itself when factor() cannot split it).
std::vector<ex> factors_of(const Bridge& b, const ex& d) {
  ex f = GiNaC::factor(d);
  std::vector<ex> out;
  auto add = [&](const ex& x) {
    ex base = GiNaC::is_a<GiNaC::power>(x) ? x.op(0) : x;
    if (!GiNaC::is_a<GiNaC::numeric>(base)) out.push_back(base);
  };
  if (GiNaC::is_a<GiNaC::mul>(f))
    for (std::size_t i = 0; i < f.nops(); ++i) add(f.op(i));
  else
    add(f);
  b.sort_by_key(out);  // §9.1 order, not GiNaC's
  return out;
}

bool divides_some(const ex& f, const std::vector<ex>& ds, const GiNaC::lst& vars) {
  for (const auto& d : ds) {
    if (same(d, f)) return true;
    ex q;
    if (d.is_polynomial(vars) && f.is_polynomial(vars) && GiNaC::divide(d, f, q)) return true;
    // Non-polynomial divisors (exp(...)): f divides d when d/f simplifies to something without f.
    if (!d.is_polynomial(vars) && GiNaC::is_a<GiNaC::mul>(d))
      for (std::size_t i = 0; i < d.nops(); ++i)
        if (same(d.op(i), f)) return true;
  }
  return false;
}

}  // namespace

std::vector<Rewrite::Condition> partial_conditions(Bridge& b, const ir::Expr& before, const ir::Expr& after,
                                                   const analysis::SignAnalysis& signs) {
  Partials pb, pa;
  collect_partials(b, before, pb);
  collect_partials(b, after, pa);
  const GiNaC::lst vars = b.symbols();
  std::vector<Rewrite::Condition> out;
  auto divisors = [&](const Partials& x, const Partials& y) {
    for (const auto& d : x.divisors)
      for (const auto& f : factors_of(b, d))
        if (!divides_some(f, y.divisors, vars))
          add_conditions(out, {condition("nonzero", b.to_ast(b.canonical_signs(f)), signs)});
  };
  divisors(pb, pa);
  divisors(pa, pb);
  // A pole where the divisors are merely rearranged still changes the non-finite value (1.5/0 = inf, but
  // 1/0-1/0 = NaN; LEIR.md §11 counts inf against NaN as a mismatch). So when the divisors differ at all, every
  // factor of every divisor on either side needs d != 0 (a correction of §9.4's "matched divisors need nothing").
  bool changed = pb.divisors.size() != pa.divisors.size();
  for (std::size_t i = 0; !changed && i < pb.divisors.size(); ++i) changed = !same(pb.divisors[i], pa.divisors[i]);
  if (changed)
    for (const auto* side : {&pb, &pa})
      for (const auto& d : side->divisors)
        for (const auto& f : factors_of(b, d))
          add_conditions(out, {condition("nonzero", b.to_ast(b.canonical_signs(f)), signs)});
  auto args = [&](const std::vector<ex>& x, const std::vector<ex>& y, const char* kind) {
    for (const auto& u : x) {
      bool found = false;
      for (const auto& v : y) found = found || same(u, v);
      if (!found) add_conditions(out, {condition(kind, b.to_ast(b.canonical_signs(u)), signs)});
    }
  };
  args(pb.logs, pa.logs, "positive");
  args(pa.logs, pb.logs, "positive");
  args(pb.roots, pa.roots, "nonnegative");
  args(pa.roots, pb.roots, "nonnegative");
  return out;
}

namespace {
void exp_args(const ir::Expr& e, std::vector<const ir::Expr*>& out) {
  if (e.kind == ir::ExprKind::Ref) return;
  if (e.kind == ir::ExprKind::Call && e.fn == ir::Func::Exp) out.push_back(&e.args[0]);
  for (const auto& a : e.args) exp_args(a, out);
}

/// The terms of an exponent (GiNaC) that carry a numeric coefficient of magnitude > 1 (2*A in exp(2*A+D)).
std::vector<ex> scaled_terms(const ex& arg) {
  auto scaled = [](const ex& t) {
    GiNaC::numeric c = 1;
    if (GiNaC::is_a<GiNaC::mul>(t))
      for (std::size_t i = 0; i < t.nops(); ++i)
        if (GiNaC::is_a<GiNaC::numeric>(t.op(i))) c *= GiNaC::ex_to<GiNaC::numeric>(t.op(i));
    return GiNaC::abs(c) > 1;
  };
  std::vector<ex> out;
  if (GiNaC::is_a<GiNaC::add>(arg)) {
    for (std::size_t i = 0; i < arg.nops(); ++i)
      if (!GiNaC::is_a<GiNaC::numeric>(arg.op(i)) && scaled(arg.op(i))) out.push_back(arg.op(i));
  } else if (scaled(arg)) {
    out.push_back(arg);
  }
  return out;
}
}  // namespace

bool breaks_range_rule(const ir::Expr& before, const ir::Expr& after) {
  std::vector<const ir::Expr*> ea, eb;
  exp_args(after, ea);
  exp_args(before, eb);
  ir::Stmt s;
  s.lhs = ir::make_int(0);
  s.rhs = before;
  Bridge b(s);
  // A scaled term is allowed when the original already had it in an exp argument (exp(2*A+D) -> exp(2*A)*exp(D)
  // keeps the threshold of the 2*A); a new one halves the overflow threshold (B13).
  std::vector<ex> had;
  for (const auto* o : eb)
    for (const auto& term : scaled_terms(b.to_ex(*o))) had.push_back(term);
  for (const auto* a : ea)
    for (const auto& term : scaled_terms(b.to_ex(*a))) {
      bool old = false;
      for (const auto& h : had) old = old || same(h, term);
      if (!old) return true;
    }
  return false;
}

bool over_inputs(const Bridge& b, const GiNaC::ex& x, const ir::Task& t) {
  for (const auto& a : b.atoms_of(x)) {
    if (b.is_opaque(a)) return false;
    const ir::Expr node = b.to_ast(a);
    if (node.kind == ir::ExprKind::Var) continue;
    const ir::KnownBuffer* k = t.find_known(node.text);
    if (!k || k->role == ir::Role::Output) return false;
  }
  return true;
}

std::map<std::string, std::int64_t> ginac_failures() {
  std::lock_guard<std::mutex> lock(g_fail_mu);
  return fail_map();
}

}  // namespace steptp::strategy::algebraic
