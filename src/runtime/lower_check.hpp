// Checking a compiled lowering against the reference interpreter: the C (or CUDA) code runs sandboxed on the
// seeded inputs of LEIR.md §11 (seeds × distributions N and U; buffers with given values, such as a model's
// weights, keep them), the interpreter runs typed (§8.2/§8.3) on the same inputs, and every output element is
// compared with equiv::elements_match (§11 step 4); an element outside the per-dtype tolerance is judged again
// with the rounding allowance of §11 step 4b (from an f64 interpreter run of the same draw).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"
#include "runtime/measure.hpp"

namespace steptp::runtime {

enum class LowerTarget { C, Cuda };

struct LowerCheckOptions {
  std::vector<std::uint64_t> seeds{0, 1, 2};
  double tol_scale = 1.0;
  SandboxLimits limits;
  CompileOptions compile;             // C: cxx/flags; CUDA: cxx is the nvcc command ("" = $NVCC or nvcc)
  // --fmad=false: no fused multiply-add, as the C build's -ffp-contract=off (DATASET.md §2.6): every operation
  // rounds in its type like the typed interpreter (nvcc contracts a*b+c by default).
  std::string nvcc_flags = "-O3 -shared -Xcompiler -fPIC --expt-relaxed-constexpr --fmad=false";
  /// Values of known buffers that are not drawn (equiv::check_fixed_inputs); null: all drawn.
  std::shared_ptr<const interp::TensorMap> fixed;
  /// Passed to each interpreter run (statement limit E308, progress calls with that run's executions).
  interp::RunOptions interp;
};

struct LowerCheckResult {
  bool ok = false;
  std::string message;                // "" when ok; the first failure otherwise
  double max_abs_err = 0, max_rel_err = 0;
  int runs = 0;                       // kernel runs compared
  double compile_seconds = 0;
  std::string to_json() const;
};

/// Lowers, compiles (cached), runs and compares. Throws LeirError for an invalid task and std::invalid_argument
/// when `opt.fixed` does not fit the task; every other failure
/// (compile error, crash, timeout, interpreter error, mismatch) is reported in the result.
LowerCheckResult check_lowering(const ir::Task& t, LowerTarget target, const LowerCheckOptions& opt = {});

}  // namespace steptp::runtime
