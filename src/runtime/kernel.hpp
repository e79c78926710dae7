// Running a compiled kernel (a shared object exporting `leir_run_packed`, see lower/c.cpp for the ABI) in the
// sandbox, on given inputs, with optional timing. This is the layer below runtime::measure; tests use it directly
// with hand-written (deliberately broken) translation units.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "runtime/measure.hpp"

namespace steptp::runtime {

/// One parameter of leir_run, in order. Storage follows lower/c_emit.hpp (f16/bf16 as uint16_t bit patterns).
struct KernelBuffer {
  std::string name;
  ir::DType dtype = ir::DType::F32;
  std::vector<std::int64_t> shape;
  bool output = false;
};
/// The parameters of the lowered function of `t` (known order).
std::vector<KernelBuffer> kernel_buffers(const ir::Task& t);

struct KernelRunOptions {
  int warmup = 0;
  int repeats = 1;
  int threads = 1;          // OMP_NUM_THREADS in the child
  bool flush_cache = false;
  std::int64_t number = 1;          // calls per timed batch (used as is when min_batch_seconds = 0 or flush_cache)
  double min_batch_seconds = 0;     // > 0: calibrate number per kernel (smallest power of two reaching this)
  std::int64_t max_number = 1 << 20;
  double budget_seconds = 0;        // > 0: per-kernel time budget (fewer rounds for slow kernels, >= 1)
  std::vector<std::string> more_kernels;  // further shared objects with the same signature, timed interleaved
  std::vector<int> cpus;            // pin the child to these CPUs (sched_setaffinity); empty = not pinned
  SandboxLimits limits;
  bool want_outputs = true;
  CompileOptions compile;   // for building the runner
};

struct KernelRunResult {
  bool ok = false;
  std::string error;            // reason when !ok (see SandboxResult::reason)
  std::vector<double> times;    // seconds per call of the first kernel, one per timed round
  std::vector<std::vector<double>> kernel_times;  // per kernel (first = so_path), seconds per call per round
  std::vector<std::int64_t> numbers;              // per kernel: calls per batch
  interp::TensorMap outputs;    // when want_outputs (written by the last kernel to run)
};

struct TempDir;

/// The input buffers of a kernel encoded once (raw storage bytes, known order) into files of a private temporary
/// directory, removed with the last copy of this object. Several runs on the same inputs (every candidate of one
/// before program) then skip generating, encoding and writing them; the runner maps them read-only (copy on write).
class StagedInputs {
 public:
  /// Throws std::invalid_argument when an input is missing or mis-shaped, std::runtime_error on I/O failure.
  StagedInputs(const std::vector<KernelBuffer>& buffers, const interp::TensorMap& inputs);
  /// File of buffer i ("" for an output).
  const std::string& path(std::size_t i) const { return paths_.at(i); }
  std::size_t size() const { return paths_.size(); }

 private:
  std::shared_ptr<TempDir> dir_;
  std::vector<std::string> paths_;
};

/// Runs `so_path` (and opt.more_kernels) in one sandboxed child, rounds interleaved ABBA (runner_source.hpp).
/// Inputs are looked up by name (missing inputs are an error result). Never throws for failures of the kernel;
/// throws std::runtime_error for local I/O failures.
KernelRunResult run_kernel(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                           const interp::TensorMap& inputs, const KernelRunOptions& opt);
/// The same on inputs staged earlier (`staged` was made for the same `buffers`).
KernelRunResult run_kernel(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                           const StagedInputs& staged, const KernelRunOptions& opt);

/// Bytes of the cache-flush buffer (DATASET.md §2.7 `--cold-cache`): 2 × the last-level cache reported by sysconf
/// (32 MiB if unknown), clamped to [8 MiB, 1 GiB].
std::uint64_t flush_bytes();

/// Summary statistics of timings (seconds, or any unit): median, first and third quartiles (linear interpolation
/// between order statistics, DATASET.md §2.7), IQR = q3 - q1, min.
struct TimeStats {
  double median = 0, iqr = 0, min = 0, q1 = 0, q3 = 0;
};
TimeStats time_stats(std::vector<double> t);

/// Times an already compiled kernel (MeasureOptions::compile is only used to build the runner). Failures are
/// reported in the result.
MeasureResult measure_so(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                         const interp::TensorMap& inputs, const MeasureOptions& opt);

}  // namespace steptp::runtime
