// loop_tiling (STRATEGIES.md §11 entry 10): tile adjacent loops x (position j) and y (j+1) of one header with
// tile-loop extents (fx0, fy0): header ... L^{fx0}_{kx} L^{fy0}_{ky} x^{fx1} y^{fy1} ..., every use x -> kx*fx1+x,
// y -> ky*fy1+y. Site: both extents composite and the band {x, y} fully permutable: the interchanged schedule
// respects every non-reduction dependence (isl, §7.1; equivalent to all dependence distances on x and y being
// >= 0), or both loops pass §7.2. Class from isl on the tiled schedule: R when a + - * reduction dependence is
// reordered, else E (tiling a single reduction loop keeps each element's accumulation order).
#include <algorithm>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/analysis/parallel.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {
namespace {

struct Tiled {
  ir::Task task;
  std::string kx, ky;
  analysis::KeyMap old_key_of;
};

Tiled tile(const ir::Task& t, const analysis::NestPath& path, std::uint32_t j, std::int64_t fx0, std::int64_t fy0,
           analysis::NameAllocator& names) {
  Tiled r{t, "", "", {}};
  ir::Nest& n = *analysis::nest_at(r.task.program, path);
  const ir::Loop x = n.loops[j], y = n.loops[j + 1];
  const std::int64_t fx1 = x.extent / fx0, fy1 = y.extent / fy0;
  auto visible = analysis::visible_keys(t.program, path);
  r.kx = names.key(visible);
  r.ky = names.key(visible);
  r.old_key_of[x.var] = analysis::split_index(r.kx, fx1, x.var);
  r.old_key_of[y.var] = analysis::split_index(r.ky, fy1, y.var);
  analysis::substitute(n, r.old_key_of);
  n.loops[j].extent = fx1;
  n.loops[j + 1].extent = fy1;
  n.loops.insert(n.loops.begin() + j, {ir::Loop{ir::LoopKind::L, fx0, r.kx, 0}, ir::Loop{ir::LoopKind::L, fy0, r.ky, 0}});
  return r;
}

/// Band permutability of (j, j+1): the interchange of the two loops is legal.
std::pair<bool, std::string> permutable(const ir::Task& t, const analysis::NestPath& path, std::uint32_t j) {
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  if (analysis::parallel_by_inspection(n, n.loops[j].var) && analysis::parallel_by_inspection(n, n.loops[j + 1].var))
    return {true, "syntactic"};
  if (analysis::only_reduction_dependences(t.program, path[0])) return {true, "structural"};
  ir::Task sw = t;
  auto& loops = analysis::nest_at(sw.program, path)->loops;
  std::swap(loops[j], loops[j + 1]);
  auto chk = analysis::check_schedule(analysis::reschedule_stmts(t.program, sw.program, path[0], {}));
  return {chk.legal, "isl"};
}

bool has_scoped_buffers(const ir::Nest& n) {
  for (const auto& sc : analysis::collect_stmts(n, {0}))
    for (const auto& a : analysis::stmt_accesses(*sc.stmt))
      if (a.ref->scope != ir::Scope::Global) return true;
  return false;
}

}  // namespace

namespace {
std::vector<Site> tiling_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  std::vector<Site> out;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  for (std::uint32_t j = 0; j + 1 < n.loops.size(); ++j) {
    auto dx = proper_divisors(n.loops[j].extent), dy = proper_divisors(n.loops[j + 1].extent);
    if (dx.empty() || dy.empty()) continue;
    if (!probe_loop(only, j) || !permutable(t, path, j).first) continue;
    const bool scoped = has_scoped_buffers(t.program.nests[path[0]]);
    std::vector<Params> ps;
    for (auto fx : dx)
      for (auto fy : dy) {
        if (scoped && probe_params(only, Params{Param{"fx0", fx}, Param{"fy0", fy}})) {
          analysis::NameAllocator names(t);
          Tiled r = tile(t, path, j, fx, fy, names);
          if (!nest_invariants_broken(r.task.program, path[0]).empty()) continue;
        }
        ps.push_back(Params{Param{"fx0", fx}, Param{"fy0", fy}});
      }
    if (ps.empty()) continue;
    SiteRef ref;
    ref.nest = path;
    ref.loop = j;
    out.push_back(Site{ref, list_params(std::move(ps))});
  }
  return out;
}
}  // namespace

