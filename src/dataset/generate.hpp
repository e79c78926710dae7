// Orchestration of `steptp generate` and `steptp merge` (DATASET.md §1–§3, §10): plan units, pick this shard's
// slice, run S3–S9 per unit on --jobs threads with the SQLite cache (a unit is marked done last, so a rerun skips
// done units and resumes others from cached candidates), then S10–S11 (single run) or the shard files (--shard).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "step/config.hpp"

namespace steptp::dataset {

struct GenerateOptions {
  std::string out;
  std::string cache_path;        // "" = OUT/cache.sqlite (or the shard's own)
  int jobs = 1;
  bool sharded = false;
  std::uint32_t shard_index = 0, shard_count = 1;
  int stop_after_units = 0;      // > 0: stop after computing this many new units, without exporting (tests)
  bool progress = true;
  bool measure_all = false;      // verify and time the candidates the length limits will drop (pre-measurement
                                 // filter off; DATASET.md §7), to check that filter
};

struct GenerateSummary {
  std::int64_t units = 0, units_from_cache = 0, units_computed = 0, records = 0;
  std::int64_t candidates = 0, candidate_cache_hits = 0;
  double seconds = 0;
  bool complete = false;         // false when stopped by stop_after_units
  std::string where;             // output directory written
};

/// Throws std::invalid_argument for bad options, std::runtime_error for I/O failures.
GenerateSummary run_generate(const GenConfig& gen, const FilterConfig& filter, const GenerateOptions& opt);

/// Combines shard outputs (default: every OUT/shards/shard-*) into OUT, then filter + export. Checks that all N
/// shards are present once, complete and agree on gen_hash; warns (or fails with require_same_env) when
/// environments differ. `filter` overrides the shards' filter config when `override_filter`.
void run_merge(const std::string& out, std::vector<std::string> shard_dirs, bool require_same_env,
               const FilterConfig* override_filter);

/// Shard directory name: shard-0003-of-0016.
std::string shard_dir_name(std::uint32_t i, std::uint32_t n);

}  // namespace steptp::dataset
