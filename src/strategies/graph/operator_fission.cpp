// operator_fission (STRATEGIES.md §11 entry 1): split the body of one nest (top-level or nested) with k >= 2 items
// at cut p in 1..k-1 into two nests with the same header, keeping the item order. Legal when no dependence runs
// from an item instance after the cut to one before it: the split schedule is checked against every dependence
// of the original order (isl, §7.1: reschedule_range + check_schedule), unless no buffer written on one side is
// accessed on the other (structural: then no dependence crosses the cut). An l or s buffer used on both sides of the
// cut is promoted to g everywhere (recorded in scope_promotions); the new nests must keep the nest invariants
// (parallel loops inside a bound loop, §8.5 parallel loops dependence-free, scope confinement). Class E.
#include <set>

#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::graph {
namespace {

struct Split {
  ir::Task after;
  std::vector<std::string> promoted;  // l/s buffers used on both sides
  analysis::ScheduleCheck deps;
  std::string method = "isl";         // how the dependence condition was shown: "structural" or "isl"
  std::string why;                    // "" when legal
};

/// Structural proof that no dependence crosses the cut: no buffer written on one side is read or written on the
/// other (gathers included). Then every dependence joins two items of one side, whose instances keep their order
/// in the split nests, and isl need not be asked.
bool sides_independent(const ir::Nest& first, const ir::Nest& second) {
  const auto a = analysis::nest_buffers(first), b = analysis::nest_buffers(second);
  for (const auto& x : a.written)
    if (b.read.count(x) || b.written.count(x)) return false;
  for (const auto& x : b.written)
    if (a.read.count(x)) return false;
  return true;
}

std::set<std::pair<std::string, ir::Scope>> scoped_buffers(const ir::Nest& n) {
  std::set<std::pair<std::string, ir::Scope>> out;
  for (const auto& sc : analysis::collect_stmts(n, {0}))
    for (const auto& a : analysis::stmt_accesses(*sc.stmt))
      if (a.ref->scope != ir::Scope::Global) out.insert({a.buffer(), a.ref->scope});
  return out;
}

Split split(const ir::Task& t, const analysis::NestPath& path, std::uint32_t cut) {
  Split s;
  s.after = t;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  ir::Nest first = n, second = n;
  first.body.assign(n.body.begin(), n.body.begin() + cut);
  second.body.assign(n.body.begin() + cut, n.body.end());
  first.tail = false;
  std::set<std::string> in_first, in_second;
  for (const auto& [b, sc] : scoped_buffers(first)) in_first.insert(b);
  for (const auto& [b, sc] : scoped_buffers(second))
    if (in_first.count(b)) s.promoted.push_back(b);
  const bool independent = sides_independent(first, second);

  const std::uint32_t top = path[0];
  auto& prog = s.after.program;
  std::uint32_t added = 0;
  if (path.size() == 1) {
    prog.nests[top] = std::move(first);
    prog.nests.insert(prog.nests.begin() + top + 1, std::move(second));
    added = 1;
  } else {
    analysis::NestPath parent(path.begin(), path.end() - 1);
    ir::Nest* par = analysis::nest_at(prog, parent);
    const std::uint32_t k = path.back();
    par->body[k] = ir::Item{std::move(first)};
    par->body.insert(par->body.begin() + k + 1, ir::Item{std::move(second)});
  }
  for (const auto& b : s.promoted) analysis::set_scope(prog, b, ir::Scope::Global);
  if (!analysis::hw_tags_distinct(prog.nests[top])) {  // a split nested B loop would bind its axis twice (E114)
    s.why = "a hardware axis would be bound twice";
    return s;
  }

  if (independent) {
    s.method = "structural";
  } else {
    s.deps =
        analysis::check_schedule(analysis::reschedule_range(t.program, top, top + 1, prog, top, top + 1 + added));
    if (!s.deps.legal) {
      s.why = s.deps.detail;
      return s;
    }
  }
  for (std::uint32_t k = top; k <= top + added; ++k) {
    s.why = loop::nest_invariants_broken(prog, k);
    if (!s.why.empty()) return s;
  }
  return s;
}

std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  if (n.body.size() < 2) return {};
  std::vector<Params> ps;
  for (std::uint32_t cut = 1; cut < n.body.size(); ++cut)
    if (split(t, path, cut).why.empty()) ps.push_back(Params{Param{"cut", static_cast<std::int64_t>(cut)}});
  if (ps.empty()) return {};
  SiteRef ref;
  ref.nest = path;
  return {Site{ref, list_params(std::move(ps))}};
}

}  // namespace

std::vector<Site> enumerate_operator_fission(const ir::Task& t) { return enumerate_by_nest(t, nest_sites); }

Applied apply_operator_fission(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("operator_fission");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const auto cut = static_cast<std::uint32_t>(param_int(c, "cut"));
  Split s = split(t, c.ref.nest, cut);
  const ir::Nest& n = *analysis::nest_at(t.program, c.ref.nest);
  auto items = [&](std::size_t lo, std::size_t hi) {
    nlohmann::json a = nlohmann::json::array();
    for (std::size_t k = lo; k < hi; ++k)
      a.push_back(n.body[k].is_stmt() ? ir::print_stmt(n.body[k].stmt()) : ir::print_nest(n.body[k].nest()));
    return a;
  };
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("cut", cut);
  f.set("items_first", items(0, cut));
  f.set("items_second", items(cut, n.body.size()));
  nlohmann::json promos = nlohmann::json::array();
  for (const auto& b : s.promoted) promos.push_back({{"buffer", b}, {"scope_after", "g"}});
  f.set("scope_promotions", promos);
  f.legality("no dependence from an item after the cut to an item before it", s.method, true,
             s.method == "isl" ? std::to_string(s.deps.dependences) + " dependence relations respected"
                               : std::string("no buffer written on one side of the cut is accessed on the other"));
  f.legality("nest invariants (parallel loops, scope confinement)", "isl", true);
  return finish(t, std::move(s.after), std::move(f), Exactness::Exact);
}

STEPTP_REGISTER_STRATEGY(operator_fission, 1, Graph,
                         "Split the body of one nest at a cut point into two nests with the same "
                         "header, keeping the item order.",
                         enumerate_operator_fission, apply_operator_fission);

}  // namespace steptp::strategy::graph
