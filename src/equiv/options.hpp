// Options of the equivalence check (LEIR.md §11): the draws and comparison every phase shares, and one nested struct
// per further phase (adaptive, cheap, boundary, guided; equiv/equivalence.cpp lists the phases). Every caller (the
// CLI's `equiv` and `apply --verify`, the fuzzer's mutation check, the dataset's strict stage, benchmarks) holds
// one Options and passes it by reference; cli_options() is the CLI's default.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "equiv/inputs.hpp"

namespace steptp::equiv {

/// Extra seeds of the adaptive draws in the CLI's checks (Options::Adaptive::extra_seeds).
inline constexpr std::uint32_t kAdaptiveExtraSeeds = 8;
/// The adaptive draws spend at most max(the check's own statement executions, this many) more executions.
inline constexpr std::uint64_t kAdaptiveMinBudget = std::uint64_t{1} << 20;

/// Seeds the CLI's checks add to a cheap check (Options::Cheap::extra_seeds): 61, so 64 in all.
inline constexpr std::uint32_t kCheapExtraSeeds = 61;
/// A cheap check's further seeds spend at most this many statement executions.
inline constexpr std::uint64_t kCheapCheckBudget = std::uint64_t{1} << 20;

/// Pairs of draws the CLI's checks add to a cheap check as boundary draws (Options::Boundary::pairs).
inline constexpr std::uint32_t kCheapBoundaryPairs = 32;
/// Output elements located per program and pair by the boundary draws.
inline constexpr int kBoundarySitesPerPair = 2;
/// The boundary draws bisect a segment down to this fraction of its length (2^-16): the two sides of a located
/// change are then compared at that distance from it, far outside the band of inputs over which float rounding
/// (2^-53 untyped) can move the change in an equivalent program.
inline constexpr double kBoundaryWidth = 0x1.0p-16;

/// Mutated draws the CLI's checks add to a cheap check as guided draws (Options::Guided::draws).
inline constexpr std::uint32_t kCheapGuidedInputs = 1024;

struct Options {
  // The draws and comparison of every phase.
  std::vector<std::uint64_t> seeds{0, 1, 2};
  std::vector<Distribution> dists{Distribution::Normal, Distribution::Uniform, Distribution::Wide,
                                  Distribution::Literal};  // K's value set: literals of both programs
  bool typed = false;          // RunOptions::typed for both runs; also turns on the §11 step 4b rounding allowance
  /// Values of known buffers that are not drawn (a model's weights from its params sidecar), the same in every
  /// run; see check_fixed_inputs. Null: every non-output buffer is drawn.
  std::shared_ptr<const TensorMap> fixed;
  bool exact = false;          // require bit-identical outputs (class E)
  double rtol_scale = 1.0;     // multiplies the per-dtype rtol/atol
  std::uint64_t max_steps = 0; // per run; 0 = unlimited
  /// Called every `progress_every` statement executions with the executions so far over all runs of both
  /// programs (seeds x distributions N, U x {original, candidate}); both set, or no calls.
  std::function<void(std::uint64_t)> progress;
  std::uint64_t progress_every = 0;
  /// The further draws (adaptive, cheap, boundary, guided) use distribution S besides `dists` (off: `dists` only;
  /// the mutation check's comparison in bench/RESULTS.md, "Skewed draws").
  bool skewed_further_draws = true;

  /// Adaptive draws (equiv/phase_adaptive.cpp): when every draw of `seeds` x `dists` passes but some output element
  /// of the original took fewer than 3 distinct values over them (a saturated comparison, clamp or bool reduction,
  /// a bool or small integer output: the draws barely exercised it), up to `extra_seeds` further seeds
  /// (max(seeds)+1, ...) are drawn with every distribution of `dists` and S (Distribution::Skewed; see
  /// skewed_further_draws), stopping at the first mismatch, within kAdaptiveMinBudget or the work of the seeds
  /// already drawn, whichever is larger (at most twice the cost of a large check). 0 (the library default) turns
  /// it off; `steptp equiv`, `apply --verify` and the fuzzer's mutation check use kAdaptiveExtraSeeds
  /// (bench/RESULTS.md, "Adaptive draws").
  struct Adaptive {
    std::uint32_t extra_seeds = 0;
  } adaptive;

  /// Cheap checks (equiv/phase_cheap.cpp): when every draw (adaptive ones included) passes, up to `extra_seeds`
  /// further seeds are drawn with every distribution of `dists` and S, each untyped and typed (§8.2 precision, with
  /// the rounding allowance), stopping at the first mismatch, within kCheapCheckBudget statement executions: a
  /// small program (a few hundred executions per draw) gets 64 seeds, a real workload none. A difference masked on
  /// most inputs (a clamp reached only by a wide draw, an f16 product that underflows to -0 and flips a comparison)
  /// is met (bench/RESULTS.md, "Cheap checks draw on"). 0 (the library default) turns it off; `steptp equiv`,
  /// `apply --verify` and the fuzzer's mutation check use kCheapExtraSeeds.
  struct Cheap {
    std::uint32_t extra_seeds = 0;
  } cheap;

