#include "strategies/analysis/locate.hpp"

#include "ir/validate.hpp"

namespace steptp::strategy::analysis {

const ir::Nest* nest_at(const ir::Program& p, const NestPath& path) {
  if (path.empty() || path[0] >= p.nests.size()) return nullptr;
  const ir::Nest* n = &p.nests[path[0]];
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (path[i] >= n->body.size() || !n->body[path[i]].is_nest()) return nullptr;
    n = &n->body[path[i]].nest();
  }
  return n;
}

ir::Nest* nest_at(ir::Program& p, const NestPath& path) {
  return const_cast<ir::Nest*>(nest_at(static_cast<const ir::Program&>(p), path));
}

namespace {
void paths_rec(const ir::Nest& n, NestPath& cur, std::vector<NestPath>& out) {
  out.push_back(cur);
  for (std::uint32_t i = 0; i < n.body.size(); ++i) {
    if (!n.body[i].is_nest()) continue;
    cur.push_back(i);
    paths_rec(n.body[i].nest(), cur, out);
    cur.pop_back();
  }
}
void stmts_rec(const ir::Nest& n, NestPath& path, std::vector<const ir::Loop*>& loops, std::vector<StmtCtx>& out) {
  for (const auto& l : n.loops) loops.push_back(&l);
  for (std::uint32_t i = 0; i < n.body.size(); ++i) {
    const auto& it = n.body[i];
    if (it.is_stmt()) {
      out.push_back(StmtCtx{&it.stmt(), loops, path, i});
    } else {
      path.push_back(i);
      stmts_rec(it.nest(), path, loops, out);
      path.pop_back();
    }
  }
  loops.resize(loops.size() - n.loops.size());
}
}  // namespace

std::vector<NestPath> all_nest_paths(const ir::Program& p) {
  std::vector<NestPath> out;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i) {
    NestPath cur{i};
    paths_rec(p.nests[i], cur, out);
  }
  return out;
}

std::vector<ir::Loop> enclosing_loops(const ir::Program& p, const NestPath& path) {
  std::vector<ir::Loop> out;
  if (path.empty() || path[0] >= p.nests.size()) return out;
  const ir::Nest* n = &p.nests[path[0]];
  for (std::size_t i = 1; i < path.size(); ++i) {
    out.insert(out.end(), n->loops.begin(), n->loops.end());
    if (path[i] >= n->body.size() || !n->body[path[i]].is_nest()) return out;
    n = &n->body[path[i]].nest();
  }
  return out;
}

std::vector<StmtCtx> collect_stmts(const ir::Nest& n, const NestPath& path,
                                   const std::vector<const ir::Loop*>& outer) {
  std::vector<StmtCtx> out;
  NestPath cur = path;
  std::vector<const ir::Loop*> loops = outer;
  stmts_rec(n, cur, loops, out);
  return out;
}

std::vector<StmtCtx> collect_stmts(const ir::Program& p) {
  std::vector<StmtCtx> out;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i) {
    auto v = collect_stmts(p.nests[i], NestPath{i});
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

std::vector<std::string> keys_used(const ir::Expr& e, const std::vector<const ir::Loop*>& loops) {
  std::vector<std::string> out;
  for (const auto* l : loops)
    if (ir::mentions_var(e, l->var)) out.push_back(l->var);
  return out;
}

}  // namespace steptp::strategy::analysis
