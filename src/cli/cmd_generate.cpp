// `steptp generate`: the dataset pipeline S1–S11 (DATASET.md §1–§11). Every configuration option has a flag that
// overrides the --config file.
#include <sys/resource.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/mpi_launch.hpp"
#include "cli/work_budget.hpp"
#include "base/text.hpp"
#include "step/config.hpp"
#include "step/dataset_dir.hpp"
#include "dataset/generate.hpp"
#include "dataset/units.hpp"
#include "dataset/split_units.hpp"
#include "runtime/node_slots.hpp"

namespace steptp::cli {
namespace {

struct GenerateArgs {
  std::string config, out, cache, shard, timer, tokenizer;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency())), stop_after = 0;
  std::optional<bool> cover_strategies;
  std::optional<int> instances, depth, per_family, max_units, threads, repeats, max_cands, min_per_strategy;
  std::optional<int> root_candidates, candidates_per_step, cover_units;
  std::string state_sampling;
  bool measure_all = false, plan_only = false;
  std::optional<std::uint64_t> seed, filter_seed;
  std::optional<double> min_repeat_ms, noise_limit;
  std::optional<std::int64_t> target_root_ops;
  bool cold_cache = false, onnx_whole = false;
  std::vector<std::string> workloads, onnx, tasks, strategies;
  bool no_measure = false, full_shapes = false, no_progress = false, fail_on_shortcut = false;
  bool mpi = false, no_merge = false;
  std::optional<int> measure_jobs;  // default: 1 with --mpi, else 0 (off)
};

/// The summary line of a finished or stopped run (stdout); returns generate's exit code: 0 done, 3 stopped early.
int report(const dataset::GenerateSummary& s, int jobs, const std::string& prefix) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  if (!s.complete) {
    std::cout << fmt::format("{}stopped after {} of {} units ({} from cache, {} computed) in {:.1f} s; rerun the same "
                             "command to finish from the cache -> {}\n",
                             prefix, s.units_from_cache + s.units_computed, s.units, s.units_from_cache,
                             s.units_computed, s.seconds, s.where);
    return 3;
  }
  std::cout << fmt::format("{}generated {} units ({} from cache, {} computed), {} records, {} candidates ({} cached) "
                           "in {:.1f} s with {} job(s), peak RSS {:.1f} MiB -> {}\n",
                           prefix, s.units, s.units_from_cache, s.units_computed, s.records, s.candidates,
                           s.candidate_cache_hits, s.seconds, jobs, double(ru.ru_maxrss) / 1024.0, s.where);
  return 0;
}

/// `--mpi` (DATASET.md §10): rank r of s generates shard r/s into OUT/shards/, every rank then waits at one barrier
/// (whatever its outcome, so that no rank waits forever for a failed one), and rank 0 merges exactly the shards
/// 0..s-1 unless --no-merge. Exit code of a rank: its own generate's (0, 2 bad input, 3 stopped early, 1 other
/// error), or 1 when rank 0's merge fails (e.g. another rank's shard is incomplete: a rerun resumes it).
int run_mpi(const dataset::GenConfig& gen, const dataset::FilterConfig& filter, dataset::GenerateOptions o,
            bool merge) {
  MpiSession mpi;
  o.sharded = true;
  o.shard_index = std::uint32_t(mpi.rank());
  o.shard_count = std::uint32_t(mpi.size());
  if (mpi.rank() != 0) o.progress = false;  // one progress bar per job, not s interleaved ones
  const std::string prefix = fmt::format("rank {} of {}: ", mpi.rank(), mpi.size());
  int rc = 0;
  try {
    rc = report(dataset::run_generate(gen, filter, o), o.jobs, prefix);
  } catch (const dataset::DatasetDirError& e) {
    rc = fail(prefix + e.what());
  } catch (const std::invalid_argument& e) {
    rc = fail(prefix + e.what());
  } catch (const std::exception& e) {
    std::cerr << "steptp: error: " << core::terminal_safe(prefix + e.what()) << "\n";
    rc = 1;
  }
  mpi.barrier();
  if (mpi.rank() != 0 || rc != 0 || !merge) return rc;
  std::vector<std::string> shards;  // exactly this job's shards, not stale ones of a run with another -np
  for (int i = 0; i < mpi.size(); ++i)
    shards.push_back((std::filesystem::path(o.out) / "shards" / dataset::shard_dir_name(std::uint32_t(i),
                                                                                          std::uint32_t(mpi.size())))
                         .string());
  try {
    dataset::run_merge(o.out, shards, false, nullptr);
  } catch (const std::exception& e) {
    std::cerr << "steptp: error: " << core::terminal_safe(prefix + "merge: " + e.what())
              << " (rerun the same command: finished units come from the shard caches)\n";
    return 1;
  }
  std::cout << fmt::format("{}merged {} shard(s) into {}\n", prefix, mpi.size(), o.out);
  return 0;
}

