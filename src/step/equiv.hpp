// S5 numeric equivalence (DATASET.md §2.5) on the pipeline's draws: draws 0..K-1 standard normal, draw K uniform on
// [0,1); draw d's inputs come from equiv::make_inputs(task, derive(master, stream, task_key, d), dist) with
// stream "equiv" in generate and "eval-equiv" / "search-equiv" / "recheck" in eval and search.
// Programs with at most interp_max_ops statement instances run in the reference interpreter; larger ones run their
// compiled C lowering in a sandboxed child (runtime::run_compiled).
// Rule per draw and output element: NaN/inf positions coincide (nan_mismatch); class E is bit-for-bit; R, D, P need
// |x - y| <= atol*s + rtol*|y| with s = max(1, max|y|) over the draw's output; (rtol, atol): f64 (1e-9, 1e-12), f32
// (1e-4, 1e-5), f16/bf16 (1e-2, 1e-3), integers exact.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::dataset {

struct EquivConfig {
  std::uint64_t master_seed = 0;
  int draws = 3;
  std::int64_t interp_max_ops = 50000000;
  std::string stream = "equiv";   // named stream of the draws (§11): "equiv" (generate), "eval-equiv", "search-equiv", "recheck"
  /// Empty: S5's draws (`draws` standard normal, then one uniform). Otherwise one draw per entry, drawn from that
  /// LEIR.md §11 distribution (the strict stage's wide and literal-directed draws, step/strict_equiv.hpp);
  /// `draws` is then ignored.
  std::vector<equiv::Distribution> dists;
};

/// Outputs of a reference program on every draw.
struct Reference {
  std::vector<std::uint64_t> seeds;
  std::vector<equiv::Distribution> dists;
  std::vector<interp::TensorMap> inputs, outputs;
  bool interpreter = true;
  std::size_t stored_weights = 0;  // known buffers that kept given values (make_reference's `fixed`) in every draw
};

/// Statement instances of a program (no validation): ir::statement_executions, clamped to INT64_MAX.
std::int64_t statement_instances(const ir::Task& t);

/// Runs `t` on the draws of `task_key`. `fixed`: values of known buffers that are not drawn (a model's weights,
/// equiv::check_fixed_inputs), the same in every draw; candidates checked against the reference run on its inputs,
/// so they see them too. Throws (LeirError / std::runtime_error, std::invalid_argument for a misfit `fixed`) when
/// it cannot run.
Reference make_reference(const ir::Task& t, const std::string& task_key, const EquivConfig& cfg,
                         const interp::TensorMap* fixed = nullptr);

/// True when every output is below 1e-6 in magnitude or constant on every draw (S3 degenerate_task).
bool is_degenerate(const Reference& ref);

struct EquivOutcome {
  bool ok = false;
  std::string reason;  // not_equivalent, nan_mismatch, runtime_crash, timeout, resolve_error
  std::string detail;
  ojson evidence;      // §4 `equivalence` object; `method` says which check ran: "interpreter" (both programs
                       // in the reference interpreter), "compiled_c" (both compiled C lowerings, for programs over
                       // interp_max_ops) or "interpreter_vs_compiled_c"; `stored_weights` (only when > 0): how many
                       // known buffers held a model's weights instead of drawn values
};

/// Runs `after` on ref's inputs and compares with ref's outputs under class `cls` ('E' = bitwise).
EquivOutcome check_against(const ir::Task& after, const Reference& ref, char cls, const EquivConfig& cfg);

/// The verdict `steptp equiv BEFORE AFTER` gives on a record's pair: equiv::check_equivalence with
/// equiv::cli_options() (seeds 0-2 x N, U, W, K; adaptive, cheap-check, boundary and guided draws within their
/// budgets), every known buffer drawn. S5's last check in generate (DATASET.md §2.5), so that no record fails the
/// checker a user runs; on failure the reason is `not_equivalent` (`runtime_crash` for E503) with the code and
/// message, and the evidence is the checker's result (equiv::Result::to_json), recorded as `equivalence.checker`.
EquivOutcome check_as_cli(const ir::Task& before, const ir::Task& after);

/// (rtol, atol) of DATASET.md §2.5 for a dtype.
std::pair<double, double> dataset_tolerance(ir::DType t);

}  // namespace steptp::dataset
