// Calibrated, interleaved timing of several compiled kernels with the same signature in one sandboxed child
// (DATASET.md §2.7 S7; the design follows TVM's time_evaluator: `number` calls per repeat, calibrated so that one
// repeat lasts at least `min_repeat_ms`, then `repeats` repeats summarised by median and quartiles). Kernels are
// interleaved ABBA round by round, so drift, frequency changes and a neighbour's load hit before and after alike,
// and speedups are read from the paired per-round ratios.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "runtime/kernel.hpp"
#include "runtime/measure.hpp"

namespace steptp::runtime {

/// Options of time_interleaved. Defaults are DATASET.md §2.7's; bench/RESULTS.md justifies min_repeat_ms.
struct TimerOptions {
  int warmup = 3;                  // untimed calls per kernel before calibration
  int repeats = 15;                // timed rounds (each kernel one batch per round)
  double min_repeat_ms = 1.0;      // one batch lasts at least this long (milliseconds); 0 = number stays 1
  std::int64_t max_number = 1 << 20;
  bool cold_cache = false;         // write 2 x LLC bytes before every batch; number = 1
  int threads = 1;                 // OMP_NUM_THREADS in the child
  std::vector<int> cpus;           // CPUs the child is pinned to; empty = measure_cpus(threads)
  double redo_above = 0.05;        // relative IQR (of a kernel or of the paired ratios) that triggers one redo
                                   // with 2 x repeats
  double kernel_budget_s = 0;      // > 0: a kernel whose repeats would last longer gets fewer rounds (>= 1) and
                                   // fewer warmup calls (runner_source.hpp), so a very slow candidate stays cheap
  SandboxLimits limits;
  CompileOptions compile;          // for building the runner
};

/// One kernel's timing: per-call seconds of every round (batch time / number) and their summary.
struct ProgramTiming {
  std::int64_t number = 1;         // calls per batch
  int repeats = 0;                 // rounds timed
  TimeStats stats;                 // seconds per call
  std::vector<double> per_call;    // seconds, one per round
  /// Relative IQR: iqr / median (0 when the median is 0).
  double rel_iqr() const { return stats.median > 0 ? stats.iqr / stats.median : 0.0; }
};

/// Outcome of time_interleaved. ok=false carries the reason (as MeasureResult::error).
struct InterleavedTiming {
  bool ok = false;
  std::string error;
  std::vector<ProgramTiming> programs;  // in the order of the shared objects given
  bool redone = false;                  // the first run was too noisy and was repeated with 2 x repeats
};

/// Per-round ratios time(a) / time(b) of two kernels timed in the same rounds (so a ratio > 1 means b is faster),
/// round i of a paired with round i of b, over the rounds both ran; rounds where b took no time are skipped.
std::vector<double> paired_ratios(const ProgramTiming& a, const ProgramTiming& b);
/// Median and quartiles of paired_ratios(a, b). Empty inputs give zeros.
TimeStats paired_ratio(const ProgramTiming& a, const ProgramTiming& b);

/// Times `so_paths` (>= 1 kernels taking `buffers`) in one pinned child on `inputs`: warmup, calibration of
/// `number` per kernel, then `repeats` ABBA rounds. If any kernel's relative IQR, or the relative IQR of the paired
/// ratios of the first and the last kernel, exceeds opt.redo_above, the whole measurement is redone once with
/// 2 x repeats and that result is returned (`redone`). Never throws for kernel failures (crash, timeout: ok=false).
InterleavedTiming time_interleaved(const std::vector<std::string>& so_paths, const std::vector<KernelBuffer>& buffers,
                                   const interp::TensorMap& inputs, const TimerOptions& opt);
/// The same on inputs staged earlier for `buffers` (reused across measurements of one before program).
InterleavedTiming time_interleaved(const std::vector<std::string>& so_paths, const std::vector<KernelBuffer>& buffers,
                                   const StagedInputs& staged, const TimerOptions& opt);

/// The CPUs measurements are pinned to by default: the last `threads` CPUs this process may run on
/// (sched_getaffinity), so a single-threaded measurement avoids CPU 0, where interrupts and the shell tend to run.
std::vector<int> measure_cpus(int threads);

}  // namespace steptp::runtime
