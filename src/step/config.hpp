// Configuration of `steptp generate` (DATASET.md §1, §2, §7). One JSON object; every option also has a CLI flag.
// GenConfig covers stages S1–S9 (hashed into gen_hash), FilterConfig S10–S11 (filter_hash). Unknown keys in the
// JSON are an error (std::invalid_argument naming the key).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "base/versions.hpp"

namespace steptp::dataset {

struct GenConfig {
  std::uint64_t master_seed = 20260525;
  // S1 sources
  std::vector<std::string> workloads;      // names or globs ('*', '?') of built-in workloads; empty = default set
  bool builtin = true;                     // use the built-in catalogue (false when only --onnx/--tasks are given)
  std::vector<std::string> onnx_dirs;      // directories scanned (recursively) for model.onnx files
  bool onnx_whole = false;                 // one unit per whole model instead of one per extracted task
  std::vector<std::string> task_files;     // task JSONL files: each line is a workload with one instance
  int per_family = 0;                      // default set: at most this many workloads per family (0 = all)
  bool cover_strategies = false;           // default set: add, for each strategy with no site in it, the first
                                           // catalogue workload (small shape) that has one
  int cover_units = 1;                     // ... until cover_units planned units offer a site of each strategy
  // S2
  int instances_per_workload = 20;
  bool small_shapes = true;                // draw around the catalogue's small shape instead of the full range
  std::int64_t max_buffer_bytes = 16ll << 20;
  std::int64_t max_total_bytes = 64ll << 20;
  std::int64_t max_flops = 1ll << 30;
  // With small_shapes, a drawn instance is grown towards (and past) the catalogue default until its root runs at
  // least this many statement instances, so that measured kernels last >= 50 µs single-threaded (bench/RESULTS.md;
  // 0 = keep the small shapes). Equivalence stays in the interpreter while a program fits interp_max_ops.
  std::int64_t target_root_ops = 3ll << 18;
  // S4
  int params_per_site = 2;
  int max_candidates_per_strategy = 6;
  int max_depth = 4;                       // 1: one-step candidates only; >1 grows trajectories
  int trajectories_per_task = 2;
  int candidates_per_step = 16;
  // Root candidates: 0 = DATASET.md §2.4, every strategy's one-step candidates (max_candidates_per_strategy
  // each); N > 0 = at most N candidates sampled across strategies, as at a trajectory state. For single-instance
  // units (ONNX model tasks: one shape, so one root prompt) §7.4 keeps at most max_answers_per_prompt answers per
  // prompt, so verifying and measuring every strategy's candidate at the root would mostly be discarded.
  int root_candidates = 0;
  // How a state's candidates are drawn when a limit applies (root_candidates > 0, trajectory states):
  // "candidates" = every strategy's sampled candidates shuffled together and cut to the limit (§2.4);
  // "strategies" = strategies tried one at a time, at most one accepted candidate each, rarer strategies first
  // (weights from how many planned root tasks offer a site), until the limit is accepted — so a state yields at
  // most one answer per strategy, what the prompt groups of §7.4 keep, and every accepted candidate is a contender.
  std::string state_sampling = "candidates";
  // S9/S10 token counts (DATASET.md §4 "Token counts", §7.3): a Hugging Face tokenizer.json (byte-level BPE) that
  // counts every record's tokens and the length limits; empty = the built-in rule approx-v2. Written to the JSON (so
  // hashed) only when set.
  std::string tokenizer;
  std::string trajectory_policy = "mixed"; // random | greedy | mixed
  std::vector<std::string> strategies;     // restrict to these registered strategies (empty = all)
  // S5
  int equiv_draws = 3;                     // K normal draws, plus one uniform draw
  std::int64_t interp_max_ops = 50000000;
  // S7
  bool measure = true;
  std::string timer = "real";              // real | fixed (deterministic latency model, for tests)
  int repeats = 15;
  int warmup = 3;
  int threads = 1;
  double min_repeat_ms = 1.0;              // calibrated number: one repeat (batch) lasts >= this (bench/RESULTS.md)
  double noise_limit = 0.03;               // noisy: the 95% CI of the median paired before/after ratio,
                                           // ± 1.57·IQR/sqrt(n), is wider than ± this (relative) and contains
                                           // 0.95 or 1.05 (timing.cpp noisy_pair)
  bool cold_cache = false;                 // flush 2 x LLC before every batch (number = 1)
  bool fp_contract = false;                // kernels timed with FMA contraction (runtime::kernel_compile_options);
                                           // search/replay only: a dataset keeps it off (DATASET.md §2.6)
  int measure_sessions = 3;                // child processes the repeats are split over (averages per-process
                                           // effects such as physical page placement, and one outlying process
                                           // holds a third of the rounds, not half; bench/RESULTS.md)
  double measure_timeout_s = 60;
  // limits
  int max_units = 0;                       // 0 = no limit (applied after sorting units)

