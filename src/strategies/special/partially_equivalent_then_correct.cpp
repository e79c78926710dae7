// partially_equivalent_then_correct (STRATEGIES.md §11 entry 35): two identical zero-padded convolutions run as
// one convolution over the inputs concatenated along a spatial axis α, then the output positions near the seam,
// where the fused result differs, are recomputed from the original padded inputs.
//
// Site (matched on the AST, anywhere in the program, B20): pad nests P1 `F_s=if_then_else(g,X_{s-p},0)` and P2
// (equal to P1 once F->G, X->Y), g a conjunction of `lo<=key<hi` chains; convolutions C1 `D_o=D_o+F_{..}*W_{..}`
// and C2 (equal to C1 once F->G, D->E), single-statement nests, implicit init; P1 < C1 < C2 and P2 < C2. The axis
// α is a spatial key of C1 whose F entry is exactly `α+r` (stride 1, dilation 1) for a reduction key r, that
// occurs in no other entry of F, D or the kernel access. Between C1 and C2 nothing reads or writes D and nothing
// writes X, Y or the kernel; F and X are not written between P1 and C2, G and Y not between P2 and C2 (value
// preservation at buffer level, §7.4). C2 is the first such convolution after C1; the site is C1's nest.
//
// Along α (X of length n = hi-lo, F of length nF, outputs of length N, kernel K): the concatenation H has length 2n,
// its padding I length nF+n, the fused convolution J length N+n; D = J[0:N], E = J[n:n+N]. The fused result
// differs exactly where the receptive field [o, o+K) reaches an element of I that differs from F (resp. G):
//   D: I[c] = Y[c-lo-n] for c in [lo+n, min(nF, lo+2n)), where F is 0  ->  o in [max(0, lo+n-K+1), min(N, lo+2n))
//   E: I[c+n] = X[c-lo+n] for c in [max(0, lo-n), lo), where G is 0   ->  o in [max(0, lo-n-K+1), min(N, lo))
// Both sets lie in [0, N), so no correction writes out of range (B20). A correction nest per non-empty set runs
// over C1's spatial loops with α restricted to the set (α -> α+start), restarts the element with `=0` and
// re-runs the convolution over the reduction loops in a nested nest.
//
// Params: axis = each qualifying α (header order). Fresh names: H (concat), I (pad), J (fused). Class P.
#include <algorithm>
#include <map>
#include <set>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/softmax.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/special/special_util.hpp"

