// Phase "boundary" of the equivalence check (LEIR.md §11 step 7.3; Options::Boundary): a threshold, clamp or
// underflow point that the candidate moved is met however narrow the band of inputs where the programs differ. For
// each of up to Options::Boundary::pairs pairs of further draws x0, x1 (one seed, two distributions of the further
// draws, every ordered pair in turn), both programs run at x0, x1 and the middle of the segment between them, all
// compared; then, per program, up to kBoundarySitesPerPair output elements that change along the segment and are
// piecewise constant on it are located by bisection (that program alone) down to kBoundaryWidth, and both programs
// are compared just either side of each change. Even pairs run untyped, odd ones typed (all typed when the check
// is); a typed pair on which the original cannot run in §8.2 precision is skipped. Within kCheapCheckBudget
// statement executions.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "equiv/context.hpp"

namespace steptp::equiv::detail {
namespace {

/// An output element that changes along a boundary segment.
struct ChangingElement {
  std::string output;
  std::size_t index = 0;
};

/// Output elements of `task` whose value differs between the segment's ends `o0`, `o1` and is piecewise constant
/// along it: the value at the middle `om` repeats one end.
std::vector<ChangingElement> changing_elements(const ir::Task& task, const TensorMap& o0, const TensorMap& o1,
                                               const TensorMap& om) {
  std::vector<ChangingElement> v;
  for (const auto& k : task.known) {
    if (k.role != ir::Role::Output) continue;
    const auto &v0 = o0.at(k.name).data, &v1 = o1.at(k.name).data, &vm = om.at(k.name).data;
    for (std::size_t e = 0; e < v0.size(); ++e)
      if (!same_value(v0[e], v1[e]) && (same_value(vm[e], v0[e]) || same_value(vm[e], v1[e])))
        v.push_back({k.name, e});
  }
  return v;
}

/// Bisects the segment's parameter t for the edge of the constant piece of element `c` of `prog`'s outputs that
/// contains the end the middle repeats, down to kBoundaryWidth. `point(t)` is the draw at t; `o0`, `om` the
/// outputs at t = 0 and 1/2; `steps` counts the statement executions and `within()` says whether more may be
/// spent. Returns [lo, hi] around the edge, or nothing when the budget ran out or `prog` failed to run at a point
/// (the compared draws report such failures).
template <class Point, class Within>
std::optional<std::pair<double, double>> bisect_edge(const Interpreter& prog, const interp::RunOptions& ro,
                                                     const Point& point, const ChangingElement& c, const TensorMap& o0,
                                                     const TensorMap& om, std::uint64_t& steps, const Within& within) {
  const bool from_start = same_value(om.at(c.output).data[c.index], o0.at(c.output).data[c.index]);
  const double piece = om.at(c.output).data[c.index];
  double lo = from_start ? 0.5 : 0.0, hi = from_start ? 1.0 : 0.5;  // the piece holds at lo (from_start) or at hi
  try {
    while (hi - lo > kBoundaryWidth && within()) {
      const double mid = 0.5 * (lo + hi);
      const TensorMap out = prog.run(point(mid), ro);
      steps += prog.last_steps();
      (same_value(out.at(c.output).data[c.index], piece) == from_start ? lo : hi) = mid;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (hi - lo > kBoundaryWidth) return std::nullopt;
  return std::pair{lo, hi};
}

/// One pair of boundary draws: pair `i`, seed `seed`, `within()` while the phase's budget lasts.
struct Pair {
  Context& c;
  std::uint32_t i;
  std::uint64_t seed;
  std::uint64_t spent_before;  // the phase's start
  ErrLocation at;
  TensorMap x0, x1;
  bool skip = false;  // an original that cannot run in §8.2 precision on a typed pair: no verdict from it

  bool within() const { return c.done_before - spent_before < kCheapCheckBudget; }
  TensorMap point(double t) const { return t == 0.0 ? x0 : interpolate_inputs(x0, x1, t, seed); }

  /// Both programs compared at `t`; false when the verdict is decided.
  bool compared(double t, TensorMap& b, TensorMap& a) {
    at.t = t;
    if (run_on(c, t == 1.0 ? x1 : point(t), at, b, a)) return true;
    if (c.ro.typed && !c.opt.typed && c.early->code == code_text(Code::E502)) {
      c.early.reset();
      skip = true;
      return true;
    }
    return false;
  }

  /// Locates the changes of program `side` (0 original, 1 candidate) and compares both programs either side of
  /// each; false when the verdict is decided.
  bool locate(int side, const TensorMap& o0, const TensorMap& o1, const TensorMap& om) {
    const Interpreter& prog = side == 0 ? *c.A : *c.B;
    const std::vector<ChangingElement> sites = changing_elements(c.original, o0, o1, om);
    const std::size_t take = std::min<std::size_t>(sites.size(), kBoundarySitesPerPair);
    for (std::size_t j = 0; j < take && c.passing() && !skip; ++j) {
      const ChangingElement& e = sites[(i + j * (sites.size() / take)) % sites.size()];
      const auto edge = bisect_edge(
          prog, c.ro, [this](double t) { return point(t); }, e, o0, om, c.done_before, [this] { return within(); });
      if (!edge) {
        if (!within()) break;  // out of budget
        continue;              // a point where this program fails to run
      }
      const auto [lo, hi] = *edge;
      for (const double t : {std::max(0.0, lo - (hi - lo)), std::min(1.0, hi + (hi - lo))}) {
        TensorMap pb, pa;
        if (!skip && !compared(t, pb, pa)) return false;
      }
    }
    return true;
  }

  /// The whole pair; false when the verdict is decided.
  bool run() {
    const std::size_t nd = c.further.size();
    at.seed = seed;
    at.dist = c.further[i % nd];
    at.to = c.further[(i % nd + 1 + (i / nd) % (nd - 1)) % nd];  // every ordered pair of distributions in turn
    x0 = make_inputs(*c.A, seed, at.dist, c.literals);
    x1 = make_inputs(*c.A, seed, at.to, c.literals);
    if (c.opt.fixed) {
      apply_fixed_inputs(x0, *c.opt.fixed);
      apply_fixed_inputs(x1, *c.opt.fixed);
    }
    TensorMap ob0, oa0, ob1, oa1, obm, oam;  // original (b) and candidate (a) at t = 0, 1, 1/2
    if (!compared(0.0, ob0, oa0) || (!skip && !compared(1.0, ob1, oa1)) || (!skip && !compared(0.5, obm, oam)))
      return false;
    if (skip) return true;
    ++c.r.boundary_pairs;
    for (int side = 0; side < 2 && c.passing() && !skip; ++side)
      if (!locate(side, side == 0 ? ob0 : oa0, side == 0 ? ob1 : oa1, side == 0 ? obm : oam)) return false;
    return true;
  }
};

}  // namespace

bool phase_boundary(Context& c) {
  const Options& opt = c.opt;
  if (!c.passing() || opt.boundary.pairs == 0 || opt.seeds.empty() || c.further.size() <= 1) return true;
  // A pair costs at most 6 compared runs and, per located element, 17 bisection runs and 4 compared ones.
  const std::uint64_t per_run = std::max<std::uint64_t>(1, c.done_before / (2 * c.draws));
  const std::uint64_t per_pair = per_run * (6 + 2 * kBoundarySitesPerPair * 21);
  const std::uint64_t spent_before = c.done_before;
  for (std::uint32_t i = 0;
       i < opt.boundary.pairs && c.passing() && c.done_before - spent_before + per_pair <= kCheapCheckBudget; ++i) {
    c.ro.typed = opt.typed || i % 2 == 1;
    Pair pair{c, i, c.next + i, spent_before, {}, {}, {}, false};
    if (!pair.run()) return false;
  }
  c.ro.typed = opt.typed;
  if (c.r.boundary_pairs)
    c.note(std::to_string(c.r.boundary_pairs) + " boundary pair(s), untyped and typed");
  return true;
}

}  // namespace steptp::equiv::detail
