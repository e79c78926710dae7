// loop_reorder (STRATEGIES.md §11 entry 9): swap loops p < q of one nest header, with their kinds and extents.
// Legal when both loops pass the §7.2 syntactic test, or when the swapped schedule respects every non-reduction
// dependence (isl, §7.1). The result must keep the nest invariants (parallel loops inside a bound loop, §8.5
// parallel loops dependence-free, scope confinement). Class R when a + - * reduction dependence is reordered
// (two reduction keys of one statement change relative order), else E; a class-R swap is refused in a program
// that divides by a root.
#include "ir/validate.hpp"
#include "strategies/analysis/conditioning.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/parallel.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::loop {
namespace {

struct Verdict {
  bool legal = false;
  Exactness cls = Exactness::Exact;
  std::string method, detail;
  std::size_t deps = 0;
};

ir::Task swapped(const ir::Task& t, const analysis::NestPath& path, std::uint32_t p, std::uint32_t q) {
  ir::Task a = t;
  auto& loops = analysis::nest_at(a.program, path)->loops;
  std::swap(loops[p], loops[q]);
  return a;
}

Verdict judge(const ir::Task& t, const ir::Task& after, const analysis::NestPath& path, std::uint32_t p,
              std::uint32_t q) {
  Verdict v;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  if (analysis::parallel_by_inspection(n, n.loops[p].var) && analysis::parallel_by_inspection(n, n.loops[q].var)) {
    v.legal = true;
    v.method = "syntactic";
    v.detail = "both loops carry no dependence";
  } else if (analysis::Reduction red; analysis::only_reduction_dependences(t.program, path[0], &red)) {
    // Every dependence is a reduction dependence: legal. R when the order of the accumulation keys (reduction
    // keys and unused keys) changes for a + - * reduction.
    v.legal = true;
    v.method = "structural";
    v.detail = "only reduction dependences (single reduction statement)";
    auto order = [&](const ir::Program& p) {
      std::vector<std::string> seq;
      for (const auto& sc : analysis::collect_stmts(p.nests[path[0]], {path[0]}))
        for (const auto* l : sc.loops)
          if (!ir::mentions_var(sc.stmt->lhs, l->var)) seq.push_back(l->var);
      return seq;
    };
    if (analysis::reassociates(red.op) && order(t.program) != order(after.program)) v.cls = Exactness::Reassoc;
  } else {
    auto chk = analysis::check_schedule(analysis::reschedule_stmts(t.program, after.program, path[0], {}));
    v.legal = chk.legal;
    v.method = "isl";
    v.deps = chk.dependences;
    v.detail = chk.legal ? std::to_string(chk.dependences) + " dependence relations respected" : chk.detail;
    if (chk.reassociated) v.cls = Exactness::Reassoc;
  }
  if (v.legal) {
    std::string why = nest_invariants_broken(after.program, path[0]);
    if (!why.empty()) {
      v.legal = false;
      v.detail = why;
    }
  }
  return v;
}

}  // namespace

namespace {
std::vector<Site> reorder_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  std::vector<Site> out;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  if (n.loops.size() < 2) return out;
  // A reordered reduction (class R) of a program that divides by a root is refused: the normalisation amplifies
  // the changed rounding (entry 9 "Refused"; analysis/conditioning.hpp).
  const bool root_divided = analysis::divides_by_root(t);
  std::vector<Params> ps;
  for (std::uint32_t p = 0; p < n.loops.size(); ++p)
    for (std::uint32_t q = p + 1; q < n.loops.size(); ++q) {
      Params tuple{Param{"p", static_cast<std::int64_t>(p)}, Param{"q", static_cast<std::int64_t>(q)}};
      if (!probe_params(only, tuple)) continue;
      ir::Task after = swapped(t, path, p, q);
      const Verdict v = judge(t, after, path, p, q);
      if (v.legal && !(v.cls == Exactness::Reassoc && root_divided)) ps.push_back(std::move(tuple));
    }
  if (ps.empty()) return out;
  SiteRef ref;
  ref.nest = path;
  out.push_back(Site{ref, list_params(std::move(ps))});
  return out;
}
}  // namespace

std::vector<Site> enumerate_reorder(const ir::Task& t) { return enumerate_by_nest(t, reorder_sites); }

std::vector<std::pair<Candidate, ir::Task>> unchecked_reorders(const ir::Task& t, const std::set<std::uint32_t>* tops) {
  std::vector<std::pair<Candidate, ir::Task>> out;
  for (const auto& path : analysis::all_nest_paths(t.program)) {
    if (tops && !tops->count(path.front())) continue;
    const std::size_t loops = analysis::nest_at(t.program, path)->loops.size();
    for (std::uint32_t p = 0; p < loops; ++p)
      for (std::uint32_t q = p + 1; q < loops; ++q) {
        SiteRef ref;
        ref.nest = path;
        Candidate c{"loop_reorder", ref,
                    Params{Param{"p", static_cast<std::int64_t>(p)}, Param{"q", static_cast<std::int64_t>(q)}}};
        out.emplace_back(std::move(c), swapped(t, path, p, q));
      }
  }
  return out;
}

Applied apply_reorder(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("loop_reorder");
  recheck_nest(t, c, reorder_sites);
  const auto p = static_cast<std::uint32_t>(param_int(c, "p"));
  const auto q = static_cast<std::uint32_t>(param_int(c, "q"));
  ir::Task after = swapped(t, c.ref.nest, p, q);
  Verdict v = judge(t, after, c.ref.nest, p, q);
  const ir::Nest& n = *analysis::nest_at(t.program, c.ref.nest);
  auto role = [&](const ir::Loop& l) { return ir::is_reducing_loop(n, l.var) ? "reduction" : "spatial"; };
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("swapped", nlohmann::json::array({{{"key", n.loops[p].var}, {"position", p}, {"role", role(n.loops[p])}},
                                          {{"key", n.loops[q].var}, {"position", q}, {"role", role(n.loops[q])}}}));
  f.set("header_before", print_header(n));
  f.set("header_after", print_header(*analysis::nest_at(after.program, c.ref.nest)));
  f.legality("dependences respected", v.method, v.legal, v.detail);
  if (v.cls == Exactness::Reassoc)
    f.legality("reduction order", "isl", true, "a reduction's accumulation order changes (reassociation)");
  return finish(t, std::move(after), std::move(f), v.cls);
}

STEPTP_REGISTER_STRATEGY(loop_reorder, 9, Loop,
                         "Swap two loops of one nest header, together with their kinds and "
                         "extents.",
                         enumerate_reorder, apply_reorder);

}  // namespace steptp::strategy::loop