namespace steptp::strategy::special {
namespace {

using Bounds = std::map<std::string, std::pair<std::int64_t, std::int64_t>>;  // key -> [lo, hi)

/// The chains `lo<=key<hi` (integer literals) of a conjunction; false for any other form.
bool collect_chains(ir::Expr& g, std::vector<ir::Expr*>& out) {
  if (g.kind == ir::ExprKind::Group) return collect_chains(g.args[0], out);
  if (g.kind == ir::ExprKind::Binary && g.bop == ir::BinOp::And)
    return collect_chains(g.args[0], out) && collect_chains(g.args[1], out);
  if (g.kind != ir::ExprKind::Compare || g.args.size() != 3 || g.cmps[0] != ir::CmpOp::Le ||
      g.cmps[1] != ir::CmpOp::Lt || g.args[0].kind != ir::ExprKind::IntLit || g.args[1].kind != ir::ExprKind::Var ||
      g.args[2].kind != ir::ExprKind::IntLit)
    return false;
  out.push_back(&g);
  return true;
}

struct Pad {
  std::uint32_t nest = 0;
  const ir::Stmt* stmt = nullptr;
  std::string out, in;  // F, X
  Bounds guard;
};

std::optional<Pad> match_pad(const ir::Program& p, std::uint32_t i) {
  const ir::Nest& n = p.nests[i];
  if (n.body.size() != 1 || !n.body[0].is_stmt()) return std::nullopt;
  const ir::Stmt& s = n.body[0].stmt();
  const ir::Expr& r = s.rhs;
  if (r.kind != ir::ExprKind::Call || r.fn != ir::Func::IfThenElse || !r.args[1].is_ref() ||
      r.args[2].kind != ir::ExprKind::IntLit || r.args[2].ival != 0 || r.args[1].args.size() != s.lhs.args.size())
    return std::nullopt;
  std::set<std::string> keys;
  for (const auto& e : s.lhs.args)
    if (e.kind != ir::ExprKind::Var || !keys.insert(e.text).second) return std::nullopt;
  if (keys.size() != n.loops.size()) return std::nullopt;
  Pad pd;
  pd.nest = i;
  pd.stmt = &s;
  pd.out = s.lhs.text;
  pd.in = r.args[1].text;
  if (pd.in == pd.out) return std::nullopt;
  ir::Expr g = r.args[0];
  std::vector<ir::Expr*> chains;
  if (!collect_chains(g, chains)) return std::nullopt;
  for (const ir::Expr* c : chains)
    if (!keys.count(c->args[1].text) || !pd.guard.emplace(c->args[1].text, std::make_pair(c->args[0].ival, c->args[2].ival)).second ||
        c->args[0].ival >= c->args[2].ival)
      return std::nullopt;
  for (std::size_t j = 0; j < s.lhs.args.size(); ++j) {  // X entry j is `key_j - lo_j`
    const std::string& k = s.lhs.args[j].text;
    auto lf = analysis::linear_form(r.args[1].args[j]);
    auto it = pd.guard.find(k);
    const std::int64_t lo = it == pd.guard.end() ? 0 : it->second.first;
    if (!lf || lf->coef.size() != 1 || lf->at(k) != 1 || lf->c0 != -lo) return std::nullopt;
  }
  return pd;
}

struct Conv {
  std::uint32_t nest = 0;
  const ir::Stmt* stmt = nullptr;
  const ir::Expr* in = nullptr;  // F_{..}
  const ir::Expr* w = nullptr;   // the kernel access
  analysis::Reduction red;
};

/// C1 reading a pad output: a single-statement, implicit-init `D=D+F*W` (either order).
std::optional<Conv> match_conv(const ir::Program& p, std::uint32_t i, const std::map<std::string, Pad>& pads) {
  const ir::Nest& n = p.nests[i];
  if (n.body.size() != 1 || !n.body[0].is_stmt()) return std::nullopt;
  const ir::Stmt& s = n.body[0].stmt();
  if (s.rhs.kind != ir::ExprKind::Binary || s.rhs.bop != ir::BinOp::Add) return std::nullopt;
  const ir::Expr& m = s.rhs.args[1];
  if (m.kind != ir::ExprKind::Binary || m.bop != ir::BinOp::Mul || !m.args[0].is_ref() || !m.args[1].is_ref())
    return std::nullopt;
  Conv c;
  c.nest = i;
  c.stmt = &s;
  if (pads.count(m.args[0].text)) c.in = &m.args[0], c.w = &m.args[1];
  else if (pads.count(m.args[1].text)) c.in = &m.args[1], c.w = &m.args[0];
  else return std::nullopt;
  std::vector<const ir::Loop*> loops;
  for (const auto& l : n.loops) loops.push_back(&l);
  auto red = analysis::match_reduction(s, loops);
  if (!red || red->op != analysis::ReduceOp::Add || !red->unused_keys.empty() ||
      analysis::written_before(p, &s, red->acc) || c.w->text == red->acc || c.w->text == c.in->text ||
      analysis::has_gather(*c.in) || analysis::has_gather(s.lhs))
    return std::nullopt;
  c.red = *red;
  return c;
}

/// A nest with buffer names renamed (structural comparison of P2 with P1 and C2 with C1).
void rename_buffers(ir::Nest& n, const std::map<std::string, std::string>& m) {
  auto ren = [&](ir::Expr& e) {
    ir::visit_expr_mut(e, [&](ir::Expr& x) {
      if (!x.is_ref()) return;
      auto it = m.find(x.text);
      if (it != m.end()) x.text = it->second;
    });
  };
  for (auto& it : n.body) {
    if (it.is_nest()) {
      rename_buffers(it.nest(), m);
      continue;
    }
    ren(it.stmt().lhs);
    ren(it.stmt().rhs);
  }
}
ir::Nest renamed(ir::Nest n, const std::map<std::string, std::string>& m) {
  rename_buffers(n, m);
  return n;
}

/// One qualifying axis with its seam arithmetic.
struct Axis {
  std::string o, r;        // output key α and its reduction key
  std::size_t in_pos = 0;  // entry of F (and X, H, I) along α
  std::string pad_key;     // P1's key at that entry
  std::int64_t lo = 0, n = 0, nF = 0, N = 0, K = 0;
  std::pair<std::int64_t, std::int64_t> d_wrong, e_wrong;  // [start, end) per output
};

struct PetcSite {
  Pad p1, p2;
  Conv c1, c2;
  std::vector<Axis> axes;
};

std::int64_t extent_in(const ir::Nest& n, const std::string& k) {
  for (const auto& l : n.loops)
    if (l.var == k) return l.extent;
  return -1;
}

std::vector<Axis> qualifying_axes(const ir::Program& p, const Pad& p1, const Conv& c1) {
  std::vector<Axis> out;
  const ir::Nest& cn = p.nests[c1.nest];
  const ir::Nest& pn = p.nests[p1.nest];
  const ir::Expr& D = c1.stmt->lhs;
  for (const auto& l : cn.loops) {
    const std::string& o = l.var;
    if (std::find(c1.red.spatial_keys.begin(), c1.red.spatial_keys.end(), o) == c1.red.spatial_keys.end()) continue;
    int d_plain = 0, d_other = 0;
    for (const auto& e : D.args) {
      if (analysis::is_plain_key(e, o)) ++d_plain;
      else if (ir::mentions_var(e, o)) ++d_other;
    }
    if (d_plain != 1 || d_other != 0 || ir::mentions_var(*c1.w, o)) continue;
    Axis a;
    a.o = o;
    int hits = 0;
    for (std::size_t j = 0; j < c1.in->args.size(); ++j)
      if (ir::mentions_var(c1.in->args[j], o)) ++hits, a.in_pos = j;
    if (hits != 1) continue;
    auto lf = analysis::linear_form(c1.in->args[a.in_pos]);  // exactly o + r: stride 1, dilation 1
    if (!lf || lf->c0 != 0 || lf->coef.size() != 2 || lf->at(o) != 1) continue;
    for (const auto& [k, v] : lf->coef)
      if (k != o) a.r = k, hits = static_cast<int>(v);
    if (hits != 1 || std::find(c1.red.reduction_keys.begin(), c1.red.reduction_keys.end(), a.r) ==
                         c1.red.reduction_keys.end())
      continue;
    bool r_elsewhere = ir::mentions_var(D, a.r);
    for (std::size_t j = 0; j < c1.in->args.size(); ++j)
      if (j != a.in_pos && ir::mentions_var(c1.in->args[j], a.r)) r_elsewhere = true;
    if (r_elsewhere) continue;
    a.pad_key = p1.stmt->lhs.args[a.in_pos].text;
    a.nF = extent_in(pn, a.pad_key);
    auto g = p1.guard.find(a.pad_key);
    a.lo = g == p1.guard.end() ? 0 : g->second.first;
    const std::int64_t hi = g == p1.guard.end() ? a.nF : std::min(g->second.second, a.nF);
    a.n = hi - a.lo;
    a.N = l.extent;
    a.K = extent_in(cn, a.r);
    if (a.n < 1 || a.N + a.K - 1 > a.nF) continue;
    a.d_wrong = {std::max<std::int64_t>(0, a.lo + a.n - a.K + 1), std::min(a.N, std::min(a.nF, a.lo + 2 * a.n))};
    a.e_wrong = {std::max<std::int64_t>(0, std::max<std::int64_t>(0, a.lo - a.n) - a.K + 1), std::min(a.N, a.lo)};
    out.push_back(a);
  }
  return out;
}

bool writes_any(const ir::Program& p, std::uint32_t from, std::uint32_t to, const std::set<std::string>& bufs,
                std::uint32_t skip1, std::uint32_t skip2) {
  for (std::uint32_t i = from; i < to; ++i) {
    if (i == skip1 || i == skip2) continue;
    for (const auto& w : analysis::written_in(p, i, i + 1))
      if (bufs.count(w)) return true;
  }
  return false;
}

bool reads_in(const ir::Program& p, std::uint32_t from, std::uint32_t to, const std::string& buf) {
  for (std::uint32_t i = from; i < to; ++i)
    for (const auto& sc : analysis::collect_stmts(p.nests[i], {i})) {
      bool hit = false;
      ir::visit_expr(sc.stmt->rhs, [&](const ir::Expr& x) { hit = hit || x.is_ref(buf); });
      for (const auto& e : sc.stmt->lhs.args) ir::visit_expr(e, [&](const ir::Expr& x) { hit = hit || x.is_ref(buf); });
      if (hit) return true;
    }
  return false;
}

std::vector<PetcSite> find_sites(const ir::Task& t) {
  const ir::Program& p = t.program;
  std::map<std::string, Pad> pads;  // pad output -> its (single) pad nest
  std::set<std::string> multi;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i)
    if (auto pd = match_pad(p, i)) {
      if (pads.count(pd->out)) multi.insert(pd->out);
      pads[pd->out] = *pd;
    }
  for (const auto& m : multi) pads.erase(m);
  std::vector<PetcSite> out;
  if (pads.size() < 2) return out;
  std::vector<Conv> convs;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i)
    if (auto c = match_conv(p, i, pads)) convs.push_back(*c);
  for (std::size_t a = 0; a < convs.size(); ++a) {
    const Conv& c1 = convs[a];
    const Pad& p1 = pads.at(c1.in->text);
    if (p1.nest >= c1.nest) continue;
    const std::string& D = c1.red.acc;
    for (std::size_t b = a + 1; b < convs.size(); ++b) {
      const Conv& c2 = convs[b];
      const Pad& p2 = pads.at(c2.in->text);
      const std::string& E = c2.red.acc;
      const std::set<std::string> names = {p1.in, p1.out, p2.in, p2.out, D, E, c1.w->text};
      if (names.size() != 7 || p2.nest >= c2.nest) continue;
      if (!(renamed(p.nests[p1.nest], {{p1.out, p2.out}, {p1.in, p2.in}}) == p.nests[p2.nest])) continue;
      if (!(renamed(p.nests[c1.nest], {{p1.out, p2.out}, {D, E}}) == p.nests[c2.nest])) continue;
      if (analysis::effective_dtype(t, p1.stmt->rhs.args[1]) != analysis::effective_dtype(t, p2.stmt->rhs.args[1]) ||
          analysis::effective_dtype(t, c1.stmt->lhs) != analysis::effective_dtype(t, c2.stmt->lhs))
        continue;
      // Between C1 and C2: no read or write of D, no write of X, Y or the kernel; F, X (G, Y) unchanged from P1
      // (P2) to C2.
      if (reads_in(p, c1.nest + 1, c2.nest, D) ||
          writes_any(p, c1.nest + 1, c2.nest, {D, p1.in, p2.in, c1.w->text}, c1.nest, c2.nest) ||
          writes_any(p, p1.nest + 1, c2.nest, {p1.in, p1.out}, c1.nest, p1.nest) ||
          writes_any(p, p2.nest + 1, c2.nest, {p2.in, p2.out}, c2.nest, p2.nest))
        continue;
      auto axes = qualifying_axes(p, p1, c1);
      if (!axes.empty()) out.push_back(PetcSite{p1, p2, c1, c2, axes});
      break;  // C2 is the first matching convolution after C1
    }
  }
  return out;
}

