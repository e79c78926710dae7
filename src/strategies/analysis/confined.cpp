#include "strategies/analysis/confined.hpp"

#include <cstdint>
#include <set>

#include "strategies/analysis/access.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/locate.hpp"

namespace steptp::strategy::analysis {

namespace {
// Exact shortcut of the value-flow test: every access to `buffer` is in a statement directly in the nest's body
// (so the B loops enclosing it are the header's) and uses one subscript of distinct plain keys that are exactly the
// header keys. Each element is then touched in one header iteration only, so every read sees a value written in
// its own iteration of every header loop, B loops included (or no write at all, which the flow test accepts too).
bool same_iteration_accesses(const ir::Nest& n, const std::string& buffer) {
  const ir::Expr* first = nullptr;
  for (const auto& it : n.body) {
    if (it.is_nest()) {
      const auto nb = nest_buffers(it.nest());
      if (nb.read.count(buffer) || nb.written.count(buffer)) return false;
      continue;
    }
    for (const auto& a : stmt_accesses(it.stmt())) {
      if (a.buffer() != buffer) continue;
      if (!full_header_subscript(*a.ref, n.loops) || (first && !(first->args == a.ref->args))) return false;
      first = a.ref;
    }
  }
  return true;
}
}  // namespace

bool confined(const ir::Program& p, const std::string& buffer, ir::Scope scope) {
  if (scope == ir::Scope::Global) return true;
  int top = -1;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i) {
    auto b = nest_buffers(p.nests[i]);
    if (b.read.count(buffer) || b.written.count(buffer)) {
      if (top >= 0) return false;  // two top-level nests (E214)
      top = static_cast<int>(i);
    }
  }
  if (top < 0) return true;
  return confined_in_nest(p, buffer, scope, static_cast<std::uint32_t>(top));
}

bool confined_in_nest(const ir::Program& p, const std::string& buffer, ir::Scope scope, std::uint32_t top) {
  if (scope == ir::Scope::Global) return true;
  const ir::Nest& n = p.nests.at(top);
  int first_b = -1;
  for (std::size_t k = 0; k < n.loops.size(); ++k)
    if (n.loops[k].kind == ir::LoopKind::B) {
      first_b = static_cast<int>(k);
      break;
    }
  if (first_b < 0) return false;
  if (same_iteration_accesses(n, buffer)) return true;
  auto stmts = poly_stmts(p, top);
  auto ctxs = collect_stmts(n, NestPath{top});
  std::vector<std::size_t> prefix(stmts.size(), SIZE_MAX);
  for (std::size_t j = 0; j < ctxs.size(); ++j) {
    bool reads = false;
    for (const auto& a : stmt_accesses(*ctxs[j].stmt)) reads = reads || (!a.write && a.buffer() == buffer);
    if (!reads) continue;
    // Flattened loop k of a statement sits at schedule dim 1 + 2k.
    std::size_t d = 1 + 2 * static_cast<std::size_t>(first_b);
    if (scope == ir::Scope::Local)
      for (std::size_t k = 0; k < ctxs[j].loops.size(); ++k)
        if (ctxs[j].loops[k]->kind == ir::LoopKind::B) d = std::max(d, 1 + 2 * k);
    prefix[j] = d;
  }
  return raw_deps_within_prefix(stmts, buffer, prefix);
}

bool scopes_confined(const ir::Program& p, std::uint32_t top, std::string* detail) {
  std::set<std::pair<std::string, ir::Scope>> bufs;
  for (const auto& sc : collect_stmts(p.nests.at(top), NestPath{top}))
    for (const auto& a : stmt_accesses(*sc.stmt))
      if (a.ref->scope != ir::Scope::Global) bufs.insert({a.buffer(), a.ref->scope});
  for (const auto& [b, s] : bufs)
    if (!confined(p, b, s)) {
      if (detail) *detail = "buffer " + b + " is no longer confined to its scope";
      return false;
    }
  return true;
}

}  // namespace steptp::strategy::analysis
