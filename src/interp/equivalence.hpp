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
  double a = 0, b = 0;         // candidate, original
};

struct EquivResult {
  bool equivalent = false;
  std::string code;            // "" when equivalent, else E501-E505
  std::string message;
  double max_abs_err = 0, max_rel_err = 0;
  ErrLocation max_abs_at, max_rel_at, first_mismatch;
  bool has_mismatch = false;
  std::uint32_t extra_seeds = 0;  // seeds drawn beyond EquivOptions::seeds (adaptive draws)
  /// JSON object with all of the above (for records and the CLI).
  std::string to_json() const;
};

/// Checks `candidate` against `original`. Never throws for program defects (they become E502/E503 results);
/// throws std::invalid_argument when `opt.fixed` does not fit the original's known buffers (check_fixed_inputs).
/// With `opt.typed`, an element outside the per-dtype tolerance is judged again with the rounding allowance of
/// §11 step 4b, from an extra f64 run of the original on the same draw (run only for draws with such elements).
EquivResult check_equivalence(const ir::Task& original, const ir::Task& candidate, const EquivOptions& opt = {});

/// Per-dtype tolerances (rtol, atol) of LEIR.md §11.
std::pair<double, double> tolerance(ir::DType t);

}  // namespace steptp::interp