/// The header of C1 restricted to the keys in `keep` (header order), with α's extent set to `ext`.
std::vector<ir::Loop> loops_with(const ir::Nest& n, const std::vector<std::string>& keep, const std::string& o,
                                 std::int64_t ext) {
  std::vector<ir::Loop> out;
  for (auto l : n.loops) {
    if (std::find(keep.begin(), keep.end(), l.var) == keep.end()) continue;
    if (l.var == o) l.extent = ext;
    out.push_back(l);
  }
  return out;
}

/// The correction nest of one output: α restricted to [start, end), `=0` restart, the convolution re-run.
ir::Nest correction(const ir::Nest& conv, const analysis::Reduction& red, const ir::Stmt& st, const Axis& a,
                    std::pair<std::int64_t, std::int64_t> wrong) {
  const analysis::KeyMap shift = {{a.o, analysis::offset_index(a.o, wrong.first)}};
  ir::Stmt redo = st;
  analysis::substitute(redo, shift);
  ir::Nest inner;
  inner.loops = loops_with(conv, red.reduction_keys, "", 0);
  inner.body.push_back(ir::Item{redo});
  auto hh = analysis::helper_header(loops_with(conv, red.spatial_keys, a.o, wrong.second - wrong.first));
  ir::Nest n;
  n.loops = hh.loops;
  n.body.push_back(ir::Item{make_stmt(redo.lhs, ir::make_int(0))});
  n.body.push_back(ir::Item{inner});
  for (const auto& [from, to] : hh.renamed) analysis::rename_key(n, from, to);
  n.loops = hh.loops;
  return n;
}

}  // namespace