  /// Boundary draws (equiv/phase_boundary.cpp): when every draw (adaptive and cheap ones included) passes, up to
  /// `pairs` pairs of further draws x0, x1 (seed, two distributions of `dists` and S) are taken. Both programs run
  /// at x0, x1 and the middle of the segment between them (interpolate_inputs), all compared. Then, for each
  /// program, up to kBoundarySitesPerPair output elements whose value differs between x0 and x1 and is piecewise
  /// constant along the segment (its value at the middle is one of the two: a comparison, clamp, select, bool or
  /// integer result) are located: the point where the element changes is bisected down to kBoundaryWidth of the
  /// segment, running that program only, and both programs are compared on the draws at that distance on either
  /// side. A threshold, clamp or underflow point the candidate moved (`exp(0-|A|)>0` against `exp(1-|A|)>0`: only
  /// |A| in (103.97, 104.97) tells them apart in f32) is met however narrow the band of inputs where they differ;
  /// random draws meet it by chance. Even pairs run untyped, odd ones typed (§8.2 precision, with the rounding
  /// allowance; every pair when `typed`); a typed pair on which the original cannot run in §8.2 precision is
  /// skipped, as in the cheap checks. None when the further draws have a single distribution. A pair is started
  /// only while its worst-case cost (from the runs so far) fits in kCheapCheckBudget statement executions for the
  /// whole phase. 0 (the library default) turns it off; `steptp equiv`, `apply --verify` and the fuzzer's mutation
  /// check use kCheapBoundaryPairs (bench/RESULTS.md, "Boundary draws").
  struct Boundary {
    std::uint32_t pairs = 0;
  } boundary;

  /// Guided draws (equiv/guided.hpp, equiv/phase_guided.cpp): when every draw (boundary draws included) passes, up
  /// to `draws` mutated draws are run on both programs with coverage probes (RunOptions::coverage), as a greybox
  /// fuzzer runs a program: the corpus starts with the draws of `seeds` x (`dists` and S); each further draw is a
  /// mutation of a kept one (mutate_inputs: literal magnitudes, zeros, copies between elements, sign and scale
  /// changes, whole buffers made one-signed or constant, splices), compared like every draw, and kept when either
  /// program's probes reach a value class or hit-count bucket no earlier draw reached. A difference that needs a
  /// conjunction of rare per-element conditions is approached one condition at a time. Even draws run untyped, odd
  /// ones typed (every draw when `typed`); a draw on which the original fails to run is dropped (mutations can
  /// leave the draws' domain of defined behaviour: an integer division by zero, say). The search also finds the
  /// inputs where a legitimate class-R rewrite rounds differently (cancellations), so a guided draw is reported
  /// only on a gross difference: NaN against a number, an infinity against another value, or, beyond the per-dtype
  /// tolerance, more than 2^-4 of the larger magnitude (with `exact`, any difference); a typed draw's must also
  /// show in the untyped run of the same draw unless it is NaN. It must also show on one of two copies of the draw
  /// whose non-integer, non-literal float inputs are moved up, or down, by 1 to 2^8 f64 ulps (the tie check,
  /// equiv/tie_check.cpp). Within `budget` statement executions, the corpus's seed draws included: a program whose
  /// draw costs more gets none. 0 (the library default) turns it off; `steptp equiv`, `apply --verify` and the
  /// fuzzer's mutation check use kCheapGuidedInputs (bench/RESULTS.md, "Guided draws").
  struct Guided {
    std::uint32_t draws = 0;
    /// The tie check (above: a difference must also show on one of two copies of the draw moved by a few f64
    /// ulps). Off only to measure what it removes (`steptp fuzz --checker-no-tie-check`).
    bool tie_check = true;
    /// Statement executions the guided draws may spend.
    std::uint64_t budget = kCheapCheckBudget;
  } guided;
};

/// Options with the CLI's default further draws (`steptp equiv`, `apply --verify`, the fuzzer's mutation check,
/// eval's strict stage, benchmarks): kAdaptiveExtraSeeds adaptive seeds, kCheapExtraSeeds cheap-check seeds,
/// kCheapBoundaryPairs boundary pairs and kCheapGuidedInputs guided draws (distribution S included; set
/// skewed_further_draws to false to leave it out). Seeds and distributions are Options' defaults.
inline Options cli_options() {
  Options o;
  o.adaptive.extra_seeds = kAdaptiveExtraSeeds;
  o.cheap.extra_seeds = kCheapExtraSeeds;
  o.boundary.pairs = kCheapBoundaryPairs;
  o.guided.draws = kCheapGuidedInputs;
  return o;
}

}  // namespace steptp::equiv
