// reduction_factorization (STRATEGIES.md §11 entry 17, rfactor): a top-level nest whose body is one reduction
// statement X_s = X_s (+) e ((+) in + - * max min; not a prefix form; every key in scope used) is replaced by
//   P1: the same header with reduction key r restricted to [0, v):     F_s = F_s (+) e
//   P2: the same header with r restricted to [0, n-v), reading r+v:   G_s = G_s (+) e[r -> r+v]
//   combine, over the spatial loops only (B2; helper header of §7.5):  X_s = F_s (+') G_s          (implicit init)
//                                                                      X_s = X_s (+') (F_s (+') G_s) (continuing)
// where (+') is + for -, else (+); max/min combine with max/min. P1 and P2 reduce over all reduction keys
// (multi-axis reductions stay whole). No input is copied. Fresh names: F then G. Params (r, v), v in 1..n-1,
// keys in header order (an indexed space). Class R for + - *, E for max/min.
//
// Lanes variant (a steptp addition, TVM's split + rfactor of the inner axis): params (r, lanes) with lanes w in
// {4, 8, 16, 32, 64, 128} dividing n and n/w >= 2, before every (r, v) of every axis (a bounded enumeration, the
// cost policy's, reaches them on a 32768-long axis). The nest becomes
//   P:       the same header with r of extent n/w and a fresh innermost key l of extent w:  F_{s,l} = F_{s,l} (+) e[r -> r*w+l]
//   combine: the spatial loops (helper header, B2) then L^{w}_{l}:                         X_s = X_s (+') F_{s,l}
// so the w partial sums of each output element are independent (the innermost loop no longer carries the
// reduction, and the C compiler vectorises it without reassociating); the combine is itself a reduction over l,
// with X's own initialiser (implicit) or its earlier contents (continuing), LEIR.md §8.4.
#include "ir/printer.hpp"
#include "strategies/analysis/conditioning.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {
namespace {

struct SiteInfo {
  analysis::Reduction red;
  std::vector<std::pair<std::string, std::int64_t>> axes;  // reduction keys with extent >= 2, header order
  bool lanes_only = false;  // a statistic of one input in a program that divides by a root (entry 17 "Refused")
};

/// The site of nest i, if any. A + - * reduction (reassociated by rfactor) of a program that divides by a root is
/// none, as the normalisation amplifies a changed rounding (analysis/conditioning.hpp), except that a statistic
/// of one input tensor (a normalisation's own sums) takes the lanes variant: chains of n/w and w additions where
/// the original had one of n, so the change stays within the original's rounding allowance (LEIR.md §11 step 4b),
/// where a split at v leaves a chain of up to n-1 additions rounded at other points.
std::optional<SiteInfo> site_info(const ir::Task& t, std::uint32_t i) {
  const ir::Program& p = t.program;
  const ir::Nest& n = p.nests[i];
  if (n.body.size() != 1 || !n.body[0].is_stmt()) return std::nullopt;
  auto stmts = analysis::collect_stmts(n, {i});
  auto red = analysis::match_reduction(p, stmts[0]);
  if (!red || !red->unused_keys.empty()) return std::nullopt;
  SiteInfo s{*red, {}, analysis::reassociates(red->op) && analysis::divides_by_root(t)};
  if (s.lanes_only && !analysis::statistic_of_one_input(t, *red->operand, red->reduction_keys)) return std::nullopt;
  for (const auto& l : n.loops)
    if (l.extent >= 2 && std::find(red->reduction_keys.begin(), red->reduction_keys.end(), l.var) !=
                             red->reduction_keys.end())
      s.axes.emplace_back(l.var, l.extent);
  if (s.axes.empty()) return std::nullopt;
  return s;
}

/// Lane counts of the lanes variant for an axis of extent n, ascending.
std::vector<std::int64_t> lane_counts(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t w : {4, 8, 16, 32, 64, 128})
    if (n % w == 0 && n / w >= 2) out.push_back(w);
  return out;
}

}  // namespace

std::vector<Site> enumerate_rfactor(const ir::Task& t) {
  std::vector<Site> out;
  for (std::uint32_t i = 0; i < t.program.nests.size(); ++i) {
    auto s = site_info(t, i);
    if (!s) continue;
    ParamSpace ps;
    auto axes = std::make_shared<std::vector<std::pair<std::string, std::int64_t>>>(s->axes);
    ps.count = 0;
    const bool lanes_only = s->lanes_only;
    for (const auto& [k, n] : *axes)
      ps.count += (lanes_only ? 0 : static_cast<std::uint64_t>(n - 1)) + lane_counts(n).size();
    if (ps.count == 0) continue;
    ps.gen = [axes](std::uint64_t idx) {
      for (const auto& [k, n] : *axes) {
        const auto ws = lane_counts(n);
        if (idx < ws.size()) return Params{Param{"r", k}, Param{"lanes", ws[idx]}};
        idx -= ws.size();
      }
      for (const auto& [k, n] : *axes) {
        if (idx < static_cast<std::uint64_t>(n - 1))
          return Params{Param{"r", k}, Param{"v", static_cast<std::int64_t>(idx + 1)}};
        idx -= static_cast<std::uint64_t>(n - 1);
      }
      return Params{};
    };
    SiteRef ref;
    ref.nest = {i};
    ref.stmt = 0;
    out.push_back(Site{ref, std::move(ps)});
  }
  return out;
}

