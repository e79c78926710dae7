// Softmax and attention pattern matching (see softmax.hpp).
#include "strategies/analysis/softmax.hpp"

#include <algorithm>
#include <set>

#include "strategies/analysis/access.hpp"
#include "strategies/analysis/refs.hpp"

namespace steptp::strategy::analysis {
namespace {

bool mentions(const ir::Expr& e, const std::string& buf) {
  bool hit = false;
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.is_ref(buf)) hit = true;
  });
  return hit;
}

void refs_read(const ir::Expr& e, std::set<std::string>& out) {
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.is_ref()) out.insert(x.text);
  });
}

/// Headers of equal length, kinds and extents; binds b's keys to a's by position.
bool header_rename(const ir::Nest& a, const ir::Nest& b, KeyRenaming& r) {
  if (a.loops.size() != b.loops.size()) return false;
  for (std::size_t i = 0; i < a.loops.size(); ++i) {
    const auto &la = a.loops[i], &lb = b.loops[i];
    if (la.kind != lb.kind || la.extent != lb.extent || !r.bind(la.var, lb.var)) return false;
  }
  return true;
}

/// Are the subscripts of `a` (first) and `b` (second) equal entry by entry up to `r`?
bool same_subscript(const ir::Expr& a, const ir::Expr& b, KeyRenaming& r) {
  if (a.args.size() != b.args.size()) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!equal_up_to_keys(a.args[i], b.args[i], r)) return false;
  return true;
}

/// `exp(Y-M_x)`: returns Y and M_x, or nulls.
std::pair<const ir::Expr*, const ir::Expr*> exp_minus(const ir::Expr& e, const std::string& m) {
  if (e.kind != ir::ExprKind::Call || e.fn != ir::Func::Exp) return {nullptr, nullptr};
  const ir::Expr& a = e.args[0];
  if (a.kind != ir::ExprKind::Binary || a.bop != ir::BinOp::Sub || !a.args[1].is_ref(m)) return {nullptr, nullptr};
  return {&a.args[0], &a.args[1]};
}

std::vector<const ir::Loop*> loop_ptrs(const ir::Nest& n) {
  std::vector<const ir::Loop*> v;
  for (const auto& l : n.loops) v.push_back(&l);
  return v;
}

std::int64_t extent_of(const ir::Nest& n, const std::string& key) {
  for (const auto& l : n.loops)
    if (l.var == key) return l.extent;
  return -1;
}

const ir::Stmt* single_stmt(const ir::Nest& n) {
  return n.body.size() == 1 && n.body[0].is_stmt() ? &n.body[0].stmt() : nullptr;
}

bool plain_distinct_keys(const ir::Expr& ref) {
  std::set<std::string> seen;
  for (const auto& e : ref.args)
    if (e.kind != ir::ExprKind::Var || !seen.insert(e.text).second) return false;
  return true;
}

}  // namespace

std::optional<MaxReduction> match_max_reduction(const ir::Task& t, std::uint32_t top) {
  const ir::Program& p = t.program;
  if (top >= p.nests.size()) return std::nullopt;
  const ir::Nest& n = p.nests[top];
  const ir::Stmt* s = single_stmt(n);
  // Cheap structural test first: `max(...)` at the root (B4: a max elsewhere, e.g. a sum of ReLUs, is no site).
  if (!s || s->rhs.kind != ir::ExprKind::Call || s->rhs.fn != ir::Func::Max) return std::nullopt;
  auto red = match_reduction(*s, loop_ptrs(n));
  if (!red || red->op != ReduceOp::Max || !red->unused_keys.empty() || red->reduction_keys.size() != 1)
    return std::nullopt;
  if (!ir::is_float(effective_dtype(t, s->lhs)) || has_gather(s->lhs)) return std::nullopt;
  MaxReduction m;
  m.nest = top;
  m.stmt = s;
  m.k = red->reduction_keys[0];
  for (const auto& l : n.loops)
    if (l.var == m.k) {
      if (l.kind != ir::LoopKind::L && l.kind != ir::LoopKind::U) return std::nullopt;  // the prefix is serial
      m.n = l.extent;
    }
  red->implicit_init = !written_before(p, s, red->acc);
  if (!red->implicit_init) return std::nullopt;
  m.red = *red;
  return m;
}