/// `--plan-only`: S1 and S2 without generating: the units the configuration plans, per workload family, as one JSON
/// object on stdout (to size a cluster job: bench/RESULTS.md, "Generate at scale").
int print_plan(const dataset::GenConfig& gen, const dataset::FilterConfig& filter) {
  std::vector<dataset::Reject> rejects;
  const auto units = dataset::plan_all_units(gen, filter, rejects);
  core::ojson fam = core::ojson::object(), names = core::ojson::array();
  std::set<std::string> workloads;
  for (const auto& u : units) {
    workloads.insert(u.wl.name);
    fam[u.wl.family] = fam.value(u.wl.family, 0) + 1;
    names.push_back(u.name());
  }
  core::ojson j{{"units", units.size()},           {"workloads", workloads.size()}, {"units_per_family", fam},
                {"plan_rejects", rejects.size()}, {"gen_hash", gen.hash()},        {"unit_names", names}};
  std::cout << core::dump_pretty(j) << "\n";
  return 0;
}

int run(GenerateArgs& a) {
  dataset::GenConfig gen = a.config.empty() ? dataset::GenConfig::small_default() : dataset::GenConfig{};
  dataset::FilterConfig filter;
  if (a.config.empty()) filter = dataset::FilterConfig::small_default();
  if (!a.config.empty()) dataset::load_config_file(a.config, gen, filter);
  if (!a.workloads.empty()) gen.workloads = a.workloads;
  if (!a.onnx.empty()) gen.onnx_dirs = a.onnx;
  if (a.onnx_whole) gen.onnx_whole = true;
  if (!a.tasks.empty()) gen.task_files = a.tasks;
  if ((!a.onnx.empty() || !a.tasks.empty()) && a.workloads.empty()) gen.builtin = false;
  if (!a.strategies.empty()) gen.strategies = a.strategies;
  if (a.seed) gen.master_seed = *a.seed;
  if (!a.tokenizer.empty()) gen.tokenizer = a.tokenizer;
  if (a.instances) gen.instances_per_workload = *a.instances;
  if (a.depth) gen.max_depth = *a.depth;
  if (a.root_candidates) gen.root_candidates = *a.root_candidates;
  if (a.candidates_per_step) gen.candidates_per_step = *a.candidates_per_step;
  if (a.per_family) gen.per_family = *a.per_family;
  if (a.cover_strategies) gen.cover_strategies = *a.cover_strategies;
  if (a.cover_units) gen.cover_units = *a.cover_units;
  if (!a.state_sampling.empty()) gen.state_sampling = a.state_sampling;
  if (a.max_units) gen.max_units = *a.max_units;
  if (a.threads) gen.threads = *a.threads;
  if (a.repeats) gen.repeats = *a.repeats;
  if (a.max_cands) gen.max_candidates_per_strategy = *a.max_cands;
  if (a.no_measure) gen.measure = false;
  if (a.min_repeat_ms) gen.min_repeat_ms = *a.min_repeat_ms;
  if (a.noise_limit) gen.noise_limit = *a.noise_limit;
  if (a.target_root_ops) gen.target_root_ops = *a.target_root_ops;
  if (a.cold_cache) gen.cold_cache = true;
  if (a.full_shapes) gen.small_shapes = false;
  if (!a.timer.empty()) {
    if (a.timer != "real" && a.timer != "fixed") return usage_error("generate", "--timer must be real or fixed");
    gen.timer = a.timer;
  }
  if (a.filter_seed) filter.filter_seed = *a.filter_seed;
  if (a.min_per_strategy) filter.min_per_strategy = *a.min_per_strategy;
  if (a.fail_on_shortcut) filter.fail_on_shortcut = true;
  if (gen.instances_per_workload < 1 || gen.max_depth < 1)
    return usage_error("generate", "--instances and --depth must be >= 1");
  dataset::GenerateOptions o;
  o.out = a.out;
  o.cache_path = a.cache;
  o.jobs = a.jobs;
  o.stop_after_units = a.stop_after;
  o.progress = !a.no_progress;
  o.measure_all = a.measure_all;
  if (a.no_merge && !a.mpi) return usage_error("generate", "--no-merge needs --mpi (a --shard run never merges)");
  if (a.mpi && !a.shard.empty())
    return usage_error("generate", "--mpi and --shard exclude each other (--mpi gives rank r of s the shard r/s)");
  if (a.mpi && !mpi_available()) return fail(kNoMpiMessage);
  if (const int mj = a.measure_jobs.value_or(a.mpi ? 1 : 0); mj > 0 && gen.measure) {
    runtime::set_node_measure_slots(mj, gen.threads);
  }
  if (a.plan_only) return print_plan(gen, filter);
  if (a.out.empty()) return usage_error("generate", "--out is required");
  if (a.mpi) return run_mpi(gen, filter, o, !a.no_merge);
  if (!a.shard.empty()) {
    unsigned i = 0, n = 0;
    char slash = 0;
    if (std::sscanf(a.shard.c_str(), "%u%c%u", &i, &slash, &n) != 3 || slash != '/' || n == 0 || i >= n)
      return usage_error("generate", "--shard must be i/N with 0 <= i < N");
    o.sharded = true;
    o.shard_index = i;
    o.shard_count = n;
  }
  return report(dataset::run_generate(gen, filter, o), o.jobs, "");  // bad input, D codes: exit 2 (fail_exception)
}

