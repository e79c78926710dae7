#include "strategies/analysis/parallel.hpp"

#include <map>

#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/analysis/deps.hpp"

namespace steptp::strategy::analysis {

bool parallel_by_inspection(const ir::Nest& n, const std::string& x) {
  auto stmts = collect_stmts(n, NestPath{0});
  std::map<std::string, const ir::Expr*> write_sub;
  for (const auto& sc : stmts) {
    const ir::Expr& w = sc.stmt->lhs;
    bool plain = false;
    for (const auto& e : w.args) plain = plain || is_plain_key(e, x);
    if (!plain) return false;
    auto [it, fresh] = write_sub.emplace(w.text, &w);
    if (!fresh && !(it->second->args == w.args)) return false;
  }
  for (const auto& sc : stmts)
    for (const auto& a : stmt_accesses(*sc.stmt)) {
      auto it = write_sub.find(a.buffer());
      if (it != write_sub.end() && !(it->second->args == a.ref->args)) return false;
    }
  return true;
}

CarryVerdict loop_carries(const ir::Program& p, const NestPath& path, std::uint32_t loop) {
  const ir::Nest* n = nest_at(p, path);
  if (!n || loop >= n->loops.size()) return {true, "structural"};
  if (parallel_by_inspection(*n, n->loops[loop].var)) return {false, "syntactic"};
  auto stmts = poly_stmts(p, path[0]);
  return {carries_dependence(stmts, loop_sched_dim(p, path, loop)), "isl"};
}

bool only_reduction_dependences(const ir::Program& p, std::uint32_t top, Reduction* red) {
  auto stmts = collect_stmts(p.nests.at(top), NestPath{top});
  if (stmts.size() != 1) return false;
  auto r = match_reduction(p, stmts[0]);
  if (!r || (r->implicit_init && !r->unused_keys.empty())) return false;
  if (has_gather(*r->lhs)) return false;
  if (red) *red = *r;
  return true;
}

bool parallel_loops_ok(const ir::Program& p, std::uint32_t top, std::string* detail) {
  for (const auto& path : all_nest_paths(p)) {
    if (path[0] != top) continue;
    const ir::Nest* n = nest_at(p, path);
    for (std::uint32_t k = 0; k < n->loops.size(); ++k) {
      const ir::Loop& l = n->loops[k];
      if (l.kind == ir::LoopKind::L || l.kind == ir::LoopKind::U || l.extent <= 1) continue;
      if (ir::is_reducing_loop(*n, l.var)) continue;
      if (loop_carries(p, path, k).carries) {
        if (detail) *detail = "loop " + l.var + " carries a dependence";
        return false;
      }
    }
  }
  return true;
}

}  // namespace steptp::strategy::analysis