namespace {

/// What both variants share: the site, its statement and accumulator, and the combine's header and statement.
struct RfactorCtx {
  const ir::Task& t;
  const Candidate& c;
  std::uint32_t i;
  SiteInfo s;
  std::string r;
  std::int64_t n = 0;
  const ir::Nest& site() const { return t.program.nests[i]; }
  const ir::Stmt& st() const { return site().body[0].stmt(); }
  ir::DType dtype() const {
    const ir::KnownBuffer* kb = t.find_known(st().lhs.text);
    return kb ? kb->dtype : st().lhs.dtype;
  }
  /// `name` with the accumulator's subscript followed by `extra` entries.
  ir::Expr partial_ref(const std::string& name, std::vector<ir::Expr> extra = {}) const {
    std::vector<ir::Expr> args = st().lhs.args;
    for (auto& e : extra) args.push_back(std::move(e));
    return ir::make_ref(name, dtype(), ir::Scope::Global, std::move(args));
  }
  /// The site's statement accumulating into `lhs` instead.
  ir::Stmt partial_stmt(const ir::Expr& lhs) const {
    ir::Stmt ps;
    ps.lhs = lhs;
    ps.rhs = st().rhs;
    ps.rhs.args[0] = lhs;
    return ps;
  }
  std::vector<ir::Loop> spatial_loops() const {
    std::vector<ir::Loop> spatial;
    for (const auto& l : site().loops)
      if (std::find(s.red.spatial_keys.begin(), s.red.spatial_keys.end(), l.var) != s.red.spatial_keys.end())
        spatial.push_back(l);
    return spatial;
  }
};

RfactorCtx check_site(const ir::Task& t, const Candidate& c) {
  // Site check without materialising the (large) parameter space: the site must exist and r be a reduction axis.
  if (c.ref.nest.size() != 1 || !c.ref.stmt || *c.ref.stmt != 0 || c.ref.loop || !c.ref.expr.empty())
    throw_stale(c.id() + " is not a site of this task");
  const std::uint32_t i = c.ref.nest[0];
  if (i >= t.program.nests.size()) throw_stale(c.id() + " is not a site of this task");
  auto s = site_info(t, i);
  if (!s) throw_stale(c.id() + " is not a site of this task");
  if (c.params.size() != 2) throw_bad_params(c.id());
  RfactorCtx x{t, c, i, std::move(*s), param_str(c, "r"), 0};
  for (const auto& [k, e] : x.s.axes)
    if (k == x.r) x.n = e;
  if (x.n == 0) throw_bad_params(c.id() + ": r is not a reduction axis of extent >= 2");
  return x;
}

/// The combine nest: `lhs = rhs` under the helper header `hh`, its renamed keys applied to the statement.
ir::Nest combine_nest(const analysis::HelperHeader& hh, ir::Expr rhs, const ir::Expr& lhs) {
  ir::Stmt cs;
  cs.lhs = lhs;
  cs.rhs = std::move(rhs);
  ir::Nest comb;
  comb.loops = hh.loops;
  comb.body.push_back(ir::Item{cs});
  for (const auto& [from, to] : hh.renamed) analysis::rename_key(comb, from, to);
  comb.loops = hh.loops;
  return comb;
}

/// Facts both variants record.
void common_facts(Facts& f, const RfactorCtx& x) {
  f.site_nest(x.t.program, x.c.ref.nest);
  f.site_stmt(x.st());
  f.set("nest", x.c.ref.nest);
  f.set("reduction_op", std::string(analysis::reduce_op_text(x.s.red.op)));
  f.set("spatial_keys", x.s.red.spatial_keys);
  f.set("reduction_keys", x.s.red.reduction_keys);
  f.set("axis", {{"key", x.r}, {"extent", x.n}});
}

/// Replaces the site by `nests` (the combine last) and records the remaining facts in their order.
Applied finish_rfactor(const RfactorCtx& x, std::vector<ir::Nest> nests, Facts f, analysis::NameAllocator& names,
                       const analysis::HelperHeader& hh, std::int64_t partial_elems) {
  f.set("combine", ir::print_nest(nests.back()));
  f.set("init_status", x.s.red.implicit_init ? "implicit" : "continuing");
  if (!hh.renamed.empty() || hh.loops.size() != x.spatial_loops().size())
    f.set("combine_binding", {{"renamed", hh.renamed}, {"header", print_header(nests.back())}});
  ir::Task after = x.t;
  auto& ns = after.program.nests;
  ns.erase(ns.begin() + x.i);
  ns.insert(ns.begin() + x.i, nests.begin(), nests.end());
  f.legality("single-statement reduction, not a prefix form", "structural", true, ir::print_stmt(x.st()));
  f.cost("elements_added", partial_elems);
  f.cost("bytes_added", partial_elems * ir::dtype_bytes(x.dtype()));
  const Exactness cls = analysis::reassociates(x.s.red.op) ? Exactness::Reassoc : Exactness::Exact;
  return finish(x.t, std::move(after), std::move(f), cls, &names);
}

/// The lanes variant (header comment).
Applied apply_lanes(const RfactorCtx& x, std::int64_t w) {
  const auto ws = lane_counts(x.n);
  if (std::find(ws.begin(), ws.end(), w) == ws.end())
    throw_bad_params(x.c.id() + ": lanes must be 4, 8, 16, 32, 64 or 128, divide the axis and leave >= 2 iterations");
  analysis::NameAllocator names(x.t);
  const std::string fname = names.tensor();
  auto visible = analysis::visible_keys(x.t.program, x.c.ref.nest);
  const std::string l = names.key(visible);
  const ir::Expr lane = ir::make_var(l);

  ir::Nest p = x.site();
  for (auto& lp : p.loops)
    if (lp.var == x.r) lp.extent = x.n / w;
  p.loops.push_back(ir::Loop{ir::LoopKind::L, w, l, 0});
  p.body[0].stmt() = x.partial_stmt(x.partial_ref(fname, {lane}));
  analysis::substitute(p.body[0].stmt().rhs.args[1], analysis::KeyMap{{x.r, analysis::split_index(x.r, w, l)}});

  auto hh = analysis::helper_header(x.spatial_loops());
  ir::Nest comb = combine_nest(
      hh, analysis::combine_partials(x.s.red.op, x.st().lhs, x.partial_ref(fname, {lane})), x.st().lhs);
  comb.loops.push_back(ir::Loop{ir::LoopKind::L, w, l, 0});

  Facts f(info_of("reduction_factorization"), x.c);
  common_facts(f, x);
  f.set("lanes", w);
  f.set("partials", {{{"name", fname}, {"lane_key", l}, {"lanes", w}, {"nest", ir::print_nest(p)}}});
  std::int64_t elems = w;
  for (const auto& lp : x.spatial_loops()) elems *= lp.extent;
  return finish_rfactor(x, {p, comb}, std::move(f), names, hh, elems);
}

}  // namespace

