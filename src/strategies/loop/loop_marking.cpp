// loop_parallelization and loop_vectorization (STRATEGIES.md §11 entries 14, 15): mark one L loop that carries
// no dependence (§7.2 syntactic test, else isl §7.1; reduction loops never qualify, B18) and lies inside the
// nest's outermost bound loop as P, or — when 2 <= extent <= vector_width — as V. Class E.
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/parallel.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {
namespace {

/// Is there a B loop on the chain of loops enclosing header position `k` of the nest at `path`?
bool inside_bound(const ir::Program& p, const analysis::NestPath& path, std::uint32_t k) {
  for (const auto& l : analysis::enclosing_loops(p, path))
    if (l.kind == ir::LoopKind::B) return true;
  const ir::Nest& n = *analysis::nest_at(p, path);
  for (std::uint32_t i = 0; i < k; ++i)
    if (n.loops[i].kind == ir::LoopKind::B) return true;
  return false;
}

std::vector<Site> marking_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only,
                                std::int64_t max_extent) {
  std::vector<Site> out;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  for (std::uint32_t k = 0; k < n.loops.size(); ++k) {
    const auto& l = n.loops[k];
    if (l.kind != ir::LoopKind::L || l.extent < 2 || l.extent > max_extent) continue;
    if (ir::is_reducing_loop(n, l.var)) continue;
    if (!inside_bound(t.program, path, k)) continue;
    if (!probe_loop(only, k) || analysis::loop_carries(t.program, path, k).carries) continue;
    SiteRef ref;
    ref.nest = path;
    ref.loop = k;
    out.push_back(Site{ref, no_params()});
  }
  return out;
}
std::vector<Site> par_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  return marking_sites(t, path, only, INT64_MAX);
}
std::vector<Site> vec_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  return marking_sites(t, path, only, default_config().vector_width);
}

Applied apply_marking(const ir::Task& t, const Candidate& c, const char* name, ir::LoopKind kind) {
  const StrategyInfo& info = info_of(name);
  recheck_nest(t, c, kind == ir::LoopKind::P ? par_sites : vec_sites);
  ir::Task after = t;
  ir::Nest& n = *analysis::nest_at(after.program, c.ref.nest);
  ir::Loop& l = n.loops[*c.ref.loop];
  auto verdict = analysis::loop_carries(t.program, c.ref.nest, *c.ref.loop);
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("loop", {{"key", l.var}, {"extent", l.extent}});
  auto bufs = analysis::nest_buffers(n);
  f.set("parallel_evidence", {{"method", verdict.method}, {"writes_checked", bufs.written}});
  f.legality("no dependence carried", verdict.method, true, "loop " + l.var);
  f.legality("not a reduction loop", "structural", true, "every write subscript mentions " + l.var);
  if (kind == ir::LoopKind::V) f.set("vector_width", default_config().vector_width);
  l.kind = kind;
  return finish(t, std::move(after), std::move(f), Exactness::Exact);
}

}  // namespace

std::vector<Site> enumerate_parallelization(const ir::Task& t) {
  return enumerate_by_nest(t, par_sites);
}
Applied apply_parallelization(const ir::Task& t, const Candidate& c) {
  return apply_marking(t, c, "loop_parallelization", ir::LoopKind::P);
}
std::vector<Site> enumerate_vectorization(const ir::Task& t) {
  return enumerate_by_nest(t, vec_sites);
}
Applied apply_vectorization(const ir::Task& t, const Candidate& c) {
  return apply_marking(t, c, "loop_vectorization", ir::LoopKind::V);
}

STEPTP_REGISTER_STRATEGY(loop_parallelization, 14, Loop,
                         "Mark one serial loop that carries no dependence as parallel.",
                         enumerate_parallelization, apply_parallelization);
STEPTP_REGISTER_STRATEGY(loop_vectorization, 15, Loop,
                         "Mark one short serial loop that carries no dependence as vectorised.",
                         enumerate_vectorization, apply_vectorization);

}  // namespace steptp::strategy::loop
