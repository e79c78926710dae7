// `steptp search` (DATASET.md §9): runs one (algorithm, policy) over a list of root tasks and writes
// OUT/{results.jsonl, proposals.jsonl, transcripts.jsonl, summary.json, summary.md, run.json}, each atomically.
//
// Roots: the root tasks of a dataset's test split (the before program of its step-1 records, `tasks_per_workload`
// per workload, in archive order), the tasks of a JSONL task file (as `steptp workloads emit` writes them), or
// built-in workloads at their default (or small) shapes.
//
// Resumption: each finished task's result line (with its proposals and transcripts) is committed to the
// `search_results` table of the cache under H(configuration, policy, timer, root program); the exchanges with an
// llm endpoint go to `llm_calls` and measurements to `measurements` as they happen. A rerun after kill -9 takes
// finished tasks from the cache and replays the interrupted one from the llm and measurement caches, so the
// outputs equal those of an uninterrupted run. Output files are rewritten after every task.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "eval/grader.hpp"
#include "interp/interpreter.hpp"
#include "policy/factory.hpp"
#include "search/engine.hpp"

namespace steptp::search {

/// Bad input of a search (no roots, unknown workload or algorithm, bad budget, unreadable task file, bad policy
/// flags): the CLI prints the message as one line and exits 2. A dataset directory that is not one is a
/// dataset::DatasetDirError (D001-D003) instead.
class SearchInputError : public Error {
 public:
  explicit SearchInputError(const std::string& msg, Code c = Code::UncodedInput) : Error(c, msg) {}
};

/// The SearchInputErrors that are command-line usage errors (unknown algorithm, a budget below 1, missing --out or
/// roots, two root sources): the CLI prints them with code U001.
class SearchUsageError : public SearchInputError {
 public:
  explicit SearchUsageError(const std::string& msg) : SearchInputError(msg, Code::U001) {}
};

struct SearchOptions {
  // roots (exactly one source, or a dataset plus --workloads to filter it)
  std::string data_dir;               // a dataset written by `steptp generate`
  std::string split = "test";
  int tasks_per_workload = 1;
  std::string tasks_file;             // JSONL of tasks
  std::vector<std::string> workloads; // built-in workloads (or a filter on the dataset's)
  bool small = false;                 // built-in workloads at their small shapes
  std::string dtype = "f32";
  int limit = 0;                      // search only the first N roots (0 = all)
  std::string out_dir;
  policy::PolicySpec policy;          // llm | replay | random | cost
  SearchConfig search;
  std::string timer = "real";         // real | fixed (deterministic latency model, for tests)
  int repeats = 0;                    // timing repeats (0 = the dataset's, else 15)
  int threads = 1;                    // kernel threads (OMP) for the measured programs and the baseline
  bool fp_contract = true;            // measured kernels compiled with FMA contraction (runtime::kernel_compile_options)
  bool baseline = true;               // time the library baseline where one exists (CBLAS builds)
  std::string cache_path;             // "" = OUT/cache.sqlite
  bool progress = true;
  eval::GradeConfig grade;            // suspicious_speedup, recheck_trials, faster_threshold (re-check)
  /// Roots over these estimates are refused as that task's error (E309, E310) instead of being run: statement
  /// executions of one run (the compiled and interpreted reference runs) and bytes of buffers. 0: no limit.
  std::uint64_t max_steps = interp::kDefaultCompiledStepBudget;
  /// Programs over this many statement instances are checked for equivalence compiled (both the candidate and the
  /// root as their C lowerings) instead of in the interpreter; a node's `check` says which ran. Lower than the
  /// dataset's 5e7: a search checks every candidate, and a mid-size convolution took seconds per candidate in the
  /// interpreter. Not much lower: a compiled check costs a compile of its own (the timed kernel is contracted),
  /// which made MHA's search (1e7 instances) slower at 2^22.
  std::int64_t interp_max_ops = std::int64_t{1} << 24;
  std::uint64_t max_memory_bytes = std::uint64_t{4} << 30;
};

struct SearchRunResult {
  ojson summary;                      // summary.json
  ojson run;                          // run.json: wall time, cache counters, LLM requests
};

/// Runs the search over every root. Throws SearchInputError on bad input, policy::PolicyError when the policy
/// fails fatally (the finished tasks are written first), std::runtime_error on I/O failures. A root that does not
/// validate, or a non-fatal failure of one task, is recorded as that task's error and the run continues.
SearchRunResult run_search(const SearchOptions& opt);

}  // namespace steptp::search