std::vector<Site> enumerate_tiling(const ir::Task& t) { return enumerate_by_nest(t, tiling_sites); }

Applied apply_tiling(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("loop_tiling");
  recheck_nest(t, c, tiling_sites);
  const std::uint32_t j = *c.ref.loop;
  const std::int64_t fx0 = param_int(c, "fx0"), fy0 = param_int(c, "fy0");
  const ir::Nest& n = *analysis::nest_at(t.program, c.ref.nest);
  const ir::Loop x = n.loops[j], y = n.loops[j + 1];
  analysis::NameAllocator names(t);
  Tiled r = tile(t, c.ref.nest, j, fx0, fy0, names);
  auto perm = permutable(t, c.ref.nest, j);
  Exactness cls = Exactness::Exact;
  std::string evidence_method = "isl", evidence;
  if (analysis::Reduction red; analysis::only_reduction_dependences(t.program, c.ref.nest[0], &red)) {
    // Single reduction statement: every element's accumulation order changes iff both tiled keys accumulate
    // (neither occurs in the LHS subscript); tiling one accumulating key keeps kx*f1+x ascending.
    evidence_method = "structural";
    const ir::Stmt& st = *analysis::collect_stmts(t.program.nests[c.ref.nest[0]], {c.ref.nest[0]})[0].stmt;
    const bool both = !ir::mentions_var(st.lhs, x.var) && !ir::mentions_var(st.lhs, y.var);
    if (both && analysis::reassociates(red.op)) cls = Exactness::Reassoc;
    evidence = "only reduction dependences; accumulation order " + std::string(both ? "changes" : "kept");
  } else {
    // Only the tiled nest's statements get the new keys: a sibling nested nest may reuse the names x and y.
    // The verdict does not depend on the factors: on a fully permutable band every dependence distance on (x, y)
    // is >= 0, so any tiling respects it, and with proper divisors (every tile and every tile count >= 2) a
    // reduction's accumulation order changes exactly when both x and y accumulate. The check therefore runs on
    // the smallest factors, shared by every candidate of this band (analysis::check_schedule memoises it).
    const std::uint32_t top = c.ref.nest[0];
    Tiled canon = [&] {
      analysis::NameAllocator scratch(t);
      return tile(t, c.ref.nest, j, proper_divisors(x.extent).front(), proper_divisors(y.extent).front(), scratch);
    }();
    std::vector<analysis::KeyMap> maps;
    for (const auto& sc : analysis::collect_stmts(canon.task.program.nests[top], {top})) {
      const bool inside = sc.nest.size() >= c.ref.nest.size() &&
                          std::equal(c.ref.nest.begin(), c.ref.nest.end(), sc.nest.begin());
      maps.push_back(inside ? canon.old_key_of : analysis::KeyMap{});
    }
    auto chk = analysis::check_schedule(
        analysis::reschedule_range(t.program, top, top + 1, canon.task.program, top, top + 1, maps));
    if (!chk.legal) throw StrategyError(Code::S003, c.id() + ": tiled schedule violates " + chk.detail);
    if (chk.reassociated) cls = Exactness::Reassoc;
    evidence = std::to_string(chk.dependences) + " dependence relations, " + std::to_string(chk.reduction_dependences) +
               " reduction";
  }

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("keys", {x.var, y.var});
  f.set("extents", {x.extent, y.extent});
  f.set("factors", {{fx0, x.extent / fx0}, {fy0, y.extent / fy0}});
  f.set("new_keys", {r.kx, r.ky});
  f.set("substitution", {x.var + " -> " + ir::print_expr(r.old_key_of.at(x.var)),
                         y.var + " -> " + ir::print_expr(r.old_key_of.at(y.var))});
  f.set("header_before", print_header(n));
  f.set("header_after", print_header(*analysis::nest_at(r.task.program, c.ref.nest)));
  f.legality("band fully permutable", perm.second, true, x.var + ", " + y.var);
  f.legality("tiled schedule respects dependences", evidence_method, true, evidence);
  return finish(t, std::move(r.task), std::move(f), cls, &names);
}

STEPTP_REGISTER_STRATEGY(loop_tiling, 10, Loop,
                         "Tile two adjacent loops: split each into a tile loop and a point loop, "
                         "and order them tile-x, tile-y, point-x, point-y.",
                         enumerate_tiling, apply_tiling);

}  // namespace steptp::strategy::loop