std::optional<MaxSumPair> match_max_sum(const ir::Task& t, std::uint32_t m) {
  const ir::Program& p = t.program;
  if (m + 1 >= p.nests.size()) return std::nullopt;
  const ir::Nest& b = p.nests[m + 1];
  const ir::Stmt* s = single_stmt(b);
  if (!s || s->rhs.kind != ir::ExprKind::Binary || s->rhs.bop != ir::BinOp::Add) return std::nullopt;
  auto mx = match_max_reduction(t, m);
  if (!mx) return std::nullopt;
  MaxSumPair pr;
  pr.max = *mx;
  pr.sum_nest = m + 1;
  pr.sum_stmt = s;
  if (!header_rename(p.nests[m], b, pr.keys)) return std::nullopt;
  auto red = match_reduction(*s, loop_ptrs(b));
  if (!red || red->op != ReduceOp::Add || !red->unused_keys.empty() || red->reduction_keys.size() != 1 ||
      pr.keys.to_first.at(red->reduction_keys[0]) != mx->k)
    return std::nullopt;
  const std::string& M = mx->acc();
  const std::string& S = red->acc;
  if (S == M || !ir::is_float(effective_dtype(t, s->lhs)) || written_before(p, s, S)) return std::nullopt;
  auto [y2, mread] = exp_minus(*red->operand, M);
  if (!y2 || mentions(*y2, M) || mentions(*y2, S)) return std::nullopt;
  if (!equal_up_to_keys(mx->y(), *y2, pr.keys) || !equal_up_to_keys(mx->stmt->lhs, *mread, pr.keys) ||
      !same_subscript(mx->stmt->lhs, s->lhs, pr.keys))
    return std::nullopt;
  return pr;
}

