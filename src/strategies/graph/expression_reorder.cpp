// expression_reorder (STRATEGIES.md §11 entry 8): swap top-level nests i and i+1 when no RAW, WAR or WAW
// dependence links them (B12).
// Legality: first the conservative buffer-level test (the buffers each nest writes are disjoint from everything
// the other nest reads or writes). When it fails only because of RAW/WAR pairs on buffers that one nest reads and
// the other writes (no buffer written by both), isl decides (§7.1): the swapped schedule must reverse no
// dependence between the two nests. A buffer written by both nests is always rejected (WAW at buffer level, which
// also keeps every statement's init status, since init status is a property of the whole buffer). isl runs only
// when the bounding boxes (interval analysis of affine entries) of the conflicting writes and reads are disjoint
// for at least one conflicting buffer; otherwise the pair is rejected at once (conservative, and cheap). Class E.
#include <algorithm>
#include <limits>
#include <set>

#include "strategies/analysis/access.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"

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

using Box = std::vector<std::pair<std::int64_t, std::int64_t>>;  // per dimension [lo, hi]; empty: no access

/// Interval of one subscript entry over the loop box (full range when not affine).
std::pair<std::int64_t, std::int64_t> entry_range(const ir::Expr& e, const std::vector<const ir::Loop*>& loops) {
  constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max() / 4;
  auto lf = analysis::linear_form(e);
  if (!lf) return {-kAll, kAll};
  std::int64_t lo = lf->c0, hi = lf->c0;
  for (const auto& [k, c] : lf->coef) {
    std::int64_t ext = -1;
    for (const auto* l : loops)
      if (l->var == k) ext = l->extent;
    if (ext < 0) return {-kAll, kAll};
    (c > 0 ? hi : lo) += c * (ext - 1);
  }
  return {lo, hi};
}

/// Bounding box of nest `top`'s accesses to `x` (writes or reads).
Box access_box(const ir::Program& p, std::uint32_t top, const std::string& x, bool write) {
  Box box;
  for (const auto& sc : analysis::collect_stmts(p.nests[top], {top}))
    for (const auto& a : analysis::stmt_accesses(*sc.stmt)) {
      if (a.write != write || a.buffer() != x) continue;
      if (box.empty()) box.assign(a.ref->args.size(), {std::numeric_limits<std::int64_t>::max(),
                                                       std::numeric_limits<std::int64_t>::min()});
      for (std::size_t d = 0; d < a.ref->args.size() && d < box.size(); ++d) {
        auto r = entry_range(a.ref->args[d], sc.loops);
        box[d].first = std::min(box[d].first, r.first);
        box[d].second = std::max(box[d].second, r.second);
      }
    }
  return box;
}

/// Cheap filter before isl: may the elements nest `w` writes to x meet those nest `r` reads?
bool boxes_meet(const ir::Program& p, std::uint32_t w, std::uint32_t r, const std::string& x) {
  const Box bw = access_box(p, w, x, true), br = access_box(p, r, x, false);
  if (bw.empty() || br.empty() || bw.size() != br.size()) return true;
  for (std::size_t d = 0; d < bw.size(); ++d)
    if (bw[d].second < br[d].first || br[d].second < bw[d].first) return false;
  return true;
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
  // Overlapping bounding boxes on every conflicting buffer: a dependence is all but certain; reject without isl.
  bool any_disjoint = false;
  for (const auto& x : intersect(p.a.written, p.b.read))
    any_disjoint = any_disjoint || !boxes_meet(t.program, i, i + 1, x);
  for (const auto& x : intersect(p.b.written, p.a.read))
    any_disjoint = any_disjoint || !boxes_meet(t.program, i + 1, i, x);
  if (!any_disjoint) return std::nullopt;
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

STEPTP_REGISTER_STRATEGY(expression_reorder, 8, Graph,
                         "Swap two consecutive independent loop nests.",
                         enumerate_expression_reorder, apply_expression_reorder);

}  // namespace steptp::strategy::graph
