// loop_unrolling (STRATEGIES.md §11 entry 13): mark one L loop with 2 <= extent < max_unroll as U. Bound,
// parallel and vector loops are never changed. Class E.
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {

namespace {
std::vector<Site> unroll_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  std::vector<Site> out;
  const auto& cfg = default_config();
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  for (std::uint32_t k = 0; k < n.loops.size(); ++k) {
    const auto& l = n.loops[k];
    if (l.kind != ir::LoopKind::L || l.extent < 2 || l.extent >= cfg.max_unroll) continue;
    SiteRef ref;
    ref.nest = path;
    ref.loop = k;
    out.push_back(Site{ref, no_params()});
  }
  return out;
}
}  // namespace

std::vector<Site> enumerate_unrolling(const ir::Task& t) { return enumerate_by_nest(t, unroll_sites); }

Applied apply_unrolling(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("loop_unrolling");
  recheck_nest(t, c, unroll_sites);
  ir::Task after = t;
  ir::Nest& n = *analysis::nest_at(after.program, c.ref.nest);
  ir::Loop& l = n.loops[*c.ref.loop];
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("loop", {{"key", l.var}, {"extent", l.extent}});
  f.set("kind_before", "L");
  f.set("kind_after", "U");
  f.legality("serial loop with 2 <= extent < max_unroll", "structural", true,
             "extent " + std::to_string(l.extent) + " < " + std::to_string(default_config().max_unroll));
  l.kind = ir::LoopKind::U;
  return finish(t, std::move(after), std::move(f), Exactness::Exact);
}

STEPTP_REGISTER_STRATEGY(loop_unrolling, 13, Loop,
                         "Mark one serial loop for unrolling.",
                         enumerate_unrolling, apply_unrolling);

}  // namespace steptp::strategy::loop
