// Running a compiled kernel (a shared object exporting `leir_run_packed`, see lower/c.cpp for the ABI) in the
// sandbox, on given inputs, with optional timing. This is the layer below runtime::measure; tests use it directly
// with hand-written (deliberately broken) translation units.
#pragma once
#include <cstdint>
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
  SandboxLimits limits;
  bool want_outputs = true;
  CompileOptions compile;   // for building the runner
};

struct KernelRunResult {
  bool ok = false;
  std::string error;            // reason when !ok (see SandboxResult::reason)
  std::vector<double> times;    // seconds, one per timed repeat
  interp::TensorMap outputs;    // when want_outputs
};

/// Runs `so_path` in a sandboxed child. Inputs are looked up by name (missing inputs are an error result).
/// Never throws for failures of the kernel; throws std::runtime_error for local I/O failures.
KernelRunResult run_kernel(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                           const interp::TensorMap& inputs, const KernelRunOptions& opt);

/// Bytes of the cache-flush buffer: 1.5 × the last-level cache reported by sysconf (32 MiB if unknown),
/// clamped to [8 MiB, 1 GiB].
std::uint64_t flush_bytes();

/// Summary statistics of timings (seconds): median, IQR (linear-interpolated quartiles), min.
struct TimeStats {
  double median = 0, iqr = 0, min = 0;
};
TimeStats time_stats(std::vector<double> t);

/// Times an already compiled kernel (MeasureOptions::compile is only used to build the runner). Failures are
/// reported in the result.
MeasureResult measure_so(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                         const interp::TensorMap& inputs, const MeasureOptions& opt);

}  // namespace steptp::runtime
