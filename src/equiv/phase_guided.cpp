// Phase "guided" of the equivalence check (LEIR.md §11 step 7.4; Options::Guided, equiv/guided.hpp): a greybox
// fuzzer's search over the inputs of both programs. The corpus starts with the draws of `seeds` x the further
// distributions; each of up to Options::Guided::draws further draws is a mutation of a kept one (mutate_inputs), run
// on both programs with coverage probes, and kept when either program reached a value class or hit-count bucket no
// earlier draw reached; even draws untyped, odd ones typed (all typed when the check is). A draw on which the
// original fails to run is dropped. A draw is reported (judged as every draw, equiv/judge.cpp) only on a gross
// difference that survives the tie check (equiv/tie_check.cpp); a typed draw's must also show untyped unless it is
// NaN. Within Options::Guided::budget statement executions.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "equiv/context.hpp"
#include "interp/splitmix64.hpp"

namespace steptp::equiv::detail {
namespace {

struct Kept {
  TensorMap in;
  std::vector<std::pair<double, double>> operands;  // comparison operands of both programs' runs on it
};

struct GuidedSearch {
  Context& c;
  std::map<std::string, InputDomain> domains;
  std::uint64_t seed;
  steptp_num::SplitMix64 g;
  std::vector<Kept> corpus;
  std::uint64_t tie_draws = 0;  // mutated draws whose difference vanished under perturb_float_inputs
  CoverageMap seen_b, seen_a;
  interp::Coverage cov_b, cov_a;

  GuidedSearch(Context& c_, std::uint64_t seed_)
      : c(c_), domains(input_domains(*c_.A, c_.opt.fixed.get())), seed(seed_),
        g{(std::uint64_t{1} << 60) + seed_} {}

  /// Both programs on `in`, probed; nullopt when the original cannot run on it (the candidate's failure, an empty
  /// second map, is left to run_on to report).
  std::optional<std::pair<TensorMap, TensorMap>> probed(const TensorMap& in, const interp::RunOptions& o) {
    interp::RunOptions p = o;
    std::pair<TensorMap, TensorMap> out;
    try {
      p.coverage = &cov_b;
      out.first = c.A->run(in, p);
    } catch (const std::exception&) {
      c.done_before += c.A->last_steps();
      return std::nullopt;
    }
    c.done_before += c.A->last_steps();
    try {
      p.coverage = &cov_a;
      out.second = c.B->run(in, p);
    } catch (const std::exception&) {
      c.done_before += c.B->last_steps();
      out.second.clear();  // the candidate fails where the original runs
    }
    c.done_before += c.B->last_steps();
    return out;
  }

  /// Should the gross difference `g1` of draw `in` be reported? Confirmed untyped (a typed draw's, unless NaN) and
  /// by the tie check (mutated draws only).
  bool confirmed(const TensorMap& in, const ErrLocation& at, Gross g1) {
    interp::RunOptions plain = c.ro;
    plain.typed = false;
    bool report = !c.ro.typed || g1 == Gross::NaN;
    if (!report) report = shows(c, in, plain) == Shows::Yes;
    // Judged where it was found: untyped unless only a typed NaN showed it.
    if (report && at.guided >= 0 && !c.opt.exact && c.opt.guided.tie_check) {
      interp::RunOptions where = c.ro;
      where.typed = c.ro.typed && g1 == Gross::NaN;
      report = survives_tie_check(c, in, domains, seed, at.guided, where);
      if (!report) ++tie_draws;
    }
    return report;
  }

  /// Runs a draw probed and keeps it when it reached new coverage (returns 1); 0 when not or when the original
  /// cannot run on it (dropped), or when the draw showed a difference (the results then hold the mismatch); -1 when
  /// the verdict is decided otherwise (early set).
  int draw(TensorMap in, const ErrLocation& at, bool keep_anyway) {
    auto outs = probed(in, c.ro);
    if (!outs) return 0;
    const Gross g1 =
        outs->second.empty() ? Gross::Yes : gross_mismatch(c.original, outs->first, outs->second, c.opt.exact);
    if (g1 != Gross::No && confirmed(in, at, g1)) {
      const bool typed = c.ro.typed;
      // reported where it was confirmed (a typed check stays typed: run_on then judges with its allowance)
      if (g1 != Gross::NaN && !outs->second.empty() && !c.opt.typed) c.ro.typed = false;
      TensorMap ob, oa;
      const bool ran = run_on(c, in, at, ob, oa);
      c.ro.typed = typed;
      if (!ran) return -1;
      if (c.r.has_mismatch) return 0;
    }
    if (seen_b.add(cov_b.counts) + seen_a.add(cov_a.counts) == 0 && !keep_anyway) return 0;
    Kept k{std::move(in), std::move(cov_b.operands)};
    k.operands.insert(k.operands.end(), cov_a.operands.begin(), cov_a.operands.end());
    corpus.push_back(std::move(k));
    return 1;
  }
};

}  // namespace

bool phase_guided(Context& c) {
  const Options& opt = c.opt;
  if (!c.passing() || opt.guided.draws == 0 || opt.seeds.empty()) return true;
  const std::uint64_t spent_before = c.done_before;
  const std::uint64_t per_draw = 3 * std::max<std::uint64_t>(1, c.done_before / (2 * c.draws));  // + an f64 run
  GuidedSearch s(c, c.next + opt.boundary.pairs);
  auto affordable = [&] { return c.done_before - spent_before + per_draw <= opt.guided.budget; };
  // The corpus's seed draws are guided draws too: within the budget (a real workload gets none of them, and with
  // an empty corpus no mutated draw either).
  for (std::uint64_t s0 : opt.seeds) {
    for (Distribution dist : c.further) {
      if (!c.passing() || !affordable()) break;
      TensorMap in = make_inputs(*c.A, s0, dist, c.literals);
      if (opt.fixed) apply_fixed_inputs(in, *opt.fixed);
      ErrLocation at;
      at.seed = s0;
      at.dist = dist;
      if (s.draw(std::move(in), at, s.corpus.empty()) < 0) return false;
    }
  }
  for (std::uint32_t k = 0; k < opt.guided.draws && c.passing() && !s.corpus.empty() && affordable(); ++k) {
    // Half the mutations start from the draw kept last (a greybox fuzzer's energy for new entries: a
    // conjunction is met one condition at a time, each step building on the last), half from any kept draw.
    const Kept& parent =
        s.g.u01() < 0.5 ? s.corpus.back() : s.corpus[static_cast<std::size_t>(s.g.next() % s.corpus.size())];
    const Kept& donor = s.corpus[static_cast<std::size_t>(s.g.next() % s.corpus.size())];
    TensorMap child = mutate_inputs(parent.in, donor.in, s.domains, c.literals, parent.operands, s.g);
    c.ro.typed = opt.typed || k % 2 == 1;
    ErrLocation at;
    at.seed = s.seed;
    at.guided = k;
    const int got = s.draw(std::move(child), at, false);
    ++c.r.guided_inputs;
    if (got < 0) return false;
    c.r.guided_kept += got;
  }
  c.ro.typed = opt.typed;
  if (c.r.guided_inputs)
    c.note(std::to_string(c.r.guided_inputs) + " guided draw(s), " + std::to_string(c.r.guided_kept) + " kept" +
           (s.tie_draws ? ", " + std::to_string(s.tie_draws) +
                              " whose difference vanished with the float inputs moved by a few ulps (a rounding tie)"
                        : std::string()));
  return true;
}

}  // namespace steptp::equiv::detail
