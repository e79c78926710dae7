// S7 grounded measurement for the pipeline (DATASET.md §2.7): a step's before and after programs (and, for a
// trajectory step, its root) are timed interleaved ABBA in one pinned child with a calibrated `number`
// (runtime/interleaved.hpp); the speedup is the median of the per-round paired ratios and `noisy` is decided from
// the confidence interval of that median. Results are cached by (program keys, environment fingerprint, measurement config) in table
// `measurements` with their raw per-call samples, and serialised across threads (one measurement per machine at a
// time). The fixed timer is a deterministic latency model for tests:
// ns = 100 + 0.1·flops + 0.02·footprint_bytes + 0.2·iterations.
#pragma once
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "step/cache.hpp"
#include "step/config.hpp"
#include "base/json_text.hpp"
#include "step/measure_gate.hpp"
#include "ir/task.hpp"
#include "runtime/kernel.hpp"

namespace steptp::dataset {

/// Hashed environment fingerprint (CPU model, cores, threads, compiler, kernel, steptp version): 16 hex digits;
/// "fixed" for the fixed timer.
std::string env_fingerprint(const GenConfig& cfg);

/// One program to time: the task and its DATASET.md §3 prog_key.
struct TimedProgram {
  const ir::Task* task = nullptr;
  std::string prog_key;
};

class Timer {
 public:
  /// `shared_gate`: the gate of another Timer of the same run (e.g. eval's cold-cache re-check timer), so that
  /// both keep compute off the machine through one gate (a thread's compute depth is per thread, not per gate);
  /// nullptr = this timer's own gate.
  Timer(const GenConfig& cfg, Cache* cache, MeasureGate* shared_gate = nullptr);

  /// Result of one (before, after) measurement: the §4 `measurement` object, or `error` ("compile_error: ...",
  /// "runtime_crash: ..." or "timeout: ...").
  struct Outcome {
    ojson measurement;
    std::string error;
  };

  /// The §4 `measurement` objects of the steps before -> afters[i]: {before, after: {median_ns, q1_ns, q3_ns,
  /// iqr_ns, repeats, number}, speedup (median of the per-round paired ratios before/after), speedup_q1,
  /// speedup_q3, speedup_vs_root, noisy, redone, order, threads, cache, env, and fp_contract: true when the kernels
  /// were compiled with contraction}. Pairs found in the cache are not timed again; the others are timed in one
  /// pinned child, before (and `root`, for a trajectory step whose before is not the root; nullptr otherwise) and
  /// every after interleaved round by round, forward and reverse (ABBA). A pair is `noisy` when the 95% confidence
  /// interval of its median paired ratio, ± 1.57 · IQR / sqrt(n), is wider than ± noise_limit relative to the median
  /// and contains a verdict threshold (0.95 or 1.05); a noisy pair is timed again once, with 2 x repeats, and keeps
  /// the flag if it still is. When the batch child fails, each pair is timed alone so the failure is attributed.
  /// Failures are cached like results.
  std::vector<Outcome> measure_batch(const TimedProgram& before, const std::vector<TimedProgram>& afters,
                                     const TimedProgram* root);
  /// One pair (measure_batch of one); throws std::runtime_error with the error of a failed measurement.
  ojson measure(const TimedProgram& before, const TimedProgram& after, const TimedProgram* root);

  const std::string& env() const { return env_; }
  /// The kernel compile flags of this timer's configuration (runtime::kernel_compile_options), for prog_key.
  std::string compile_flags() const;
  bool fp_contract() const { return cfg_.fp_contract; }
  /// The gate that keeps compute off the machine while a measurement runs; generate's workers hold a
  /// MeasureGate::Compute section around each unit.
  MeasureGate* gate() { return gate_; }

 private:
  std::string cache_key(const TimedProgram& before, const TimedProgram& after, const TimedProgram* root) const;
  ojson measure_fixed(const TimedProgram& before, const TimedProgram& after, const TimedProgram* root) const;
  /// Times the uncached pairs `todo` (indices into afters) for real, in prog_key order; fills out[i] for each.
  void measure_real(const TimedProgram& before, const std::vector<TimedProgram>& afters, const TimedProgram* root,
                    std::vector<std::size_t> todo, std::vector<Outcome>& out);
  /// Inputs of a before program staged for the runner (runtime::StagedInputs), shared by its candidates: the
  /// most recent few, keyed by prog_key.
  std::shared_ptr<const runtime::StagedInputs> staged_inputs(const TimedProgram& before);

  const GenConfig& cfg_;
  Cache* cache_;
  std::string env_, mcfg_;
  MeasureGate own_gate_;
  MeasureGate* gate_;
  std::mutex staged_mu_;
  std::deque<std::pair<std::string, std::shared_ptr<const runtime::StagedInputs>>> staged_;
};

}  // namespace steptp::dataset
