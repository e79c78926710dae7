// loop_split (STRATEGIES.md §11 entry 11): split one loop x of extent n = f0*f1 into an outer loop (fresh key k,
// kind L, extent f0) and the inner loop (key x, its kind, extent f1); every use of x becomes k*f1+x.
// Iteration order is unchanged, so every composite loop is a site (spatial or reduction; value uses too, B7).
#include "ir/printer.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {

namespace {
std::vector<Site> split_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  std::vector<Site> out;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  for (std::uint32_t k = 0; k < n.loops.size(); ++k) {
    auto divs = proper_divisors(n.loops[k].extent);
    if (divs.empty()) continue;
    SiteRef ref;
    ref.nest = path;
    ref.loop = k;
    std::vector<Params> ps;
    for (auto f : divs) ps.push_back(Params{Param{"outer", f}});
    out.push_back(Site{ref, list_params(std::move(ps))});
  }
  return out;
}
}  // namespace

std::vector<Site> enumerate_split(const ir::Task& t) { return enumerate_by_nest(t, split_sites); }

Applied apply_split(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("loop_split");
  recheck_nest(t, c, split_sites);
  const std::int64_t f0 = param_int(c, "outer");
  ir::Task after = t;
  ir::Nest& n = *analysis::nest_at(after.program, c.ref.nest);
  const std::uint32_t pos = *c.ref.loop;
  const ir::Loop old = n.loops[pos];
  const std::int64_t f1 = old.extent / f0;

  analysis::NameAllocator names(t);
  auto visible = analysis::visible_keys(t.program, c.ref.nest);
  const std::string k = names.key(visible);

  ir::Expr repl = analysis::split_index(k, f1, old.var);
  analysis::substitute(n, analysis::KeyMap{{old.var, repl}});
  n.loops[pos].extent = f1;
  n.loops.insert(n.loops.begin() + pos, ir::Loop{ir::LoopKind::L, f0, k, 0});

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("loop", loop_json(old));
  f.set("factors", {f0, f1});
  f.set("new_key", k);
  f.set("substitution", old.var + " -> " + ir::print_expr(repl));
  f.set("header_before", print_header(*analysis::nest_at(t.program, c.ref.nest)));
  f.set("header_after", print_header(n));
  f.legality("iteration order unchanged", "structural", true, "a split keeps the lexicographic order");
  return finish(t, std::move(after), std::move(f), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(loop_split, 11, Loop,
                         "Split one loop into an outer and an inner loop whose extents multiply "
                         "to the original extent.",
                         enumerate_split, apply_split);

}  // namespace steptp::strategy::loop