  ojson to_json() const;
  static GenConfig from_json(const ojson& j);  // missing keys keep defaults
  /// The small built-in run of `steptp generate --out DIR` without --config (a few minutes on 2 cores): five
  /// workloads per family plus covering units (two units with a site of every strategy), one shape instance each
  /// (grown to target_root_ops); at the root and at each state of two trajectories of depth 3, four candidates of
  /// distinct strategies (state_sampling "strategies"), so each unit gives several prompts of up to four answers.
  /// Struct defaults are DATASET.md's (all workloads, 20 instances, 6 candidates, depth 4).
  static GenConfig small_default();
  /// gen_hash: SHA-256 over the canonical JSON of to_json() plus the generator version.
  std::string hash() const;
};

struct FilterConfig {
  std::uint64_t filter_seed = 0;           // 0 = master_seed
  double split_train = 0.8, split_val = 0.1, split_test = 0.1;
  int max_prompt_tokens = 3072, max_completion_tokens = 3072, max_total_tokens = 6144;
  int max_answers_per_prompt = 4;
  int min_per_strategy = 50;
  std::vector<std::string> easy = {"operator_fusion", "compute_inline", "expression_splitting",
                                   "expression_reorder", "loop_reorder", "loop_unrolling", "loop_parallelization",
                                   "loop_vectorization", "loop_binding", "set_storage_layout", "exponential_split",
                                   "multiplicative_split", "additive_split"};
  double p_easy = 0.5;
  int cap_easy = 2000;
  std::vector<std::string> forward_reversible = {"operator_fission", "factorization", "cancellation", "powsimp",
                                                 "logsimp", "collect"};
  double p_forward = 0.5;
  int cap_forward = 50;
  std::vector<std::string> reverse_rewrites = {"expand_factorization", "expand_cancellation", "apart", "together",
                                               "expand_powsimp", "expand_log", "expand_collect"};
  double p_reverse = 0.3;
  int cap_reverse = 10;
  int cap_per_strategy = 2000;
  double max_strategy_share = 0.10;
  double p_multi = 0.3;
  int max_multi_n = 6;
  int eval_n = 3;
  bool fail_on_shortcut = false;

  /// §7.3: a sample of these token counts is dropped (too_long).
  bool too_long(std::int64_t prompt, std::int64_t completion) const {
    return prompt > max_prompt_tokens || completion > max_completion_tokens || prompt + completion > max_total_tokens;
  }

  ojson to_json() const;
  static FilterConfig from_json(const ojson& j);
  /// The filter of the small built-in run (`generate` without --config): splits 0.75 / 0.125 / 0.125 of the
  /// workloads, so that each evaluation split of its few workloads holds enough prompts to grade a model (>= 50,
  /// issue #47) and train keeps >= 70% of the records after balancing thins train and validation only (issue #9).
  static FilterConfig small_default();
  std::string hash() const;
  std::uint64_t seed(std::uint64_t master) const { return filter_seed ? filter_seed : master; }
};


/// Reads `{"gen": {...}, "filter": {...}}` or a flat object whose keys belong to either section. Any fault (unreadable,
/// not JSON, an unknown section or option, a mistyped value) is DatasetDirError D011 at the file.
void load_config_file(const std::string& path, GenConfig& gen, FilterConfig& filter);

}  // namespace steptp::dataset
