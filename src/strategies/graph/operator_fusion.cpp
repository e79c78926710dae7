// operator_fusion (STRATEGIES.md §11 entry 0): merge top-level nests i and i+1 whose headers are equal up to a
// bijective, order-preserving key renaming (same kinds and extents at each position) into one nest that runs
// body i, then body i+1 with its header keys renamed to nest i's by position (simultaneously).
// Legality: the fused schedule respects every dependence between the two bodies: an exact structural proof when
// every shared buffer is accessed through one all-header-keys subscript (same_iteration_only), else isl (§7.1:
// reschedule_range + check_schedule), and the fused nest keeps the nest invariants (parallel loops inside a bound loop, §8.5 parallel
// loops dependence-free, scope confinement). Structural rejections (never invalid output): a nested key of nest
// i+1 equal to one of nest i's header keys (E112), two B loops selecting one hardware axis (E114).
// Param `demote` in {keep, l, s}: l/s set that scope on every non-known buffer accessed only inside the fused nest;
// offered when at least one such buffer exists and every one passes confined(buffer, scope) (§7.4). Known
// buffers never change scope (B15). Class E.
#include <set>

#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/confined.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/names.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

namespace steptp::strategy::graph {
namespace {

struct Plan {
  ir::Task after;                            // fused, scopes unchanged
  std::map<std::string, std::string> renaming;  // nest i+1 key -> nest i key (changed keys only)
  std::vector<analysis::KeyMap> old_key_of;  // per statement of the fused nest
  analysis::ScheduleCheck deps;             // isl's answer (method "isl")
  std::string method = "isl";                // or "structural": same_iteration_only proved the schedule legal
  std::vector<std::string> local;            // non-known buffers accessed only in the fused nest
  std::vector<std::string> demotes;          // "l" / "s" that every local buffer passes
};

void clear_inner_tails(ir::Nest& n) {
  for (std::size_t k = 0; k + 1 < n.body.size(); ++k)
    if (n.body[k].is_nest()) n.body[k].nest().tail = false;
}

/// Exact structural proof that fusing `a` with `b_renamed` (nest i+1 with its keys renamed to a's header keys)
/// respects every dependence: every buffer that one nest writes and the other accesses is accessed everywhere in
/// both nests through one subscript of distinct plain keys that are exactly the header's keys. Each element is then
/// touched in one header iteration only, so every dependence between the nests joins instances of the same
/// iteration, which the fused body order (body i, then body i+1) keeps; dependences inside each body keep their
/// relative order. When the test does not apply, isl decides (§7.1).
bool same_iteration_only(const ir::Nest& a, const ir::Nest& b_renamed) {
  const auto ba = analysis::nest_buffers(a), bb = analysis::nest_buffers(b_renamed);
  std::set<std::string> shared;
  for (const auto& x : ba.written)
    if (bb.read.count(x) || bb.written.count(x)) shared.insert(x);
  for (const auto& x : bb.written)
    if (ba.read.count(x)) shared.insert(x);
  std::map<std::string, const ir::Expr*> subscript;
  bool ok = true;
  for (const ir::Nest* n : {&a, &b_renamed})
    for (const auto& sc : analysis::collect_stmts(*n, {0}))
      for (const auto& acc : analysis::stmt_accesses(*sc.stmt)) {
        if (!ok || !shared.count(acc.buffer())) continue;
        const ir::Expr& r = *acc.ref;
        ok = ok && analysis::full_header_subscript(r, a.loops);
        auto [it, fresh] = subscript.emplace(acc.buffer(), &r);
        ok = ok && (fresh || it->second->args == r.args);
      }
  return ok;
}

std::optional<Plan> plan_uncached(const ir::Task& t, std::uint32_t i) {
  const auto& nests = t.program.nests;
  if (i + 1 >= nests.size()) return std::nullopt;
  const ir::Nest& a = nests[i];
  const ir::Nest& b = nests[i + 1];
  if (a.loops.size() != b.loops.size()) return std::nullopt;
  Plan p;
  analysis::KeyMap km;  // nest i+1 key -> nest i key
  for (std::size_t k = 0; k < a.loops.size(); ++k) {
    if (a.loops[k].kind != b.loops[k].kind || a.loops[k].extent != b.loops[k].extent) return std::nullopt;
    if (a.loops[k].var != b.loops[k].var) {
      p.renaming[b.loops[k].var] = a.loops[k].var;
      km[b.loops[k].var] = ir::make_var(a.loops[k].var);
    }
  }
  // Nested keys of nest i+1 must not collide with the (new) header keys.
  std::set<std::string> nested;
  for (const auto& it : b.body)
    if (it.is_nest()) analysis::collect_keys(it.nest(), nested);
  for (const auto& l : a.loops)
    if (nested.count(l.var)) return std::nullopt;

  ir::Nest second = b;
  analysis::substitute(second, km);
  const bool shortcut = same_iteration_only(a, second);  // before second's items move into the fused nest
  ir::Nest fused = a;
  for (auto& it : second.body) fused.body.push_back(std::move(it));
  clear_inner_tails(fused);
  if (!analysis::hw_tags_distinct(fused)) return std::nullopt;

  p.after = t;
  auto& an = p.after.program.nests;
  an[i] = std::move(fused);
  an.erase(an.begin() + i + 1);

  const std::size_t n1 = analysis::collect_stmts(a, {i}).size();
  const std::size_t n2 = analysis::collect_stmts(b, {i + 1}).size();
  p.old_key_of.assign(n1, {});
  p.old_key_of.insert(p.old_key_of.end(), n2, km);
  if (shortcut) {
    p.method = "structural";
  } else {
    p.deps = analysis::check_schedule(analysis::reschedule_range(t.program, i, i + 2, p.after.program, i, i + 1,
                                                                 p.old_key_of));
    if (!p.deps.legal) return std::nullopt;
  }
  if (!loop::nest_invariants_broken(p.after.program, i).empty()) return std::nullopt;

  // Buffers local to the fused nest.
  auto fb = analysis::nest_buffers(an[i]);
  std::set<std::string> used(fb.read.begin(), fb.read.end());
  used.insert(fb.written.begin(), fb.written.end());
  for (std::uint32_t k = 0; k < an.size(); ++k) {
    if (k == i) continue;
    auto ob = analysis::nest_buffers(an[k]);
    for (const auto& x : ob.read) used.erase(x);
    for (const auto& x : ob.written) used.erase(x);
  }
  for (const auto& x : used)
    if (!t.find_known(x)) p.local.push_back(x);
  // Local confinement requires the value to come from the same iteration of more B loops than shared
  // confinement does, so a buffer that is not confined to `s` is not confined to `l` either: test s first.
  bool confined_s = false;
  for (auto [name, binding] : {std::pair{"s", ir::Scope::Shared}, std::pair{"l", ir::Scope::Local}}) {
    const ir::Scope scope = binding;  // clang 14 cannot capture a structured binding in a lambda (the fuzz build)
    if (scope == ir::Scope::Local && !confined_s) break;
    bool all = !p.local.empty(), changes = false;
    for (const auto& x : p.local) {
      analysis::for_each_ref(an[i], x, [&](ir::Expr& r) { changes = changes || r.scope != scope; });
      all = all && analysis::confined(p.after.program, x, scope);
    }
    if (scope == ir::Scope::Shared) confined_s = all;
    if (all && changes) p.demotes.insert(p.demotes.begin(), name);  // offered in the order l, s
  }
  return p;
}

// The plan of (program, i), memoised per thread: enumeration, the site re-check and apply() ask for the same plan
// of one candidate three times, and each costs isl dependence and value-flow computations.
std::optional<Plan> plan(const ir::Task& t, std::uint32_t i) {
  thread_local std::map<std::string, std::optional<Plan>> memo;
  std::string key = std::to_string(i) + '#' + ir::print_program(t.program);
  for (const auto& k : t.known) key += '#' + k.name;  // known buffers are never local
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  auto p = plan_uncached(t, i);
  if (memo.size() >= 64) memo.clear();
  memo.emplace(std::move(key), p);
  return p;
}

/// The site of top-level nest path[0] (fused with its successor), if legal.
std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  if (path.size() != 1) return {};
  auto p = plan(t, path[0]);
  if (!p) return {};
  std::vector<Params> ps{Params{Param{"demote", "keep"}}};
  for (const auto& d : p->demotes) ps.push_back(Params{Param{"demote", d}});
  SiteRef ref;
  ref.nest = path;
  return {Site{ref, list_params(std::move(ps))}};
}

}  // namespace

