#include "policy/cost/register_block_sketch.hpp"

#include <algorithm>
#include <set>

#include "strategies/common.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::policy::cost {
namespace {

void collect_vars(const ir::Expr& e, std::set<std::string>& out) {
  if (e.kind == ir::ExprKind::Var) out.insert(e.text);
  for (const auto& a : e.args) collect_vars(a, out);
}

std::vector<std::string> loop_vars(const ir::Nest& n) {
  std::vector<std::string> v;
  for (const auto& l : n.loops) v.push_back(l.var);
  return v;
}

/// The single statement of top-level nest `n`, or null.
const ir::Stmt* single_stmt(const ir::Task& t, std::size_t n) {
  if (n >= t.program.nests.size()) return nullptr;
  const ir::Nest& nest = t.program.nests[n];
  if (nest.body.size() != 1 || !nest.body[0].is_stmt()) return nullptr;
  return &nest.body[0].stmt();
}

/// The first enumerated candidate of strategy `name` at `t` that `pred` accepts, or nullopt.
template <class Pred>
std::optional<strategy::Candidate> find_candidate(std::string_view name, const ir::Task& t, Pred pred) {
  const strategy::StrategyInfo* s = strategy::find(name);
  if (!s) return std::nullopt;
  std::vector<strategy::Site> sites;
  try {
    sites = strategy::locked_enumerate(*s, t);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  for (const auto& site : sites)
    for (std::uint64_t k = 0; k < site.params.size(); ++k) {
      try {
        strategy::Candidate c{std::string(name), site.ref, site.params.at(k)};
        if (pred(c)) return c;
      } catch (const std::exception&) {
        continue;
      }
    }
  return std::nullopt;
}

/// Builds plans step by step on a copy of the program; every step is a legal enumerated candidate.
class Builder {
 public:
  Builder(const ir::Task& t, std::uint32_t nest) : cur_(t), nest_(nest) {}

  bool step(const strategy::Candidate& c) {
    try {
      strategy::Applied a = strategy::locked_apply(*strategy::find(c.strategy), cur_, c);
      steps_.push_back({c, a.task});
      cur_ = std::move(a.task);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  /// Splits loop `var` into a loop of extent `block` and one of the rest; returns the key of the `block` loop (the
  /// inner loop, which keeps `var`, or with `block_outer` the fresh outer loop), or nullopt when no legal split
  /// does it. Nothing to split when the loop is not longer than `block`.
  std::optional<std::string> split(const std::string& var, std::int64_t block, bool block_outer) {
    const auto names = loop_vars(nest());
    const auto it = std::find(names.begin(), names.end(), var);
    if (it == names.end()) return std::nullopt;
    const auto pos = std::uint32_t(it - names.begin());
    const std::int64_t extent = nest().loops[pos].extent;
    if (block >= extent) return var;
    if (extent % block != 0) return std::nullopt;
    const std::int64_t outer = block_outer ? block : extent / block;
    const auto c = find_candidate("loop_split", cur_, [&](const strategy::Candidate& c) {
      return c.ref.nest == std::vector<std::uint32_t>{nest_} && c.ref.loop == pos &&
             strategy::param_int(c, "outer") == outer;
    });
    if (!c || !step(*c)) return std::nullopt;
    return block_outer ? nest().loops[pos].var : var;
  }

  /// Swaps loops until the header reads `target` (a permutation of it), one legal loop_reorder at a time.
  bool reorder_to(const std::vector<std::string>& target) {
    for (std::size_t i = 0; i < target.size(); ++i) {
      const auto names = loop_vars(nest());
      if (names.size() != target.size()) return false;
      if (names[i] == target[i]) continue;
      const auto j = std::size_t(std::find(names.begin(), names.end(), target[i]) - names.begin());
      if (j >= names.size()) return false;
      const auto c = find_candidate("loop_reorder", cur_, [&](const strategy::Candidate& c) {
        return c.ref.nest == std::vector<std::uint32_t>{nest_} && strategy::param_int(c, "p") == std::int64_t(i) &&
               strategy::param_int(c, "q") == std::int64_t(j);
      });
      if (!c || !step(*c)) return false;
    }
    return true;
  }

  bool write_cache(std::size_t depth) {
    const auto c = find_candidate("cache_read_write", cur_, [&](const strategy::Candidate& c) {
      return c.ref.nest == std::vector<std::uint32_t>{nest_} && strategy::param_str(c, "variant") == "write" &&
             strategy::param_str(c, "scope") == "l" && strategy::param_int(c, "d") == std::int64_t(depth);
    });
    return c && step(*c);
  }

  const ir::Nest& nest() const { return cur_.program.nests[nest_]; }
  const ir::Task& current() const { return cur_; }
  std::vector<PlanStep>& steps() { return steps_; }

 private:
  ir::Task cur_;
  std::uint32_t nest_;
  std::vector<PlanStep> steps_;
};

/// Header vars of nest `n` that the single statement's left-hand side does not mention (its reduction loops).
std::vector<std::string> reduction_loops(const ir::Nest& nest, const ir::Stmt& s) {
  std::set<std::string> lhs;
  collect_vars(s.lhs, lhs);
  std::vector<std::string> out;
  for (const auto& l : nest.loops)
    if (!lhs.count(l.var)) out.push_back(l.var);
  return out;
}

/// The plan for nest `n`, block rows from loop `r` (a B loop when `r_bound`) R at a time, block columns from loop
/// `v` with point extent V; the unrolling step is the best-scored loop_unrolling candidate (or none). nullopt when
/// a step is not legal.
std::optional<Plan> plan_for(const ir::Task& t, std::uint32_t n, const std::string& r, bool r_bound, std::int64_t R,
                             const std::string& v, std::int64_t V,
                             const std::function<double(const ir::Task&)>& score) {
  Builder b(t, n);
  const ir::Stmt* s = single_stmt(t, n);
  const auto red = reduction_loops(t.program.nests[n], *s);
  const auto is_red = [&](const std::string& name) { return std::find(red.begin(), red.end(), name) != red.end(); };
  // Phase A, on the whole loops: others, r, the reductions, v (the i-k-j order of a GEMM), so that the first steps
  // already gain. Phase B, after the splits: others and the two tile loops, the reductions, the two block loops;
  // from phase A's order that is one swap (of the column tile loop with r), or two when r is a B loop.
  std::vector<std::string> target;
  for (const auto& name : loop_vars(b.nest()))
    if (name != r && name != v && !is_red(name)) target.push_back(name);
  target.push_back(r);
  target.insert(target.end(), red.begin(), red.end());
  target.push_back(v);
  if (!b.reorder_to(target)) return std::nullopt;
  // A B loop must stay outside the cache's attach depth (cache_read_write's site rule): its block rows are the
  // outer part of its split, rows n/R apart.
  const std::optional<std::string> rows = b.split(r, R, r_bound);
  const std::optional<std::string> cols = rows ? b.split(v, V, false) : std::nullopt;
  if (!cols) return std::nullopt;
  target.clear();
  for (const auto& name : loop_vars(b.nest()))
    if (name != *rows && name != *cols && !is_red(name)) target.push_back(name);
  const std::size_t depth = target.size();
  target.insert(target.end(), red.begin(), red.end());
  target.push_back(*rows);
  target.push_back(*cols);
  if (!b.reorder_to(target) || !b.write_cache(depth)) return std::nullopt;
  Plan plan;
  plan.steps = std::move(b.steps());
  try {
    plan.score = score(b.current());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // The last step: the loop_unrolling candidate the model scores best, if any beats the cached block itself.
  if (const strategy::StrategyInfo* un = strategy::find("loop_unrolling")) {
    std::optional<PlanStep> best;
    for (const auto& c : [&] {
           try {
             return strategy::enumerate_candidates(*un, b.current());
           } catch (const std::exception&) {
             return std::vector<strategy::Candidate>{};
           }
         }()) {
      try {
        strategy::Applied a = strategy::locked_apply(*un, b.current(), c);
        const double sc = score(a.task);
        if (sc < plan.score) plan.score = sc, best = PlanStep{c, std::move(a.task)};
      } catch (const std::exception&) {
        continue;
      }
    }
    if (best) plan.steps.push_back(std::move(*best));
  }
  plan.label = "register block " + std::to_string(R) + "x" + std::to_string(V) + " of nest " + std::to_string(n);
  return plan;
}

}  // namespace

std::optional<Plan> register_block_plan(const ir::Task& t, int lanes,
                                        const std::function<double(const ir::Task&)>& score) {
  lanes = std::max(1, lanes);
  std::optional<Plan> best;
  for (std::uint32_t n = 0; n < t.program.nests.size(); ++n) {
    const ir::Stmt* s = single_stmt(t, n);
    if (!s || s->lhs.kind != ir::ExprKind::Ref || s->lhs.args.size() < 2) continue;
    const ir::Nest& nest = t.program.nests[n];
    if (reduction_loops(nest, *s).empty()) continue;
    // v: the innermost header loop in the last subscript entry; r: the same in the entry before it.
    const auto innermost_in = [&](const ir::Expr& entry) -> const ir::Loop* {
      std::set<std::string> vars;
      collect_vars(entry, vars);
      const ir::Loop* found = nullptr;
      for (const auto& l : nest.loops)
        if (vars.count(l.var)) found = &l;
      return found;
    };
    const ir::Loop* v = innermost_in(s->lhs.args.back());
    const ir::Loop* r = innermost_in(s->lhs.args[s->lhs.args.size() - 2]);
    if (!v || !r || v == r || v->kind == ir::LoopKind::B) continue;
    for (std::int64_t R : {8, 4})
      for (std::int64_t V : {2 * lanes, 4 * lanes, lanes}) {
        const std::int64_t Rp = std::min(R, r->extent), Vp = std::min<std::int64_t>(V, v->extent);
        if (Rp * Vp > 16 * std::int64_t(lanes) || (Rp != R && R != 8) || (Vp != V && V != 2 * lanes)) continue;
        std::optional<Plan> p = plan_for(t, n, r->var, r->kind == ir::LoopKind::B, Rp, v->var, Vp, score);
        if (p && (!best || p->score < best->score)) best = std::move(p);
      }
  }
  return best;
}

}  // namespace steptp::policy::cost
