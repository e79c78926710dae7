#include "policy/cost/register_block_sketch.hpp"

#include <algorithm>
#include <set>

#include "ir/printer.hpp"
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

/// Builds plans step by step on a copy of the program; every step is a legal enumerated candidate.
class Builder {
 public:
  Builder(const ir::Task& t, std::uint32_t nest) : cur_(t), nest_(nest) {}

  /// Applies one candidate built directly (not enumerated): the strategy's apply re-checks the site and the legality
  /// of this one candidate only (a loop_reorder enumeration at a 7-loop nest judges all 21 swaps, some with isl).
  bool step(const strategy::Candidate& c) {
    try {
      const strategy::StrategyInfo* s = strategy::find(c.strategy);
      if (!s) return false;
      strategy::Applied a = strategy::locked_apply(*s, cur_, c);
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
    strategy::Candidate c{"loop_split", site(), {{"outer", outer}}};
    c.ref.loop = pos;
    if (!step(c)) return std::nullopt;
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
      if (!step({"loop_reorder", site(), {{"p", std::int64_t(i)}, {"q", std::int64_t(j)}}})) return false;
    }
    return true;
  }

  /// A local write cache of the nest's single statement's output, attached at header depth `depth`.
  bool write_cache(std::size_t depth) {
    if (nest().body.size() != 1 || !nest().body[0].is_stmt()) return false;
    strategy::Candidate c{"cache_read_write", site(),
                          {{"variant", "write"}, {"access", ir::print_expr(nest().body[0].stmt().lhs)}, {"scope", "l"},
                           {"d", std::int64_t(depth)}}};
    c.ref.stmt = 0;
    return step(c);
  }

  const ir::Nest& nest() const { return cur_.program.nests[nest_]; }
  strategy::SiteRef site() const {
    strategy::SiteRef r;
    r.nest = {nest_};
    return r;
  }
  const ir::Task& current() const { return cur_; }
  std::vector<PlanStep>& steps() { return steps_; }

 private:
  ir::Task cur_;
  std::uint32_t nest_;
  std::vector<PlanStep> steps_;
};

/// Whether loop `var` appears in a subscript entry other than the last of some tensor read in `e`: the block's
/// columns would then be loaded with a stride (a GEMM with a transposed B, `G_{a,c}`), and the block is slower than
/// the naive nest whatever the model predicts (measured 0.89x on Gemm_ReLU_Divide); a layout_transformation first
/// makes such a nest qualify.
bool strided_in_a_read(const ir::Expr& e, const std::string& var) {
  if (e.kind == ir::ExprKind::Ref)
    for (std::size_t i = 0; i + 1 < e.args.size(); ++i) {
      std::set<std::string> vars;
      collect_vars(e.args[i], vars);
      if (vars.count(var)) return true;
    }
  for (const auto& a : e.args)
    if (strided_in_a_read(a, var)) return true;
  return false;
}

