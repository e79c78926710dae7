// Stages S3–S9 for one unit (DATASET.md §2.3–§2.9): root task, one-step candidates of every registered strategy,
// optional trajectories, validation + equivalence, lowering, measurement, facts, reasoning and its checker.
// Depends only on (configuration, unit) and the cache contents, so units run in any order, on any thread or
// machine, and a rerun reuses cached candidates and measurements.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "step/cache.hpp"
#include "step/config.hpp"
#include "step/timing.hpp"
#include "step/tokens.hpp"
#include "dataset/units.hpp"

namespace steptp::dataset {

/// Output of one unit: its records (archive order), rejects, and funnel counters ("S4.enumerated", ...).
struct UnitResult {
  std::string unit;
  std::vector<ojson> records;
  std::vector<Reject> rejects;
  std::map<std::string, std::int64_t> counters;
  std::string to_text() const;                     // cache payload (canonical JSON)
  static UnitResult from_text(const std::string&);  // throws on malformed payload
};

/// Shared, read-mostly context of a run.
struct PipelineEnv {
  const GenConfig* cfg = nullptr;
  Cache* cache = nullptr;  // may be null (no caching)
  Timer* timer = nullptr;  // null when measurement is off
  const TokenCounter* tokens = nullptr;  // the run's token counter (null: the built-in rule)
  std::int64_t system_tokens = 0;        // tokens of the system prompt under it
  // The S10 length limits (§7.3) applied before S5's numeric check and S7 (§7 "Before measuring"): a candidate
  // whose sample will be dropped as too_long is never verified or timed, nor counted against a state's limit, nor
  // continued by a trajectory. Null: no limits.
  const FilterConfig* length_limits = nullptr;
  // --measure-all: such candidates are still verified and timed and become records (that S10 drops), for checking
  // that the dataset is the same; they still do not count against a state's limit or continue a trajectory.
  bool measure_too_long = false;
  // state_sampling "strategies": strategy name -> planned root tasks with a site (root_site_counts).
  std::map<std::string, int> root_sites;
};

/// For each strategy of the run, how many of the units' root tasks offer at least one site (a root that cannot be
/// emitted counts for none).
std::map<std::string, int> root_site_counts(const std::vector<Unit>& units, const GenConfig& cfg);

/// Processes one unit. Never throws for defects of the unit (they become rejects); throws std::runtime_error only
/// for infrastructure failures (cache I/O).
UnitResult process_unit(const Unit& u, const PipelineEnv& env);

/// Compiler flags that enter program keys.
std::string pipeline_compiler_flags();

}  // namespace steptp::dataset
