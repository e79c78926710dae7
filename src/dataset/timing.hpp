// S7 grounded measurement for the pipeline (DATASET.md §2.7): per-program latency summaries, cached by program key
// + environment fingerprint + measurement config (table `measurements`), serialised across threads (one
// measurement per machine at a time). The real timer calls runtime::measure (child process); the fixed timer is
// a deterministic latency model for tests: ns = 100 + 0.1·flops + 0.02·footprint_bytes + 0.2·iterations.
#pragma once
#include <mutex>
#include <string>

#include "dataset/cache.hpp"
#include "dataset/config.hpp"
#include "dataset/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::dataset {

/// Hashed environment fingerprint (CPU model, cores, threads, compiler, kernel, steptp version): 16 hex digits;
/// "fixed" for the fixed timer.
std::string env_fingerprint(const GenConfig& cfg);

class Timer {
 public:
  Timer(const GenConfig& cfg, Cache* cache);
  /// {median_ns, q1_ns, q3_ns, iqr_ns, repeats, number} of `t`; throws std::runtime_error("runtime_crash: ..." or
  /// "timeout: ...") when the program fails in the child.
  ojson latency(const ir::Task& t, const std::string& prog_key);
  /// §4 `measurement` object for (before, after); `root` is the root latency (for speedup_vs_root).
  ojson compare(const ojson& before, const ojson& after, const ojson& root) const;
  const std::string& env() const { return env_; }

 private:
  const GenConfig& cfg_;
  Cache* cache_;
  std::string env_;
  std::mutex mu_;
};

}  // namespace steptp::dataset
