// `steptp audit DIR --remeasure K` (issue #9): re-times K sampled measured records with the dataset's own
// measurement configuration (no cache: every pair runs again), in the context they were timed in (all measured
// records of the same before program in one interleaved batch), and reports how many keep their verdict. Verdicts
// of a speedup s: faster (s > 1.05), slower (s < 0.95), neutral otherwise (the eval/search `faster` gate of
// DATASET.md §8 uses the same 1.05).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/json_text.hpp"

namespace steptp::dataset {

/// "faster", "slower" or "neutral" for a speedup (before / after latency).
std::string speedup_verdict(double speedup);

struct RemeasureRow {
  std::string record_id, strategy;
  double recorded = 0, remeasured = 0;  // speedups
  bool recorded_noisy = false, remeasured_noisy = false;
  std::string error;                    // non-empty when the re-measurement failed (crash, timeout)
  bool kept() const { return error.empty() && speedup_verdict(recorded) == speedup_verdict(remeasured); }
};

struct RemeasureReport {
  std::vector<RemeasureRow> rows;
  std::int64_t measured_records = 0;    // records with a measurement in the archive
  std::int64_t kept = 0, failed = 0;
  /// counts[recorded verdict][remeasured verdict]
  std::map<std::string, std::map<std::string, std::int64_t>> counts;
  double kept_share() const { return rows.empty() ? 0.0 : double(kept) / double(rows.size()); }
  ojson to_json() const;
};

/// Re-times `k` measured records of the dataset in `dir` (seeded choice, stream "remeasure"; all when k exceeds
/// them). `progress` (may be empty) is called after each record with (done, total). Throws std::invalid_argument
/// when `dir` is not a dataset, std::runtime_error when the archive cannot be read.
RemeasureReport remeasure(const std::string& dir, std::int64_t k,
                          const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace steptp::dataset