std::vector<Site> enumerate_petc(const ir::Task& t) {
  std::vector<Site> out;
  for (const auto& s : find_sites(t)) {
    std::vector<Params> ps;
    for (const auto& a : s.axes) ps.push_back(Params{Param{"axis", a.o}});
    SiteRef ref;
    ref.nest = {s.c1.nest};
    ref.stmt = 0;
    out.push_back(Site{ref, list_params(std::move(ps))});
  }
  return out;
}

Applied apply_petc(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("partially_equivalent_then_correct");
  recheck(info, t, c);
  const std::string axis = param_str(c, "axis");
  std::optional<PetcSite> site;
  for (auto& s : find_sites(t))
    if (s.c1.nest == c.ref.nest[0]) site = std::move(s);
  if (!site) throw_stale(c.id() + " is not a site of this task");
  const Axis* ap = nullptr;
  for (const auto& a : site->axes)
    if (a.o == axis) ap = &a;
  if (!ap) throw_bad_params(c.id() + ": no such axis");
  const Axis& a = *ap;
  const ir::Program& p = t.program;
  const ir::Nest& pn = p.nests[site->p1.nest];
  const ir::Nest& cn = p.nests[site->c1.nest];
  const ir::Stmt& pst = *site->p1.stmt;
  const ir::Stmt& cst = *site->c1.stmt;
  const std::string &X = site->p1.in, &Y = site->p2.in, &D = site->c1.red.acc, &E = site->c2.red.acc;

  analysis::NameAllocator names(t);
  const std::string H = names.tensor(), I = names.tensor(), J = names.tensor();
  const ir::DType xdt = analysis::effective_dtype(t, pst.rhs.args[1]);
  const ir::DType ddt = analysis::effective_dtype(t, cst.lhs);

  // (1) concatenation: P1's header at X's extents; H_s=X_s; H_{s, α+n}=Y_s.
  ir::Nest concat;
  std::vector<ir::Expr> sub = pst.lhs.args;
  for (auto l : pn.loops) {
    auto g = site->p1.guard.find(l.var);
    if (g != site->p1.guard.end()) l.extent = std::min(g->second.second, l.extent) - g->second.first;
    concat.loops.push_back(l);
  }
  ir::Expr xr = ir::make_ref(X, pst.rhs.args[1].dtype, pst.rhs.args[1].scope, sub);
  ir::Expr yr = ir::make_ref(Y, site->p2.stmt->rhs.args[1].dtype, site->p2.stmt->rhs.args[1].scope, sub);
  ir::Expr h0 = ir::make_ref(H, xdt, ir::Scope::Global, sub);
  ir::Expr h1 = h0;
  h1.args[a.in_pos] = analysis::offset_index(a.pad_key, a.n);
  concat.body.push_back(ir::Item{make_stmt(h0, xr)});
  concat.body.push_back(ir::Item{make_stmt(h1, yr)});
  {
    auto hh = analysis::helper_header(concat.loops);
    for (const auto& [from, to] : hh.renamed) analysis::rename_key(concat, from, to);
    concat.loops = hh.loops;
  }
  // (2) padding of H into I: α's extent nF+n, its guard's upper bound +n.
  ir::Nest pad = pn;
  ir::Stmt& ps = pad.body[0].stmt();
  ps.lhs.text = I;
  ps.lhs.dtype = analysis::effective_dtype(t, pst.lhs);
  ps.lhs.scope = ir::Scope::Global;
  ps.rhs.args[1] = ir::make_ref(H, xdt, ir::Scope::Global, ps.rhs.args[1].args);
  for (auto& l : pad.loops)
    if (l.var == a.pad_key) l.extent += a.n;
  std::vector<ir::Expr*> chains;
  collect_chains(ps.rhs.args[0], chains);
  for (ir::Expr* ch : chains)
    if (ch->args[1].text == a.pad_key) ch->args[2] = ir::make_int(a.lo + 2 * a.n);
  // (3) the fused convolution into J (α's extent N+n).
  ir::Nest fused = cn;
  for (auto& l : fused.loops)
    if (l.var == a.o) l.extent += a.n;
  ir::Stmt& fs = fused.body[0].stmt();
  const ir::Expr jref = ir::make_ref(J, ddt, ir::Scope::Global, cst.lhs.args);
  fs.lhs = jref;
  fs.rhs.args[0] = jref;
  ir::visit_expr_mut(fs.rhs, [&](ir::Expr& x) {
    if (x.is_ref(site->p1.out)) x.text = I, x.dtype = ps.lhs.dtype, x.scope = ir::Scope::Global;
  });
  // (4) the split into D and E.
  std::size_t o_pos = 0;
  for (std::size_t j = 0; j < cst.lhs.args.size(); ++j)
    if (analysis::is_plain_key(cst.lhs.args[j], a.o)) o_pos = j;
  ir::Expr j_shift = jref;
  j_shift.args[o_pos] = analysis::offset_index(a.o, a.n);
  ir::Expr eref = site->c2.stmt->lhs;
  ir::Nest split = helper_nest(loops_with(cn, site->c1.red.spatial_keys, "", 0),
                               {make_stmt(cst.lhs, jref), make_stmt(eref, j_shift)});
  // (5) corrections.
  std::vector<ir::Nest> fixes;
  std::vector<std::string> fix_prints;
  if (a.d_wrong.first < a.d_wrong.second)
    fixes.push_back(correction(cn, site->c1.red, cst, a, a.d_wrong));
  if (a.e_wrong.first < a.e_wrong.second)
    fixes.push_back(correction(p.nests[site->c2.nest], site->c2.red, *site->c2.stmt, a, a.e_wrong));

  std::vector<ir::Nest> nests;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i) {
    if (i == site->c1.nest) continue;
    if (i != site->c2.nest) {
      nests.push_back(p.nests[i]);
      continue;
    }
    for (ir::Nest* n : {&concat, &pad, &fused, &split}) nests.push_back(*n);
    for (const auto& f : fixes) nests.push_back(f);
  }
  ir::Task after = t;
  after.program.nests = std::move(nests);

  Facts fa(info, c);
  fa.site_nest(p, c.ref.nest);
  fa.site_stmt(cst);
  const std::int64_t p_high = a.nF - a.lo - a.n;
  fa.set("pads", {{{"nest", site->p1.nest}, {"p", a.lo}, {"p_high", p_high}, {"guard", ir::print_expr(pst.rhs.args[0])}},
                  {{"nest", site->p2.nest}, {"p", a.lo}, {"p_high", p_high},
                   {"guard", ir::print_expr(site->p2.stmt->rhs.args[0])}}});
  fa.set("convs", {{{"nest", site->c1.nest}, {"kernel_access", ir::print_expr(*site->c1.w)}},
                   {{"nest", site->c2.nest}, {"kernel_access", ir::print_expr(*site->c2.w)}}});
  fa.set("axis", {{"key", a.o}, {"n", a.n}, {"K", a.K}, {"reduction_key", a.r}});
  fa.set("fused_extent", a.N + a.n);
  fa.set("seam_positions", {{D, {a.d_wrong.first, std::max(a.d_wrong.first, a.d_wrong.second)}},
                            {E, {a.e_wrong.first, std::max(a.e_wrong.first, a.e_wrong.second)}}});
  fa.set("new_buffers", {H, I, J});
  fa.legality("pads and convolutions structurally equal up to buffer renaming", "structural", true,
              ir::print_stmt(pst) + " ~ " + ir::print_stmt(*site->p2.stmt));
  fa.legality("stride 1 and dilation 1 along the axis", "structural", true, ir::print_expr(site->c1.in->args[a.in_pos]));
  fa.legality("no read of " + D + " and no write of " + X + ", " + Y + " or the kernel between the convolutions",
              "structural", true);
  std::int64_t other = 1;
  for (const auto& l : cn.loops)
    if (l.var != a.o &&
        std::find(site->c1.red.spatial_keys.begin(), site->c1.red.spatial_keys.end(), l.var) !=
            site->c1.red.spatial_keys.end())
      other *= l.extent;
  const std::int64_t wrong = (std::max<std::int64_t>(0, a.d_wrong.second - a.d_wrong.first) +
                              std::max<std::int64_t>(0, a.e_wrong.second - a.e_wrong.first)) * other;
  fa.set("elements_recomputed", wrong);
  fa.cost("elements_recomputed", wrong);
  return finish(t, std::move(after), std::move(fa), Exactness::PartialCorrected, &names);
}

STEPTP_REGISTER_STRATEGY(partially_equivalent_then_correct, 35, Special,
                         "Run two identical zero-padded convolutions as one convolution over the "
                         "two inputs concatenated along a spatial axis, then recompute exactly "
                         "the output positions near the seam, where the fused result is wrong.",
                         enumerate_petc, apply_petc);

}  // namespace steptp::strategy::special
