// expression_reorder (STRATEGIES.md §11 entry 8): swap top-level nests i and i+1 when no RAW, WAR or WAW
// dependence links them (B12).
// Legality: first the conservative buffer-level test (the buffers each nest writes are disjoint from everything
// the other nest reads or writes). When it fails only because of RAW/WAR pairs on buffers that one nest reads and
// the other writes (no buffer written by both), isl decides (§7.1): the swapped schedule must reverse no
// dependence between the two nests. A buffer written by both nests is always rejected (WAW at buffer level, which
// also keeps every statement's init status, since init status is a property of the whole buffer). Class E.
#include <set>

#include "strategies/analysis/access.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/common.hpp"
#include "strategies/graph/graph.hpp"

namespace steptp::strategy::graph {
namespace {

struct Plan {
  analysis::NestBuffers a, b;
  std::vector<std::string> conflicts;  // buffers written by one nest and read by the other
  analysis::ScheduleCheck isl;         // when conflicts is non-empty
};

std::vector<std::string> intersect(const std::set<std::string>& x, const std::set<std::string>& y) {
  std::vector<std::string> out;
  for (const auto& s : x)
    if (y.count(s)) out.push_back(s);
  return out;
}

/// The isl test: the statements of nests i and i+1 with their order swapped (first schedule dimension exchanged).
analysis::ScheduleCheck swap_check(const ir::Program& p, std::uint32_t i) {
  auto st = analysis::poly_stmts(p, i);
  auto s2 = analysis::poly_stmts(p, i + 1);
  for (auto& s : st) {
    s.sched_new = s.sched_old;
    s.sched_new[0] = ir::make_int(i + 1);
  }
  for (auto& s : s2) {
    s.sched_new = s.sched_old;
    s.sched_new[0] = ir::make_int(i);
    st.push_back(std::move(s));
  }
  return analysis::check_schedule(st);
}

std::optional<Plan> plan(const ir::Task& t, std::uint32_t i) {
  const auto& nests = t.program.nests;
  if (i + 1 >= nests.size()) return std::nullopt;
  Plan p;
  p.a = analysis::nest_buffers(nests[i]);
  p.b = analysis::nest_buffers(nests[i + 1]);
  if (!intersect(p.a.written, p.b.written).empty()) return std::nullopt;  // WAW (buffer level)
  for (const auto& x : intersect(p.a.written, p.b.read)) p.conflicts.push_back(x);
  for (const auto& x : intersect(p.b.written, p.a.read)) p.conflicts.push_back(x);
  if (p.conflicts.empty()) return p;
  p.isl = swap_check(t.program, i);
  if (!p.isl.legal || p.isl.isl_error) return std::nullopt;
  return p;
}

std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  if (path.size() != 1 || !plan(t, path[0])) return {};
  SiteRef ref;
  ref.nest = path;
  return {Site{ref, no_params()}};
}

}  // namespace

std::vector<Site> enumerate_expression_reorder(const ir::Task& t) { return enumerate_by_nest(t, nest_sites); }

Applied apply_expression_reorder(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("expression_reorder");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const std::uint32_t i = c.ref.nest[0];
  Plan p = *plan(t, i);
  ir::Task after = t;
  std::swap(after.program.nests[i], after.program.nests[i + 1]);
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("pair", {i, i + 1});
  f.set("reads", {p.a.read, p.b.read});
  f.set("writes", {p.a.written, p.b.written});
  if (p.conflicts.empty()) {
    f.set("independence", "buffer level: the buffers each nest writes are disjoint from those the other reads or "
                          "writes");
    f.legality("no RAW, WAR or WAW dependence between the two nests", "structural", true,
               "written sets disjoint from the other nest's accessed sets");
  } else {
    f.set("independence", "isl: no dependence between the two nests on " + nlohmann::json(p.conflicts).dump() +
                              " (accessed elements do not overlap); no buffer is written by both");
    f.legality("no RAW, WAR or WAW dependence between the two nests", "isl", true,
               "swapped schedule reverses none of " + std::to_string(p.isl.dependences) + " dependence relations");
  }
  f.legality("init status preserved", "structural", true, "no buffer is written by both nests");
  return finish(t, std::move(after), std::move(f), Exactness::Exact);
}

}  // namespace steptp::strategy::graph