/// Block extents along a loop of `extent`: the wanted ones that divide it, or the whole loop when it is at most
/// `whole_max` long (a 62-wide convolution row is one block of 4 vectors, the last one partial). When the first
/// wanted extent does not divide it (a size that is not a multiple of 64), also its divisors in (fallback_lo,
/// fallback_hi): 196 rows take blocks of 7 beside 4, a 1000-wide row blocks of 40 or 50 columns.
std::vector<std::int64_t> block_extents(std::int64_t extent, std::initializer_list<std::int64_t> wanted,
                                        std::int64_t whole_max, std::int64_t fallback_lo, std::int64_t fallback_hi) {
  std::vector<std::int64_t> out;
  for (std::int64_t b : wanted)
    if (b < extent && extent % b == 0) out.push_back(b);
  if (extent % *wanted.begin() != 0)
    for (std::int64_t b = fallback_lo + 1; b < fallback_hi && b < extent; ++b)
      if (extent % b == 0 && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  if (extent <= whole_max && std::find(out.begin(), out.end(), extent) == out.end()) out.push_back(extent);
  return out;
}

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
/// `v` with point extent V, then the unrolling of the block rows (when legal). nullopt when
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
  // The last step unrolls the block rows, so that the compiler keeps the R x V accumulators in registers (the
  // compute nest is item 0 of the nest; its header is the reductions, then rows, then columns). A plan without it
  // when it is not legal.
  {
    strategy::SiteRef ref;
    ref.nest = {n, 0};
    ref.loop = std::uint32_t(red.size());
    b.step({"loop_unrolling", ref, {}});
  }
  Plan plan;
  plan.steps = std::move(b.steps());
  try {
    plan.score = score(b.current());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  plan.label = "register block " + std::to_string(R) + "x" + std::to_string(V) + " of nest " + std::to_string(n);
  return plan;
}

/// The transposing copy of the one two-entry read of nest `n` that takes `v` in its first entry and not in its
/// last (`G_{a,c}` of a GEMM with a transposed weight, read as `N_{c,a}` after it), as a plan step; nullopt when
/// there is no such read, more than one, or the layout_transformation is not legal. The copy nest is placed just
/// before nest `n`, which becomes nest n + 1.
std::optional<PlanStep> transpose_strided_read(const ir::Task& t, std::uint32_t n, const ir::Stmt& s,
                                               const std::string& v) {
  std::set<std::string> found;
  bool other = false;
  ir::visit_expr(s.rhs, [&](const ir::Expr& e) {
    if (e.kind != ir::ExprKind::Ref) return;
    std::set<std::string> first, last;
    for (std::size_t i = 0; i + 1 < e.args.size(); ++i) collect_vars(e.args[i], first);
    if (!e.args.empty()) collect_vars(e.args.back(), last);
    if (!first.count(v)) return;
    if (e.args.size() == 2 && !last.count(v))
      found.insert(ir::print_expr(e));
    else
      other = true;
  });
  if (found.size() != 1 || other) return std::nullopt;
  strategy::SiteRef ref;
  ref.nest = {n};
  // Lehmer index 1 of two entries: the permutation (1, 0) (layout_map.hpp).
  const strategy::Candidate c{"layout_transformation", ref,
                              {{"access", *found.begin()}, {"variant", "transpose"}, {"detail", std::int64_t(1)}}};
  try {
    strategy::Applied a = strategy::locked_apply(*strategy::find(c.strategy), t, c);
    return PlanStep{c, std::move(a.task)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Nest `n` of `t` is a two-loop copy `X_{i,j} = Y_{j,i}` whose innermost loop runs along the source's rows and
/// across the destination's (its writes are strided).
bool is_transposing_copy(const ir::Task& t, std::uint32_t n) {
  const ir::Stmt* s = single_stmt(t, n);
  const ir::Nest& nest = t.program.nests[n];
  if (!s || nest.loops.size() != 2 || s->lhs.kind != ir::ExprKind::Ref || s->rhs.kind != ir::ExprKind::Ref ||
      s->lhs.args.size() != 2 || s->rhs.args.size() != 2)
    return false;
  const std::string& inner = nest.loops[1].var;
  std::set<std::string> lhs_last, rhs_last;
  collect_vars(s->lhs.args.back(), lhs_last);
  collect_vars(s->rhs.args.back(), rhs_last);
  return !lhs_last.count(inner) && rhs_last.count(inner);
}

/// The loop_tiling of the transposing copy, nest `n` of `t` (two loops), into 16 x 16 tiles (8 x 8 when 16 does
/// not divide both extents), as a plan step; nullopt when neither divides or the tiling is not legal. Untiled, the
/// copy writes one element per destination row: rows 1 KiB apart (256 f32) fall in 4 of L1's 64 sets and thrash
/// it (Gemm_Add_ReLU's 256 x 256 weight copy took 0.23 ms of the 0.32 ms program); a tile keeps its 16 written
/// lines resident.
std::optional<PlanStep> tile_transposing_copy(const ir::Task& t, std::uint32_t n) {
  const ir::Nest& copy = t.program.nests[n];
  if (copy.loops.size() != 2) return std::nullopt;
  const std::int64_t e0 = copy.loops[0].extent, e1 = copy.loops[1].extent;
  for (std::int64_t tile : {16, 8}) {
    if (e0 <= tile || e1 <= tile || e0 % tile != 0 || e1 % tile != 0) continue;
    strategy::SiteRef ref;
    ref.nest = {n};
    ref.loop = 0;
    const strategy::Candidate c{"loop_tiling", ref, {{"fx0", e0 / tile}, {"fy0", e1 / tile}}};
    try {
      strategy::Applied a = strategy::locked_apply(*strategy::find(c.strategy), t, c);
      return PlanStep{c, std::move(a.task)};
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// The best plan for top-level nest `n` of `t`, or nullopt; `transposed`: a transposing copy was the step before
/// (a nest is transposed once).
std::optional<Plan> plan_nest(const ir::Task& t, std::uint32_t n, int lanes,
                              const std::function<double(const ir::Task&)>& score, bool transposed = false) {
  const ir::Stmt* s = single_stmt(t, n);
  if (!s || s->lhs.kind != ir::ExprKind::Ref || s->lhs.args.size() < 2) return std::nullopt;
  const ir::Nest& nest = t.program.nests[n];
  if (reduction_loops(nest, *s).empty()) return std::nullopt;
  // v: the innermost header loop in the last subscript entry (the unit-stride columns); the block rows r: any other
  // spatial loop of the output (a GEMM's rows, a convolution's output channels, which share each loaded input
  // vector, or its output rows, which share each weight).
  std::set<std::string> last_vars;
  collect_vars(s->lhs.args.back(), last_vars);
  const ir::Loop* v = nullptr;
  for (const auto& l : nest.loops)
    if (last_vars.count(l.var)) v = &l;
  if (!v || v->kind == ir::LoopKind::B) return std::nullopt;
  if (strided_in_a_read(s->rhs, v->var)) {
    if (transposed) return std::nullopt;
    std::optional<PlanStep> copy = transpose_strided_read(t, n, *s, v->var);
    if (!copy) return std::nullopt;
    std::optional<PlanStep> tiled = tile_transposing_copy(copy->after, n);
    std::optional<Plan> p = plan_nest(tiled ? tiled->after : copy->after, n + 1, lanes, score, true);
    if (!p) return std::nullopt;
    if (tiled) p->steps.insert(p->steps.begin(), std::move(*tiled));
    p->steps.insert(p->steps.begin(), std::move(*copy));
    p->label += tiled ? " after a tiled transposing copy" : " after a transposing copy";
    return p;
  }
  std::set<std::string> lhs_vars;
  collect_vars(s->lhs, lhs_vars);
  const std::vector<std::int64_t> cols =
      block_extents(v->extent, {2 * lanes, 4 * lanes, lanes}, 4 * lanes, 2 * lanes, 4 * lanes + 1);
  // AVX-512 has 32 vector registers: 24 accumulators leave 8 for the broadcast row values and loads (an 8x40 block
  // of a 1000-wide GEMM: 3 vectors a row); 16-register ISAs keep 16
  const std::int64_t max_accumulators = lanes >= 16 ? 24 : 16;
  std::optional<Plan> best;
  for (const auto& r : nest.loops) {
    if (&r == v || r.extent <= 1 || !lhs_vars.count(r.var)) continue;
    for (std::int64_t R : block_extents(r.extent, {8, 4}, 8, 4, 8))
      for (std::int64_t V : cols) {
        if (R * ((V + lanes - 1) / lanes) > max_accumulators) continue;
        std::optional<Plan> p = plan_for(t, n, r.var, r.kind == ir::LoopKind::B, R, v->var, V, score);
        if (p && (!best || p->score < best->score)) best = std::move(p);
      }
  }
  return best;
}

}  // namespace

std::optional<Plan> register_block_plan(const ir::Task& t, int lanes,
                                        const std::function<double(const ir::Task&)>& score) {
  lanes = std::max(1, lanes);
  // A transposing copy that the program already has (Matmul_with_transposed_B's B^T) is tiled first, as the plan's
  // own copy is; tiling changes no nest's index, so the plans below apply after it.
  ir::Task cur = t;
  std::vector<PlanStep> tiled;
  for (std::uint32_t n = 0; n < cur.program.nests.size(); ++n)
    if (is_transposing_copy(cur, n))
      if (std::optional<PlanStep> st = tile_transposing_copy(cur, n)) {
        cur = st->after;
        tiled.push_back(std::move(*st));
      }
  std::optional<Plan> best;
  for (std::uint32_t n = 0; n < cur.program.nests.size(); ++n) {
    std::optional<Plan> p = plan_nest(cur, n, lanes, score);
    if (p && (!best || p->score < best->score)) best = std::move(p);
  }
  if (best && !tiled.empty()) {
    best->steps.insert(best->steps.begin(), tiled.begin(), tiled.end());
    best->label += ", a transposing copy tiled";
  }
  return best;
}

}  // namespace steptp::policy::cost