std::vector<SoftmaxTriple> match_softmax_triples(const ir::Task& t) {
  const ir::Program& p = t.program;
  std::vector<std::pair<std::size_t, SoftmaxTriple>> found;
  std::vector<StmtCtx> stmts;
  for (std::uint32_t m = 0; m + 1 < p.nests.size(); ++m) {
    auto pr = match_max_sum(t, m);
    if (!pr) continue;
    if (stmts.empty()) stmts = collect_stmts(p);
    const std::string& M = pr->max.acc();
    const std::string& S = pr->sum();
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const StmtCtx& sc = stmts[i];
      if (sc.nest[0] <= m + 1) continue;
      const ir::Stmt& s = *sc.stmt;
      const ir::Expr& r = s.rhs;
      if (r.kind == ir::ExprKind::Binary && r.bop == ir::BinOp::Div && r.args[1].is_ref(S) && s.lhs.text != M &&
          s.lhs.text != S) {
        auto [y3, mread] = exp_minus(r.args[0], M);
        SoftmaxTriple tr;
        if (y3 && !mentions(*y3, M) && !mentions(*y3, S) && equal_up_to_keys(pr->max.y(), *y3, tr.keys) &&
            equal_up_to_keys(pr->max.stmt->lhs, *mread, tr.keys) &&
            same_subscript(pr->max.stmt->lhs, r.args[1], tr.keys)) {
          tr.pair = *pr;
          tr.div_nest = sc.nest;
          tr.div_item = sc.item;
          tr.div = &s;
          found.emplace_back(i, std::move(tr));
        }
      }
      if (s.lhs.text == M || s.lhs.text == S) break;  // later statements see other values of M or S
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<SoftmaxTriple> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

std::vector<AttentionSite> match_attention(const ir::Task& t) {
  const ir::Program& p = t.program;
  std::vector<AttentionSite> out;
  for (const SoftmaxTriple& tri : match_softmax_triples(t)) {
    if (tri.div_nest.size() != 1) continue;
    const ir::Nest& dn = p.nests[tri.div_top()];
    if (!single_stmt(dn)) continue;
    const ir::Nest& mxn = p.nests[tri.pair.max.nest];
    const ir::Expr& P = tri.div->lhs;
    // P's subscript: distinct plain keys that map onto every key of the max nest, with equal extents.
    if (!plain_distinct_keys(P) || P.args.size() != mxn.loops.size()) continue;
    std::vector<std::string> p_max;  // max key of each entry of P's subscript
    std::set<std::string> images;
    for (const auto& e : P.args) {
      auto it = tri.keys.to_first.find(e.text);
      if (it == tri.keys.to_first.end() || extent_of(dn, e.text) != extent_of(mxn, it->second) ||
          !images.insert(it->second).second)
        break;
      p_max.push_back(it->second);
    }
    if (p_max.size() != P.args.size()) continue;
    int p_writes = 0;
    ir::for_each_stmt(p, [&](const ir::Stmt& s, const auto&, std::size_t) { p_writes += s.lhs.text == P.text; });
    if (p_writes != 1) continue;
    std::set<std::string> y_bufs;
    refs_read(tri.pair.max.y(), y_bufs);
    const std::string& M = tri.pair.max.acc();
    const std::string& S = tri.pair.sum();
    for (std::uint32_t mm = tri.div_top() + 1; mm < p.nests.size(); ++mm) {
      const ir::Nest& pn = p.nests[mm];
      const ir::Stmt* s = single_stmt(pn);
      if (!s || s->rhs.kind != ir::ExprKind::Binary || s->rhs.bop != ir::BinOp::Add) continue;
      const ir::Expr& opnd = s->rhs.args[1];
      if (opnd.kind != ir::ExprKind::Binary || opnd.bop != ir::BinOp::Mul) continue;
      const ir::Expr *pr = nullptr, *v = nullptr;
      if (opnd.args[0].is_ref(P.text) && opnd.args[1].is_ref() && !opnd.args[1].is_ref(P.text))
        pr = &opnd.args[0], v = &opnd.args[1];
      else if (opnd.args[1].is_ref(P.text) && opnd.args[0].is_ref() && !opnd.args[0].is_ref(P.text))
        pr = &opnd.args[1], v = &opnd.args[0];
      if (!pr) continue;
      auto red = match_reduction(*s, loop_ptrs(pn));
      if (!red || red->op != ReduceOp::Add || !red->unused_keys.empty() || red->reduction_keys.size() != 1 ||
          written_before(p, s, red->acc))
        continue;
      const std::string& O = red->acc;
      if (O == M || O == S || O == P.text || v->text == O || v->text == M || v->text == S || has_gather(*v) ||
          y_bufs.count(O) || !plain_distinct_keys(s->lhs) || !plain_distinct_keys(*pr) ||
          pr->args.size() != P.args.size())
        continue;
      AttentionSite a;
      a.kp = red->reduction_keys[0];
      bool extents_ok = true;  // the product's P keys map onto the max nest's keys with equal extents
      for (std::size_t i = 0; i < pr->args.size(); ++i) {
        const std::string& pk = pr->args[i].text;
        a.to_max[pk] = p_max[i];
        extents_ok = extents_ok && extent_of(pn, pk) == extent_of(mxn, p_max[i]);
      }
      if (!extents_ok || a.to_max.count(a.kp) == 0 || a.to_max[a.kp] != tri.pair.max.k) continue;
      std::set<std::string> o_keys;
      for (const auto& e : s->lhs.args) o_keys.insert(e.text);
      bool spatial_ok = true;
      for (const auto& [pk, mk] : a.to_max)
        if (pk != a.kp && !o_keys.count(pk)) spatial_ok = false;
      if (!spatial_ok) continue;
      for (const auto& e : s->lhs.args)
        if (!a.to_max.count(e.text)) a.j_keys.push_back(e.text);
      // Value preservation (§7.4, buffer level): the product's V and the scores' inputs are read at the max nest
      // instead, so no nest between the softmax and the product may write them.
      bool clobbered = false;
      for (const auto& w : written_in(p, tri.pair.sum_nest + 1, mm))
        if (w != P.text && (w == v->text || y_bufs.count(w))) clobbered = true;
      if (clobbered) continue;
      a.tri = tri;
      a.mm = mm;
      a.mm_stmt = s;
      a.v = v;
      a.keep_p = t.find_known(P.text) != nullptr || read_elsewhere(p, P.text, {s});
      for (std::uint32_t i = tri.pair.sum_nest + 1; i < mm; ++i)
        if (i != tri.div_top() || a.keep_p) a.kept_between.push_back(i);
      out.push_back(std::move(a));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.mm < b.mm; });
  return out;
}

bool may_be_neg_inf(const ir::Program& p, const ir::Expr& y) {
  auto risky = [](const ir::Expr& e) {
    bool r = false;
    ir::visit_expr(e, [&](const ir::Expr& x) {
      if (x.kind == ir::ExprKind::Inf || (x.kind == ir::ExprKind::Call && x.fn == ir::Func::Log)) r = true;
    });
    return r;
  };
  if (risky(y)) return true;
  std::map<std::string, std::vector<const ir::Stmt*>> defs;
  ir::for_each_stmt(p, [&](const ir::Stmt& s, const auto&, std::size_t) { defs[s.lhs.text].push_back(&s); });
  std::set<std::string> todo, seen;
  refs_read(y, todo);
  while (!todo.empty()) {
    std::string b = *todo.begin();
    todo.erase(todo.begin());
    if (!seen.insert(b).second) continue;
    auto it = defs.find(b);
    if (it == defs.end()) continue;
    for (const ir::Stmt* s : it->second) {
      if (risky(s->rhs)) return true;
      std::set<std::string> more;
      refs_read(s->rhs, more);
      for (const auto& m : more)
        if (!seen.count(m)) todo.insert(m);
    }
  }
  return false;
}

std::vector<std::string> written_in(const ir::Program& p, std::uint32_t from, std::uint32_t to) {
  std::set<std::string> w;
  for (std::uint32_t i = from; i < to && i < p.nests.size(); ++i)
    for (const auto& sc : collect_stmts(p.nests[i], {i})) w.insert(sc.stmt->lhs.text);
  return {w.begin(), w.end()};
}

bool read_elsewhere(const ir::Program& p, const std::string& buf, const std::vector<const ir::Stmt*>& except) {
  bool hit = false;
  ir::for_each_stmt(p, [&](const ir::Stmt& s, const auto&, std::size_t) {
    if (hit || std::find(except.begin(), except.end(), &s) != except.end()) return;
    if (mentions(s.rhs, buf)) hit = true;
    for (const auto& e : s.lhs.args)
      if (mentions(e, buf)) hit = true;
  });
  return hit;
}

}  // namespace steptp::strategy::analysis