std::vector<Site> enumerate_operator_fusion(const ir::Task& t) { return enumerate_by_nest(t, nest_sites); }

Applied apply_operator_fusion(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("operator_fusion");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const std::uint32_t i = c.ref.nest[0];
  Plan p = *plan(t, i);
  const std::string demote = param_str(c, "demote");
  nlohmann::json scope_changes = nlohmann::json::array();
  if (demote != "keep") {
    const ir::Scope sc = demote == "l" ? ir::Scope::Local : ir::Scope::Shared;
    for (const auto& x : p.local) {
      ir::Scope before = ir::Scope::Global;
      analysis::for_each_ref(p.after.program.nests[i], x, [&](ir::Expr& r) { before = r.scope; });
      if (before == sc) continue;
      analysis::set_scope(p.after.program.nests[i], x, sc);
      scope_changes.push_back({{"buffer", x},
                               {"scope_before", std::string(ir::scope_name(before))},
                               {"scope_after", demote},
                               {"confinement", "confined(" + x + ", " + demote + ") holds (isl value-based flow)"}});
    }
  }
  const auto& a = t.program.nests[i];
  const auto& b = t.program.nests[i + 1];
  auto ba = analysis::nest_buffers(a);
  auto bb = analysis::nest_buffers(b);
  nlohmann::json carried = nlohmann::json::array();
  for (const auto& x : ba.written)
    if (bb.read.count(x)) carried.push_back(x);

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("pair", {i, i + 1});
  f.set("headers", {print_header(a), print_header(b)});
  f.set("key_renaming", p.renaming);
  f.set("carried_buffers", carried);
  f.set("scope_changes", scope_changes);
  f.set("local_buffers", p.local);
  f.legality("fused schedule respects every dependence between the two bodies", p.method, true,
             (p.method == "isl" ? std::to_string(p.deps.dependences) + " dependence relations respected"
                                : std::string("every buffer shared by the two nests is accessed through one subscript "
                                              "of all header keys: dependences join the same iteration")) +
                 (carried.empty() ? std::string() : "; carried buffers " + carried.dump()));
  f.legality("nest invariants (parallel loops, scope confinement)", "isl", true);
  return finish(t, std::move(p.after), std::move(f), Exactness::Exact);
}

STEPTP_REGISTER_STRATEGY(operator_fusion, 0, Graph,
                         "Merge two consecutive loop nests with the same loop structure into one "
                         "nest that runs the first body and then the second.",
                         enumerate_operator_fusion, apply_operator_fusion);

}  // namespace steptp::strategy::graph
