// loop_binding (STRATEGIES.md §11 entry 16): bind one spatial L loop that carries no dependence to a hardware
// tag (tx ty tz bx by bz) and rename its key to tag+key (a -> tya) in the header, subscripts and value uses.
// After binding (B19): no tag bound twice in the top-level nest, the new key is unused there, launch limits
// hold (threadIdx x,y <= 1024, z <= 64, product <= 1024; blockIdx x <= 2^31-1, y,z <= 65535), and the nest
// invariants (scope confinement, parallel loops) still hold. Params (loop, tag): every legal pair, header order
// then tag order. Class E.
#include "ir/validate.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/analysis/parallel.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {
namespace {

ir::Task bound(const ir::Task& t, const analysis::NestPath& path, std::uint32_t k, const std::string& tag) {
  ir::Task a = t;
  ir::Nest& n = *analysis::nest_at(a.program, path);
  const std::string old = n.loops[k].var;
  const std::string key = tag + old;
  n.loops[k].kind = ir::LoopKind::B;
  n.loops[k].var = key;
  analysis::substitute(n, analysis::KeyMap{{old, ir::make_var(key)}});
  return a;
}

}  // namespace

namespace {
std::vector<Site> binding_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  std::vector<Site> out;
  const auto& cfg = default_config();
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  const ir::Nest& top = t.program.nests[path[0]];
  auto tags = analysis::bound_tags(top);
  std::set<std::string> top_keys;
  analysis::collect_keys(top, top_keys);
  std::vector<Params> ps;
  for (std::uint32_t k = 0; k < n.loops.size(); ++k) {
    const auto& l = n.loops[k];
    if (l.kind != ir::LoopKind::L || ir::is_reducing_loop(n, l.var)) continue;
    if (!probe_loop(only, k) || analysis::loop_carries(t.program, path, k).carries) continue;
    for (const auto& tag : analysis::hw_tags()) {
      if (tags.count(tag) || top_keys.count(tag + l.var)) continue;
      auto nt = tags;
      nt[tag] = l.extent;
      if (!analysis::launch_limits_ok(nt, cfg)) continue;
      Params tuple{Param{"loop", static_cast<std::int64_t>(k)}, Param{"tag", tag}};
      if (!probe_params(only, tuple)) continue;
      ir::Task a = bound(t, path, k, tag);
      if (!nest_invariants_broken(a.program, path[0]).empty()) continue;
      ps.push_back(std::move(tuple));
    }
  }
  if (ps.empty()) return out;
  SiteRef ref;
  ref.nest = path;
  out.push_back(Site{ref, list_params(std::move(ps))});
  return out;
}
}  // namespace

std::vector<Site> enumerate_binding(const ir::Task& t) { return enumerate_by_nest(t, binding_sites); }

Applied apply_binding(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("loop_binding");
  recheck_nest(t, c, binding_sites);
  const auto k = static_cast<std::uint32_t>(param_int(c, "loop"));
  const std::string tag = param_str(c, "tag");
  const ir::Nest& n = *analysis::nest_at(t.program, c.ref.nest);
  const ir::Loop l = n.loops[k];
  ir::Task after = bound(t, c.ref.nest, k, tag);
  auto verdict = analysis::loop_carries(t.program, c.ref.nest, k);
  auto before_tags = analysis::bound_tags(t.program.nests[c.ref.nest[0]]);
  auto after_tags = analysis::bound_tags(after.program.nests[c.ref.nest[0]]);
  analysis::NameAllocator names(t);
  names.record(tag + l.var);
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("loop", {{"key", l.var}, {"extent", l.extent}});
  f.set("tag", tag);
  f.set("new_key", tag + l.var);
  f.set("thread_product", {analysis::thread_product(before_tags), analysis::thread_product(after_tags)});
  f.set("bound_tags", after_tags);
  f.legality("no dependence carried", verdict.method, true, "loop " + l.var);
  f.legality("tag unbound and launch limits", "structural", true, tag + " extent " + std::to_string(l.extent));
  return finish(t, std::move(after), std::move(f), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(loop_binding, 16, Loop,
                         "Bind one serial loop that carries no dependence to a GPU thread or "
                         "block axis, and rename its key everywhere it is used.",
                         enumerate_binding, apply_binding);

}  // namespace steptp::strategy::loop
