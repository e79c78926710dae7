// S10 filtering (DATASET.md §7): pair deduplication, split by workload, leakage check, length limits, prompt
// deduplication, rare-strategy quotas, thinning of easy and easily reversed strategies, caps, the anti-shortcut
// rule, multi-N samples, and the prompt-only baselines of §7.4.8. Deterministic given the sorted archive and the
// filter seed (streams "split", "quota", "thin", "multi", "order").
//
// Deviations (documented in the report): a split group is one workload name; the strategy share cap is
// max(ceil(max_strategy_share * split size), min_per_strategy), so a small dataset with few registered strategies
// is not emptied by the 10 % share rule.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "step/config.hpp"
#include "base/json_text.hpp"
#include "dataset/units.hpp"
#include "step/tokens.hpp"

namespace steptp::dataset {

inline constexpr const char* kSplits[] = {"train", "val", "test"};

struct Sample {
  std::vector<std::size_t> recs;  // indices into the archive, answer order
  int n = 1;                      // 1: single answer; >= 2: "at least n" sample
  std::string user, assistant;
};

struct FilterOutput {
  std::map<std::string, std::vector<std::size_t>> kept;      // split -> archive indices, archive order
  std::map<std::string, std::vector<Sample>> samples;        // split -> samples, output order
  std::map<std::string, std::vector<ojson>> eval_prompts;    // "val"/"test" -> prompt lines
  std::map<std::size_t, std::vector<std::string>> aliases;   // archive index -> alias strategies
  std::map<std::string, std::string> split_of;               // workload -> split
  std::vector<Reject> rejects;
  ojson audit;                                               // baselines, leakage, shortfalls, multi-N counts
};

/// Runs S10 over the archive (sorted records). `pre_rejects` are the S1–S9 rejects; of them, the samples generate
/// dropped as too long before measuring (stage S10, with a family) still make their workload a split group (§7.2).
/// Throws std::runtime_error with --fail-on-shortcut when the signature baseline exceeds 0.5. `tokens` counts the
/// multi-N samples for the length limits (§7.3; single samples use their records' counts): the run's counter
/// (GenConfig::tokenizer), null for the built-in rule.
FilterOutput filter_records(const std::vector<ojson>& archive, const std::vector<Reject>& pre_rejects,
                            const FilterConfig& fc, std::uint64_t master_seed, const TokenCounter* tokens = nullptr);

}  // namespace steptp::dataset
