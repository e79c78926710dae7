// reduction_factorization (STRATEGIES.md §11 entry 17, rfactor): a top-level nest whose body is one reduction
// statement X_s = X_s (+) e ((+) in + - * max min; not a prefix form; every key in scope used) is replaced by
//   P1: the same header with reduction key r restricted to [0, v):     F_s = F_s (+) e
//   P2: the same header with r restricted to [0, n-v), reading r+v:   G_s = G_s (+) e[r -> r+v]
//   combine, over the spatial loops only (B2; helper header of §7.5):  X_s = F_s (+') G_s          (implicit init)
//                                                                      X_s = X_s (+') (F_s (+') G_s) (continuing)
// where (+') is + for -, else (+); max/min combine with max/min. P1 and P2 reduce over all reduction keys
// (multi-axis reductions stay whole). No input is copied. Fresh names: F then G. Params (r, v), v in 1..n-1,
// keys in header order (an indexed space). Class R for + - *, E for max/min.
#include "ir/printer.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/loop/loop.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {
namespace {

struct SiteInfo {
  analysis::Reduction red;
  std::vector<std::pair<std::string, std::int64_t>> axes;  // reduction keys with extent >= 2, header order
};

std::optional<SiteInfo> site_info(const ir::Program& p, std::uint32_t i) {
  const ir::Nest& n = p.nests[i];
  if (n.body.size() != 1 || !n.body[0].is_stmt()) return std::nullopt;
  auto stmts = analysis::collect_stmts(n, {i});
  auto red = analysis::match_reduction(p, stmts[0]);
  if (!red || !red->unused_keys.empty()) return std::nullopt;
  SiteInfo s{*red, {}};
  for (const auto& l : n.loops)
    if (l.extent >= 2 && std::find(red->reduction_keys.begin(), red->reduction_keys.end(), l.var) !=
                             red->reduction_keys.end())
      s.axes.emplace_back(l.var, l.extent);
  if (s.axes.empty()) return std::nullopt;
  return s;
}


}  // namespace

std::vector<Site> enumerate_rfactor(const ir::Task& t) {
  std::vector<Site> out;
  for (std::uint32_t i = 0; i < t.program.nests.size(); ++i) {
    auto s = site_info(t.program, i);
    if (!s) continue;
    ParamSpace ps;
    auto axes = std::make_shared<std::vector<std::pair<std::string, std::int64_t>>>(s->axes);
    ps.count = 0;
    for (const auto& [k, n] : *axes) ps.count += static_cast<std::uint64_t>(n - 1);
    ps.gen = [axes](std::uint64_t idx) {
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

Applied apply_rfactor(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("reduction_factorization");
  // Site check without materialising the (large) parameter space: the site must exist and (r, v) be in range.
  if (c.ref.nest.size() != 1 || !c.ref.stmt || *c.ref.stmt != 0 || c.ref.loop || !c.ref.expr.empty())
    throw_stale(c.id() + " is not a site of this task");
  const std::uint32_t i = c.ref.nest[0];
  if (i >= t.program.nests.size()) throw_stale(c.id() + " is not a site of this task");
  auto s = site_info(t.program, i);
  if (!s) throw_stale(c.id() + " is not a site of this task");
  if (c.params.size() != 2) throw_bad_params(c.id());
  const std::string r = param_str(c, "r");
  const std::int64_t v = param_int(c, "v");
  std::int64_t n = 0;
  for (const auto& [k, e] : s->axes)
    if (k == r) n = e;
  if (n == 0 || v < 1 || v > n - 1) throw_bad_params(c.id() + ": (r, v) out of range");

  const ir::Nest& site = t.program.nests[i];
  const ir::Stmt& st = site.body[0].stmt();
  const auto& red = s->red;
  const ir::Expr& lhs = st.lhs;
  const ir::KnownBuffer* kb = t.find_known(lhs.text);
  const ir::DType dt = kb ? kb->dtype : lhs.dtype;

  analysis::NameAllocator names(t);
  const std::string fname = names.tensor();
  const std::string gname = names.tensor();
  auto partial_ref = [&](const std::string& name) { return ir::make_ref(name, dt, ir::Scope::Global, lhs.args); };
  auto partial_stmt = [&](const std::string& name) {
    ir::Stmt ps;
    ps.lhs = partial_ref(name);
    ps.rhs = st.rhs;
    ps.rhs.args[0] = partial_ref(name);
    return ps;
  };
  auto with_extent = [&](ir::Nest nest, std::int64_t ext) {
    for (auto& l : nest.loops)
      if (l.var == r) l.extent = ext;
    return nest;
  };
  ir::Nest p1 = with_extent(site, v);
  p1.body[0].stmt() = partial_stmt(fname);
  ir::Nest p2 = with_extent(site, n - v);
  p2.body[0].stmt() = partial_stmt(gname);
  analysis::substitute(p2.body[0].stmt().rhs.args[1], analysis::KeyMap{{r, analysis::offset_index(r, v)}});

  std::vector<ir::Loop> spatial;
  for (const auto& l : site.loops)
    if (std::find(red.spatial_keys.begin(), red.spatial_keys.end(), l.var) != red.spatial_keys.end())
      spatial.push_back(l);
  auto hh = analysis::helper_header(spatial);
  ir::Stmt cs;
  cs.lhs = lhs;
  ir::Expr both = analysis::combine_partials(red.op, partial_ref(fname), partial_ref(gname));
  cs.rhs = red.implicit_init ? std::move(both) : analysis::combine_partials(red.op, lhs, std::move(both));
  ir::Nest comb;
  comb.loops = hh.loops;
  comb.body.push_back(ir::Item{cs});
  for (const auto& [from, to] : hh.renamed) analysis::rename_key(comb, from, to);
  comb.loops = hh.loops;

  ir::Task after = t;
  auto& nests = after.program.nests;
  nests.erase(nests.begin() + i);
  nests.insert(nests.begin() + i, {p1, p2, comb});

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(st);
  f.set("nest", c.ref.nest);
  f.set("reduction_op", std::string(analysis::reduce_op_text(red.op)));
  f.set("spatial_keys", red.spatial_keys);
  f.set("reduction_keys", red.reduction_keys);
  f.set("axis", {{"key", r}, {"extent", n}});
  f.set("split_point", v);
  f.set("partials", {{{"name", fname}, {"range", {0, v}}, {"nest", ir::print_nest(p1)}},
                     {{"name", gname}, {"range", {v, n}}, {"nest", ir::print_nest(p2)}}});
  f.set("combine", ir::print_nest(comb));
  f.set("init_status", red.implicit_init ? "implicit" : "continuing");
  if (!hh.renamed.empty() || hh.loops.size() != spatial.size())
    f.set("combine_binding", {{"renamed", hh.renamed}, {"header", print_header(comb)}});
  f.legality("single-statement reduction, not a prefix form", "structural", true, ir::print_stmt(st));
  std::int64_t elems = 1;
  for (const auto& l : spatial) elems *= l.extent;
  f.cost("elements_added", 2 * elems);
  f.cost("bytes_added", 2 * elems * ir::dtype_bytes(dt));
  const Exactness cls = analysis::reassociates(red.op) ? Exactness::Reassoc : Exactness::Exact;
  return finish(t, std::move(after), std::move(f), cls, &names);
}

}  // namespace steptp::strategy::loop
