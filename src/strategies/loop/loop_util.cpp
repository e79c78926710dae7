#include "strategies/loop/loop_util.hpp"

#include "strategies/analysis/confined.hpp"
#include "strategies/analysis/parallel.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::loop {

namespace {
bool inside_rec(const ir::Nest& n, bool bound) {
  for (const auto& l : n.loops) {
    if (l.kind == ir::LoopKind::P && !bound) return false;
    if (l.kind == ir::LoopKind::B) bound = true;
  }
  for (const auto& it : n.body)
    if (it.is_nest() && !inside_rec(it.nest(), bound)) return false;
  return true;
}
}  // namespace

bool parallel_loops_inside_bound(const ir::Nest& n) { return inside_rec(n, false); }

std::string nest_invariants_broken(const ir::Program& p, std::uint32_t top) {
  if (!parallel_loops_inside_bound(p.nests.at(top))) return "a parallel loop lies outside every bound loop";
  std::string why;
  if (!analysis::parallel_loops_ok(p, top, &why)) return why;
  if (!analysis::scopes_confined(p, top, &why)) return why;
  return "";
}

const ir::Nest& site_nest(const ir::Program& p, const analysis::NestPath& path) {
  const ir::Nest* n = analysis::nest_at(p, path);
  if (!n) throw_stale("no nest at this path");
  return *n;
}

}  // namespace steptp::strategy::loop