Applied apply_rfactor(const ir::Task& t, const Candidate& c) {
  const RfactorCtx x = check_site(t, c);
  bool lanes = false;
  for (const auto& prm : c.params) lanes = lanes || prm.name == "lanes";
  if (lanes) return apply_lanes(x, param_int(c, "lanes"));
  if (x.s.lanes_only)
    throw_bad_params(c.id() + ": a statistic of a program that divides by a root takes the lanes variant only");
  const std::string& r = x.r;
  const std::int64_t n = x.n;
  const std::int64_t v = param_int(c, "v");
  if (v < 1 || v > n - 1) throw_bad_params(c.id() + ": (r, v) out of range");

  const ir::Nest& site = x.site();
  const auto& red = x.s.red;
  const ir::Expr& lhs = x.st().lhs;

  analysis::NameAllocator names(t);
  const std::string fname = names.tensor();
  const std::string gname = names.tensor();
  auto with_extent = [&](ir::Nest nest, std::int64_t ext) {
    for (auto& l : nest.loops)
      if (l.var == r) l.extent = ext;
    return nest;
  };
  ir::Nest p1 = with_extent(site, v);
  p1.body[0].stmt() = x.partial_stmt(x.partial_ref(fname));
  ir::Nest p2 = with_extent(site, n - v);
  p2.body[0].stmt() = x.partial_stmt(x.partial_ref(gname));
  analysis::substitute(p2.body[0].stmt().rhs.args[1], analysis::KeyMap{{r, analysis::offset_index(r, v)}});

  const std::vector<ir::Loop> spatial = x.spatial_loops();
  auto hh = analysis::helper_header(spatial);
  ir::Expr both = analysis::combine_partials(red.op, x.partial_ref(fname), x.partial_ref(gname));
  const ir::Nest comb = combine_nest(
      hh, red.implicit_init ? std::move(both) : analysis::combine_partials(red.op, lhs, std::move(both)), lhs);

  Facts f(info_of("reduction_factorization"), c);
  common_facts(f, x);
  f.set("split_point", v);
  f.set("partials", {{{"name", fname}, {"range", {0, v}}, {"nest", ir::print_nest(p1)}},
                     {{"name", gname}, {"range", {v, n}}, {"nest", ir::print_nest(p2)}}});
  std::int64_t elems = 1;
  for (const auto& l : spatial) elems *= l.extent;
  return finish_rfactor(x, {p1, p2, comb}, std::move(f), names, hh, 2 * elems);
}

STEPTP_REGISTER_STRATEGY(reduction_factorization, 17, Loop,
                         "Split one reduction axis into two partial reductions over disjoint "
                         "ranges, each into its own buffer, and combine the two partials in a "
                         "final nest (rfactor).",
                         enumerate_rfactor, apply_rfactor);

}  // namespace steptp::strategy::loop
