// The strict stage of the eval and search equivalence gates (an addition to DATASET.md §8 gate 4 and §9.1, which
// name only S5; `--no-strict-equivalence` restores the spec's gate). S5's draws (3 normal, 1 uniform) never reach a
// threshold or clamp that only larger or literal-directed values meet, nor a difference that shows on rare inputs
// only; an answer with such a defect passes S5. After S5 passes, the answer is compared with the root:
//  1. on the root's strict draws: 2 wide (W: random sign, log-uniform magnitude in [2^-4, 2^6)) and 2
//     literal-directed (K: the root's literals, nudged, with combinations) draws of LEIR.md §11, stream
//     "<S5 stream>-strict", under S5's comparison rule (check_against). The root's outputs are computed once per
//     root (eval::TaskContext caches them), so an answer costs 4 runs, as S5 does;
//  2. when root and answer together run at most kStrictFullCheckPerDraw statement instances per draw (small
//     programs, where it costs milliseconds), also with equiv::check_equivalence as `steptp equiv` runs it (3 seeds
//     x N, U, W, K with the answer's literals too; adaptive, cheap-check, boundary and guided draws), less
//     distribution S: its 2^10 scale overflows exp(x) * exp(-m) where exp(x - m) does not, and such an
//     exponential_split is a legitimate class-R step (STRATEGIES.md §6: overflow thresholds are not domain
//     conditions) that S's cheap-check draws reject on small programs (bench/RESULTS.md, "Strict equivalence
//     stage"; tests/interp/test_guided.cpp NoGuidedDrawOnAProgramOverTheBudget).
// Figures (what it catches that S5 misses, what it costs, false rejections on a dataset's own steps):
// build/bench_strict_equiv.
#pragma once
#include <cstdint>
#include <string>

#include "base/json_text.hpp"
#include "step/equiv.hpp"
#include "equiv/options.hpp"
#include "ir/task.hpp"

namespace steptp::dataset {

/// Statement instances per draw (root + answer) up to which step 2 runs.
inline constexpr std::uint64_t kStrictFullCheckPerDraw = std::uint64_t{1} << 14;
/// Statement executions of the answer's step-1 runs above which the stage is skipped (recorded as such).
inline constexpr std::uint64_t kStrictMaxExecutions = std::uint64_t{1} << 28;

/// The options of step 2: equiv::check_equivalence as `steptp equiv` runs it (equiv::cli_options()), less
/// distribution S; its seeds are derived per task (strict_check).
inline equiv::Options strict_full_check_options() {
  equiv::Options o = equiv::cli_options();
  o.skewed_further_draws = false;
  return o;
}

struct StrictConfig {
  bool enabled = true;
  std::uint64_t max_executions = kStrictMaxExecutions;
  equiv::Options full = strict_full_check_options();  // step 2's checker (its seeds are replaced per task)
};

/// The draws of step 1 for the S5 configuration `s5` of a gate: same seed, draw-count-free, stream
/// s5.stream + "-strict", distributions W, W, K, K.
EquivConfig strict_draws(const EquivConfig& s5);

/// Outcome of the strict stage. `ran` false: skipped (`skipped` says why; `ok` stays true).
struct StrictOutcome {
  bool ran = false;
  bool ok = true;
  std::string skipped;  // "" when it ran
  std::string code;     // when !ok: S5's reason (not_equivalent, nan_mismatch, runtime_crash) for step 1, or the
                        // E502-E505 code of equiv::check_equivalence for step 2
  std::string detail;   // when !ok: where and what; else what ran
  double seconds = 0;
  /// {"ran", "equivalent", "skipped", "code", "detail", "seconds"}.
  ojson to_json() const;
};

/// Runs the strict stage for `after` against `root`, whose outputs on strict_draws(...) are `ref` (null when the
/// root failed to run on them: skipped). `cfg_draws` is the EquivConfig `ref` was made with; `task_key` seeds
/// step 2. Skips when disabled or when cfg_draws.dists.size() x statement instances of `after` exceeds
/// cfg.max_executions. Never throws for programs that validate.
StrictOutcome strict_check(const ir::Task& root, const Reference* ref, const ir::Task& after,
                           const EquivConfig& cfg_draws, const std::string& task_key, const StrictConfig& cfg);

}  // namespace steptp::dataset