const CommandRegistrar reg("40-generate", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<GenerateArgs>();
  auto* c = app.add_subcommand("generate", "Generate the step-level dataset (DATASET.md S1-S11)");
  c->footer("Exit status: 0 complete; 1 the merge of MPI shards failed; 2 bad input (D codes such as D010 --out, "
            "D011 --config, D012 --tokenizer; LEIR-E codes of task and ONNX files, LEIR-E109 an unknown workload; "
            "S004 an unknown strategy; usage); 3 stopped by --stop-after-units; 70 an internal error.");
  c->add_option("--config", a->config, "JSON configuration file");
  c->add_option("--out", a->out, "output directory (required unless --plan-only)");
  c->add_option("--jobs,-j", a->jobs, "worker threads for the pure stages (default: all cores)")->check(CLI::Range(1, 4096));
  c->add_option("--cache", a->cache, "SQLite cache path (default OUT/cache.sqlite)");
  c->add_option("--shard", a->shard, "process only shard i of N (i/N), into OUT/shards/");
  c->add_flag("--mpi", a->mpi,
              "under mpirun: rank r of s processes shard r/s, then rank 0 merges after a barrier (needs a build "
              "with -DSTEPTP_WITH_MPI=ON)");
  c->add_flag("--no-merge", a->no_merge, "with --mpi: leave the shards for a later `steptp merge --out OUT`");
  c->add_option("--measure-jobs", a->measure_jobs,
                "measurements at a time per node, over all steptp processes there (ranks, array tasks), each pinned "
                "to its own --threads CPUs counted down from the last; 0 = no coordination between processes "
                "(default: 1 with --mpi, else 0); lock files in $STEPTP_LOCK_DIR or /tmp/steptp-measure-UID")
      ->check(non_negative());
  c->add_option("--workloads", a->workloads, "built-in workload names or globs");
  c->add_option("--onnx", a->onnx,
                "directories of ONNX models to import; each model is split into its distinct fused subgraph tasks "
                "(one workload <model>__<k> each, as `import-onnx --partition`)");
  c->add_flag("--onnx-whole", a->onnx_whole, "with --onnx: one workload per whole model instead");
  c->add_option("--tasks", a->tasks, "task JSONL files (each line one workload)");
  c->add_option("--strategies", a->strategies, "restrict to these strategies");
  c->add_option("--seed", a->seed, "master seed");
  c->add_option("--tokenizer", a->tokenizer,
                "Hugging Face tokenizer.json (byte-level BPE, e.g. Qwen3's) that counts the records' tokens and the S10 "
                "length limits (default: the built-in rule approx-v2; a bad file is D012)");
  c->add_option("--instances", a->instances, "shape instances per workload");
  c->add_option("--depth", a->depth,
                "maximum trajectory depth (1 = one-step candidates only; default 3, or 4 with --config)")
      ->check(CLI::Range(1, 1000));
  c->add_option("--root-candidates", a->root_candidates,
                "root candidates: 0 = every strategy's candidates (DATASET.md §2.4), N = at most N sampled across "
                "strategies (default 4, or 0 with --config)")
      ->check(CLI::Range(0, 1000000));
  c->add_option("--candidates-per-step", a->candidates_per_step,
                "candidates accepted per trajectory state (default 3, or 16 with --config)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--state-sampling", a->state_sampling,
                "how a state's limited candidates are drawn: strategies (one accepted candidate per strategy, rarer "
                "strategies first; default) or candidates (the shuffled pool of every strategy's candidates, cut; "
                "the default with --config)")
      ->check(CLI::IsMember({"strategies", "candidates"}));
  c->add_option("--cover-units", a->cover_units,
                "default workload set: add workloads (then shape instances of those with a site) until this many "
                "distinct sites of each strategy give samples within the length limits (default 3)")
      ->check(CLI::Range(1, 1000));
  c->add_flag("--plan-only", a->plan_only,
              "print the units the configuration plans (S1-S2: count, workloads, units per family) as JSON and exit");
  c->add_flag("--measure-all", a->measure_all,
              "also verify and time the candidates whose samples the length limits will drop (off: they are "
              "dropped before measuring, with the same dataset; for checking that)");
  c->add_option("--per-family", a->per_family,
                "default workload set: workloads per family (0 = all; default 2, or all with --config)");
  c->add_option("--cover-strategies", a->cover_strategies,
                "default workload set: also add, per strategy without a site in it, the first workload that has "
                "one (true|false; default true without a config file)");
  c->add_option("--max-units", a->max_units, "process at most this many units");
  c->add_option("--max-candidates", a->max_cands, "candidates per (task, strategy)");
  c->add_option("--threads", a->threads, "OMP threads during measurement");
  c->add_option("--repeats", a->repeats, "timing repeats (rounds of the ABBA interleaving; default 15)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--min-repeat-ms", a->min_repeat_ms,
                "calibrate calls per repeat so one repeat lasts at least this many ms (default 1)")
      ->check(CLI::Range(0.0, 10000.0));
  c->add_option("--noise-limit", a->noise_limit,
                "flag a record noisy when the 95% confidence interval of its median paired before/after ratio is wider "
                "than +/- this, relative, and contains 0.95 or 1.05 (default 0.03)")
      ->check(CLI::Range(0.0, 100.0));
  c->add_flag("--cold-cache", a->cold_cache, "flush 2 x the last-level cache before every timed call (number = 1)");
  c->add_option("--target-root-ops", a->target_root_ops,
                "grow small shape instances until the root runs this many statement instances (default 786432; "
                "0 = keep the small shapes)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  c->add_option("--timer", a->timer, "real (default) or fixed (deterministic latency model)");
  c->add_flag("--no-measure", a->no_measure, "skip S7 measurement");
  c->add_flag("--full-shapes", a->full_shapes, "draw shapes from the full parameter ranges");
  c->add_option("--filter-seed", a->filter_seed, "seed of the S10 streams (default: master seed)");
  c->add_option("--min-per-strategy", a->min_per_strategy, "rare-strategy quota");
  c->add_flag("--fail-on-shortcut", a->fail_on_shortcut, "abort when the signature baseline exceeds 0.5");
  c->add_option("--stop-after-units", a->stop_after, "stop after computing this many units (testing)");
  c->add_flag("--no-progress", a->no_progress, "no progress output on stderr");
  return [a]() { return run(*a); };
});

}  // namespace
}  // namespace steptp::cli
