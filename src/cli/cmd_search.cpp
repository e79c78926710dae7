// `steptp search [DATASET_DIR] [--tasks FILE.jsonl] [--workloads NAME...] --algorithm A --policy P --proposals P
// --measurements M --out DIR` (DATASET.md §9).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/grade_options.hpp"
#include "cli/command.hpp"
#include "cli/work_budget.hpp"
#include "cli/llm_options.hpp"
#include "search/search_run.hpp"

namespace steptp::cli {
namespace {

std::string rate(const search::ojson& v) { return v.is_number() ? fmt::format("{:.0f}%", 100 * v.get<double>()) : "n/a"; }
std::string times(const search::ojson& v) { return v.is_number() ? fmt::format("{:.2f}x", v.get<double>()) : "n/a"; }

void print_summary(const search::ojson& s, const std::string& out) {
  const auto& f = s["fast_p"]["naive"];
  std::cout << fmt::format("search {}/{}: {} tasks, {} improved on the naive program, {} errors\n",
                           s["algorithm"].get<std::string>(), s["policy"].get<std::string>(), s["tasks"].get<std::size_t>(),
                           s["improved"].get<std::size_t>(),
                           s["errors"].get<std::size_t>());
  std::cout << fmt::format("over naive: fast_0 {}, fast_1.0 {}, fast_1.5 {}, fast_2.0 {}, fast_3.0 {}; geomean {}, median {}\n",
                           rate(f["0"]), rate(f["1.0"]), rate(f["1.5"]), rate(f["2.0"]), rate(f["3.0"]),
                           times(s["geomean_speedup"]), times(s["median_speedup"]));
  const auto& b = s["fast_p"]["baseline"];
  if (b["tasks"].get<std::size_t>() > 0)
    std::cout << fmt::format("over the library baseline ({} tasks): fast_1.0 {}, geomean {}\n", b["tasks"].get<std::size_t>(),
                             rate(b["1.0"]), times(s["geomean_speedup_vs_baseline"]));
  std::cout << fmt::format("budget use: proposals {}, measurements {}\n", rate(s["mean_budget_use"]["proposals"]),
                           rate(s["mean_budget_use"]["measurements"]));
  std::cout << "results: " << out << "/results.jsonl, summary: " << out << "/summary.md (and summary.json), proposals: "
            << out << "/proposals.jsonl, transcripts: " << out << "/transcripts.jsonl, replayable paths: " << out
            << "/paths/\n";
}

const CommandRegistrar reg("46-search", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<search::SearchOptions>();
  o->policy.llm.temperature = 0.7;  // §9.3: a deterministic model repeats itself on retries
  o->policy.name = "cost";
  o->grade.consistency_enum_limit = 64;
  auto* c = app.add_subcommand("search", "Multi-step optimisation: grow a tree of verified single steps from each root "
                                         "program with one algorithm and one policy under equal budgets (DATASET.md §9)");
  c->footer("Exit status: 0 done (a root's error is a result); 2 bad input (D codes, U001, an endpoint that "
            "never answers); 70 an internal error.");
  c->add_option("dir", o->data_dir, "roots: a dataset directory (its test split's root tasks)");
  c->add_option("--data", o->data_dir, "same as the positional argument");
  c->add_option("--split", o->split, "dataset split the roots come from")->capture_default_str();
  c->add_option("--tasks-per-workload", o->tasks_per_workload, "dataset roots per workload")->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  c->add_option("--tasks", o->tasks_file, "roots: a JSONL file of tasks (as `steptp workloads emit` writes them)");
  c->add_option("--workloads", o->workloads, "roots: built-in workloads at their default shapes (with a dataset: only "
                                             "these workloads)");
  c->add_flag("--small", o->small, "built-in workloads at their small shapes");
  c->add_option("--dtype", o->dtype, "element dtype of built-in workloads")->capture_default_str();
  c->add_option("--limit", o->limit, "search only the first N roots (0 = all)")->capture_default_str();
  c->add_option("--out", o->out_dir, "output directory: results.jsonl, proposals.jsonl, transcripts.jsonl, summary.json, "
                                     "summary.md, run.json, cache.sqlite, paths/ (replayable step paths)")->required();
  c->add_option("--algorithm", o->search.algorithm, "chain, greedy, beam, dfs, bfs or mcts")->capture_default_str();
  c->add_option("--policy", o->policy.name, "cost (enumerate and score with a cost model), random, llm (an "
                                            "OpenAI-compatible endpoint) or replay (--replay FILE)")->capture_default_str();
  c->add_option("--proposals", o->search.proposals, "P: programs requested from the policy per task (every one counts)")
      ->capture_default_str();
  c->add_option("--measurements", o->search.measurements, "M: newly measured programs per task")->capture_default_str();
  c->add_option("--time-limit", o->search.time_limit_s, "seconds per task, a safety net only (0 = none)")
      ->capture_default_str();
  c->add_option("--k", o->search.k, "programs per request (0 = the algorithm's: chain 1, mcts 2, others 4)")
      ->capture_default_str();
  c->add_option("--patience", o->search.patience, "chain: consecutive failures; greedy: stalls; mcts: failed requests "
                                                  "before a node is exhausted")->capture_default_str();
  c->add_option("--epsilon", o->search.epsilon, "greedy: relative improvement needed to move")->capture_default_str();
  c->add_option("--beam-width", o->search.beam_width, "beam: children kept per round")->capture_default_str();
  c->add_option("--max-depth", o->search.max_depth, "dfs / bfs: nodes at this depth are not expanded")->capture_default_str();
  c->add_option("--c-uct", o->search.c_uct, "mcts: exploration constant c")->capture_default_str();
  c->add_option("--c-pw", o->search.c_pw, "mcts: progressive widening constant")->capture_default_str();
  c->add_option("--alpha-pw", o->search.alpha_pw, "mcts: progressive widening exponent")->capture_default_str();
  c->add_option("--llm-mode", o->search.llm_mode, "multi: one request for k programs; samples: k requests for one")
      ->capture_default_str();
  add_llm_options(c, o->policy.llm);
  auto seed = std::make_shared<std::uint64_t>(0);
  auto* seed_opt = c->add_option("--seed", *seed, "master seed of the streams search-equiv, mcts, policy (default: the "
                                                  "dataset's master seed); also sent to an llm endpoint");
  c->add_option("--replay", o->policy.replay_file, R"(replay: JSONL of {"prompt_sha256", "replies": [...]})");
  c->add_option("--cost-model", o->policy.cost_model, "cost: 'analytical' or a model file of `steptp cost-model train`")
      ->capture_default_str();
  c->add_option("--enum-limit", o->policy.enum_limit, "cost: candidates enumerated and scored per request")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  c->add_option("--lookahead", o->policy.lookahead,
                "cost: score a candidate by the better of itself and its best child by this strategy (none: off)")
      ->capture_default_str();
  c->add_option("--sketch", o->policy.sketch,
                "cost: multi-step plans whose steps are proposed first: register_block (split, reorder, local write "
                "cache, unroll of an accumulation nest) or none")
      ->capture_default_str()->check(CLI::IsMember({"register_block", "none"}));
  c->add_flag("--measure-guided", o->policy.measure_guided,
              "cost: measure the 2k best candidates (against --measurements) and propose the k fastest");
  c->add_option("--pair-with", o->search.pair_with,
                "time each new program paired with its parent (its speedup over the root is the product along its "
                "path) or with the root (slower when the root is slow)")
      ->capture_default_str()->check(CLI::IsMember({"parent", "root"}));
  c->add_option("--confirm", o->search.confirm,
                "leading programs re-measured paired with the root, in one batch, before the result is chosen "
                "among them (0: none; needs --pair-with root)")
      ->capture_default_str()->check(CLI::Range(0, 1000));
  c->add_option("--timer", o->timer, "real, or fixed (a deterministic latency model, for tests)")->capture_default_str();
  c->add_option("--repeats", o->repeats, "timing repeats (default, or 0: the dataset's, else 15)")
      ->check(CLI::Range(0, 100000));
  c->add_option("--threads", o->threads, "threads of the measured kernels and of the library baseline")
      ->capture_default_str()->check(CLI::Range(1, 4096));
  add_fp_contract_option(c, o->fp_contract,
                         "compile the measured kernels with fused multiply-add contraction (one rounding per a*b+c, "
                         "as the libraries' kernels; within the f32/f64 tolerance)");
  auto no_baseline = std::make_shared<bool>(false);
  c->add_flag("--no-baseline", *no_baseline, "do not time the library (CBLAS) baseline");
  c->add_option("--suspicious-speedup", o->grade.suspicious_speedup,
                "re-check a result above this speedup on a compute-bound task (above 10 on any)")->capture_default_str();
  c->add_option("--recheck-trials", o->grade.recheck_trials, "fresh draws of the re-check")->capture_default_str();
  c->add_option("--consistency-enum-limit", o->grade.consistency_enum_limit,
                "candidates tried to recover an llm proposal's parameters for the path")->capture_default_str();
  c->add_option("--cache", o->cache_path, "SQLite cache (search_results, llm_calls, measurements; default OUT/cache.sqlite)");
  const auto no_strict = add_no_strict_equivalence_flag(c);
  auto no_progress = std::make_shared<bool>(false);
  c->add_flag("--no-progress", *no_progress, "no progress line on stderr");
  c->add_option("--interp-max-ops", o->interp_max_ops,
                "programs over this many statement instances are checked for equivalence as compiled C (candidate "
                "and root) instead of in the interpreter; each node records its `check`")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  c->add_option("--max-steps", o->max_steps, "roots whose work estimate (statement executions per run) exceeds this "
                                            "are recorded as errors (E309), not searched; 0: no limit")
      ->check(non_negative())
      ->capture_default_str();
  auto max_mib = std::make_shared<std::uint64_t>(o->max_memory_bytes >> 20);
  c->add_option("--max-memory", *max_mib, "MiB: roots whose buffers exceed this are recorded as errors (E310); 0: no "
                                         "limit")
      ->check(non_negative())
      ->capture_default_str();
  return [o, seed, seed_opt, no_baseline, no_progress, max_mib, no_strict]() {
    o->grade.strict.enabled = !*no_strict;
    o->progress = !*no_progress;
    o->max_memory_bytes = mib_to_bytes(*max_mib);
    o->baseline = !*no_baseline && o->timer == "real";  // the fixed timer models kernels only
    if (seed_opt->count()) {
      o->search.seed = *seed;
      o->policy.llm.seed = *seed;
      o->policy.seed = *seed;
    }
    if (o->policy.name == "llm" && (o->policy.llm.base_url.empty() || o->policy.llm.model.empty()))
      return usage_error("search", "--policy llm needs --base-url and --model");
    search::SearchRunResult r;
    try {
      r = search::run_search(*o);
    } catch (const search::SearchUsageError& e) {
      return usage_error("search", e.what());
    } catch (const search::SearchInputError& e) {
      return fail(std::string("search: ") + e.what());
    } catch (const policy::PolicyError& e) {
      return fail(std::string("search: ") + e.what());
    }
    print_summary(r.summary, o->out_dir);
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
