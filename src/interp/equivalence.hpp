// Equivalence checking (LEIR.md §11).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"

namespace steptp::interp {

/// The value multiset of distribution K for comparing two programs: every literal magnitude of either
/// (literal_magnitudes), followed, when the two sets differ, by as many entries again cycling through the
/// magnitudes found in only one of them — so half of K's literal draws land on the constants where the programs
/// differ (a changed threshold, divisor or clamp is met from both sides).
std::vector<double> comparison_literals(const ir::Program& original, const ir::Program& candidate);

/// Extra seeds of the adaptive draws in the CLI's checks (EquivOptions::extra_seeds_if_insensitive).
inline constexpr std::uint32_t kAdaptiveExtraSeeds = 8;
/// The adaptive draws spend at most max(the check's own statement executions, this many) more executions.
inline constexpr std::uint64_t kAdaptiveMinBudget = std::uint64_t{1} << 20;

/// Seeds the CLI's checks add to a cheap check (EquivOptions::extra_seeds_if_cheap): 61, so 64 in all.
inline constexpr std::uint32_t kCheapExtraSeeds = 61;
/// A cheap check's further seeds spend at most this many statement executions.
inline constexpr std::uint64_t kCheapCheckBudget = std::uint64_t{1} << 20;

/// Pairs of draws the CLI's checks add to a cheap check as boundary draws (EquivOptions::boundary_pairs_if_cheap).
inline constexpr std::uint32_t kCheapBoundaryPairs = 32;
/// Output elements located per program and pair by the boundary draws.
inline constexpr int kBoundarySitesPerPair = 2;
/// The boundary draws bisect a segment down to this fraction of its length (2^-16): the two sides of a located
/// change are then compared at that distance from it, far outside the band of inputs over which float rounding
/// (2^-53 untyped) can move the change in an equivalent program.
inline constexpr double kBoundaryWidth = 0x1.0p-16;

/// Mutated draws the CLI's checks add to a cheap check as guided draws (EquivOptions::guided_inputs_if_cheap).
inline constexpr std::uint32_t kCheapGuidedInputs = 1024;

struct EquivOptions {
  std::vector<std::uint64_t> seeds{0, 1, 2};
  std::vector<Distribution> dists{Distribution::Normal, Distribution::Uniform, Distribution::Wide,
                                  Distribution::Literal};  // K's value set: literals of both programs
  bool typed = false;          // RunOptions::typed for both runs; also turns on the §11 step 4b rounding allowance
  /// Values of known buffers that are not drawn (a model's weights from its params sidecar), the same in every
  /// run; see check_fixed_inputs. Null: every non-output buffer is drawn.
  std::shared_ptr<const TensorMap> fixed;
  /// Adaptive draws: when every draw of `seeds` x `dists` passes but some output element of the original took
  /// fewer than 3 distinct values over them (a saturated comparison, clamp or bool reduction, a bool or small
  /// integer output: the draws barely exercised it), up to this many further seeds (max(seeds)+1, ...) are drawn
  /// with every distribution of `dists` and S (Distribution::Skewed; see skewed_further_draws), stopping at the
  /// first mismatch, within kAdaptiveMinBudget or the work of the seeds already drawn, whichever is larger (at
  /// most twice the cost of a large check). 0 (the library default) turns it off; `steptp equiv`, `apply --verify`
  /// and the fuzzer's mutation check use kAdaptiveExtraSeeds (bench/RESULTS.md, "Adaptive draws").
  std::uint32_t extra_seeds_if_insensitive = 0;
  /// Cheap checks: when every draw (adaptive ones included) passes, up to this many further seeds are drawn with
  /// every distribution of `dists` and S, each untyped and typed (§8.2 precision, with the rounding allowance),
  /// stopping at the first mismatch, within kCheapCheckBudget statement executions: a small program (a few hundred
  /// executions per draw) gets 64 seeds, a real workload none. A difference masked on most inputs (a clamp reached
  /// only by a wide draw, an f16 product that underflows to -0 and flips a comparison) is met (bench/RESULTS.md,
  /// "Cheap checks draw on"). 0 (the library default) turns it off; `steptp equiv`, `apply --verify` and the
  /// fuzzer's mutation check use kCheapExtraSeeds.
  std::uint32_t extra_seeds_if_cheap = 0;
  /// The further draws (adaptive and cheap) use distribution S besides `dists` (off: `dists` only; the mutation
  /// check's comparison in bench/RESULTS.md, "Skewed draws").
  bool skewed_further_draws = true;
  /// Boundary draws: when every draw (adaptive and cheap ones included) passes, up to this many pairs of further
  /// draws x0, x1 (seed, two distributions of `dists` and S) are taken. Both programs run at x0, x1 and the middle
  /// of the segment between them (interpolate_inputs), all compared. Then, for each program, up to
  /// kBoundarySitesPerPair output elements whose value differs between x0 and x1 and is piecewise constant along
  /// the segment (its value at the middle is one of the two: a comparison, clamp, select, bool or integer result)
  /// are located: the point where the element changes is bisected down to kBoundaryWidth of the segment, running
  /// that program only, and both programs are compared on the draws at that distance on either side. A threshold,
  /// clamp or underflow point the candidate moved (`exp(0-|A|)>0` against `exp(1-|A|)>0`: only |A| in (103.97,
  /// 104.97) tells them apart in f32) is met however narrow the band of inputs where they differ; random draws meet
  /// it by chance. Even pairs run untyped, odd ones typed (§8.2 precision, with the rounding allowance; every pair
  /// when `typed`); a typed pair on which the original cannot run in §8.2 precision is skipped, as in the cheap
  /// checks. None when the further draws have a single distribution. A pair is started only while its worst-case
  /// cost (from the runs so far) fits in kCheapCheckBudget statement executions for the whole phase. 0 (the
  /// library default) turns it off; `steptp equiv`, `apply --verify` and the fuzzer's mutation check use
  /// kCheapBoundaryPairs (bench/RESULTS.md, "Boundary draws").
  std::uint32_t boundary_pairs_if_cheap = 0;
  /// Guided draws (interp/guided.hpp): when every draw (boundary draws included) passes, up to this many mutated
  /// draws are run on both programs with coverage probes (RunOptions::coverage), as a greybox fuzzer runs a
  /// program: the corpus starts with the draws of `seeds` x (`dists` and S); each further draw is a mutation of a
  /// kept one (mutate_inputs: literal magnitudes, zeros, copies between elements, sign and scale changes, whole
  /// buffers made one-signed or constant, splices), compared like every draw, and kept when either program's
  /// probes reach a value class or hit-count bucket no earlier draw reached. A difference that needs a conjunction
  /// of rare per-element conditions is approached one condition at a time. Even draws run untyped, odd ones typed
  /// (every draw when `typed`); a draw on which the original fails to run is dropped (mutations can leave the
  /// draws' domain of defined behaviour: an integer division by zero, say). The search also finds the inputs where a
  /// legitimate class-R rewrite rounds differently (cancellations), so a guided draw is reported only on a gross
  /// difference: NaN against a number, an infinity against another value, or, beyond the per-dtype tolerance, more
  /// than 2^-4 of the larger magnitude (with `exact`, any difference); a typed draw's must also show in the untyped
  /// run of the same draw unless it is NaN. It must also show on one of two copies of the draw whose non-integer,
  /// non-literal float inputs are moved up, or down, by 1 to 2^8 f64 ulps (perturb_float_inputs): input-to-state
  /// replacement copies a value one program computes into an input it is compared with, and where the two
  /// programs round that value differently the comparison ties (a class-R effect; the verdict counts such draws).
  /// Without `exact` only. Within kCheapCheckBudget statement executions (guided_budget), the corpus's seed draws
  /// included: a program whose draw costs more gets none. 0 (the library default) turns it off; `steptp equiv`,
  /// `apply --verify` and the fuzzer's mutation check use kCheapGuidedInputs (bench/RESULTS.md, "Guided draws").
  std::uint32_t guided_inputs_if_cheap = 0;
  /// The guided draws' tie check (above: a difference must also show on one of two copies of the draw moved by a
  /// few f64 ulps). Off only to measure what it removes (`steptp fuzz --checker-no-tie-check`).
  bool guided_tie_check = true;
  /// Statement executions the guided draws may spend.
  std::uint64_t guided_budget = kCheapCheckBudget;
  bool exact = false;          // require bit-identical outputs (class E)
  double rtol_scale = 1.0;     // multiplies the per-dtype rtol/atol
  std::uint64_t max_steps = 0; // per run; 0 = unlimited
  /// Called every `progress_every` statement executions with the executions so far over all runs of both
  /// programs (seeds x distributions N, U x {original, candidate}); both set, or no calls.
  std::function<void(std::uint64_t)> progress;
  std::uint64_t progress_every = 0;
};

/// Where an error was observed.
struct ErrLocation {
  std::string output;
  std::int64_t index = -1;     // flat row-major index
  std::uint64_t seed = 0;
  Distribution dist = Distribution::Normal;
  /// Boundary draws (EquivOptions::boundary_pairs_if_cheap): the draw at `t` in [0, 1] on the segment from the
  /// draw (seed, dist) to the draw (seed, to), interpolate_inputs with salt `seed`; t < 0 for every other draw.
  Distribution to = Distribution::Normal;
  double t = -1;
  /// Guided draws (EquivOptions::guided_inputs_if_cheap): the index of the mutated draw of the search started with
  /// seed `seed`; -1 for every other draw.
  std::int64_t guided = -1;
  bool typed = false;          // the runs were typed (RunOptions::typed: §8.2 precision)
  /// > 0: the draw with its float inputs clamped to +-clamped (2^9), where an integer or bool difference found on a
  /// draw near exp's f64 overflow point is judged (the range rule, check_equivalence); 0 for every other draw.
  double clamped = 0;
  double a = 0, b = 0;         // candidate, original
};

/// "seed 4, S" for a draw, "seed 4, N->S at t=0.2031326" for a boundary draw (ErrLocation::t >= 0), "guided draw 37
/// of seed 67" for a guided draw (ErrLocation::guided >= 0), with ", float inputs clamped to 512" for a clamped
/// draw (ErrLocation::clamped > 0). The verdict's message adds ", typed" for a typed run of an untyped check (the
/// cheap checks' and boundary draws' typed runs).
std::string draw_label(const ErrLocation& at);

struct EquivResult {
  bool equivalent = false;
  std::string code;            // "" when equivalent, else E501-E505
  std::string message;
  double max_abs_err = 0, max_rel_err = 0;
  ErrLocation max_abs_at, max_rel_at, first_mismatch;
  bool has_mismatch = false;
  std::uint32_t extra_seeds = 0;  // seeds drawn beyond EquivOptions::seeds (adaptive draws)
  std::uint32_t boundary_pairs = 0;  // pairs of boundary draws taken (EquivOptions::boundary_pairs_if_cheap)
  std::uint32_t guided_inputs = 0;   // guided draws run (EquivOptions::guided_inputs_if_cheap)
  std::uint32_t guided_kept = 0;     // of them, kept in the corpus (new coverage)
  /// JSON object with all of the above (for records and the CLI).
  std::string to_json() const;
};

/// Checks `candidate` against `original`. Never throws for program defects (they become E502/E503 results);
/// throws std::invalid_argument when `opt.fixed` does not fit the original's known buffers (check_fixed_inputs).
/// In a typed run (`opt.typed`, or the typed runs of the further draws), a float element outside the per-dtype
/// tolerance is judged again from f64 runs of both programs on the same draw (run only for draws with such
/// elements): within the original's rounding allowance of §11 step 4b plus the candidate's rounding level
/// (rounding_level: a class-R rewrite rounds at other points, STRATEGIES.md §6), or, where a typed value is
/// infinite or NaN and its own program's f64 value is finite (an overflow of the declared types), on the two f64
/// values. On a draw with a float input above 2^9 in magnitude, an element infinite or NaN in one program only is
/// not judged (§6 range rule; counted in the message). A typed run's degenerate output (§11 step 5) counts only
/// when the f64 runs show it too, and an original output within 2^-10 of the tolerance of zero counts as zero.
/// Integer and bool elements are compared exactly, but one that differs only in a typed run while both programs'
/// f64 runs agree on it (a comparison flipped by the declared types' rounding: an f32 store that underflows to 0)
/// is not judged, and one that differs on a draw with a float input above 2^9 (an f64 exp that underflows) is
/// judged again on that draw with the float inputs clamped to +-2^9 (ErrLocation::clamped); both are counted in the
/// message. Sources: bench/RESULTS.md, "Checker specificity" and "Comparisons flipped by underflow".
EquivResult check_equivalence(const ir::Task& original, const ir::Task& candidate, const EquivOptions& opt = {});

/// Per-dtype tolerances (rtol, atol) of LEIR.md §11.
std::pair<double, double> tolerance(ir::DType t);

}  // namespace steptp::interp
