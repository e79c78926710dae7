// `steptp eval DATASET_DIR --split test --policy llm|replay|random --out EVAL_DIR` (DATASET.md §8) and
// `steptp gold-replay DATASET_DIR --split test --out FILE` (the replay file of the split's own answers).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/grade_options.hpp"
#include "cli/command.hpp"
#include "cli/llm_options.hpp"
#include "base/json_text.hpp"
#include "eval/eval_run.hpp"
#include "eval/summary.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

void print_summary(const eval::ojson& s, const std::string& out) {
  using eval::pct;
  const auto& g = s["single"];
  const std::int64_t none = s["replies"]["no_proposal"].get<std::int64_t>();
  std::cout << fmt::format("eval {} split, policy {}: {} prompts, {} answers{}{}\n", s["split"].get<std::string>(),
                           s["policy"].get<std::string>(), s["prompts"].get<std::int64_t>(),
                           s["answers"].get<std::int64_t>() - none,
                           none ? fmt::format(" ({} samples without a proposal left out)", none) : "",
                           !s["measured"].get<bool>() ? ", not measured"
                           : s["timer"] == "fixed"    ? ", fixed timer (latency model)"
                                                      : "");
  if (g["answers"].get<std::int64_t>() > 0) {
    std::cout << fmt::format("n = 1 ({} answers):", g["answers"].get<std::int64_t>());
    for (const char* k : {"parsed", "differs", "valid", "equivalent", "faster"})
      std::cout << " " << k << " " << pct(g["cumulative_rate"][k]);
    std::cout << "; strategy_consistent " << pct(g["strategy_consistent"]["rate"]) << ", reasoning_verified "
              << pct(g["reasoning_verified"]["rate"]) << "\n";
  }
  const auto& m = s["multi"];
  if (m["answers"].get<std::int64_t>() > 0)
    std::cout << fmt::format("n >= 2 ({} answers): parsed {}, meets_n {}, all_equivalent {}, any_faster {}\n",
                             m["answers"].get<std::int64_t>(), pct(m["parsed"]), pct(m["meets_n"]), pct(m["all_equivalent"]),
                             pct(m["any_faster"]));
  std::cout << "results: " << out << "/results.jsonl, summary: " << out << "/summary.md (and summary.json), transcripts: "
            << out << "/transcripts.jsonl\n";
}

const CommandRegistrar reg("44-eval", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<eval::EvalOptions>();
  auto* c = app.add_subcommand("eval", "Evaluate a policy (an OpenAI-compatible LLM endpoint, a replay file or random) "
                                       "on a dataset's evaluation prompts, one verified step per answer (DATASET.md §8)");
  c->footer("Exit status: 0 every prompt graded (a request that still fails after the retries, e.g. a timeout, HTTP 400 "
            "or a malformed HTTP reply, is that prompt's policy_error); 2 bad input, one `steptp: error:` line: not a "
            "dataset (D001), a missing split or empty prompt file (D002), a bad option (U001) or --base-url, or an "
            "endpoint failure no later prompt can survive (connection refused after the retries, HTTP 401/403/404, "
            "persistent 5xx; the answers graded so far stay in results.jsonl and a rerun resumes); 70 an internal "
            "error (a bug in steptp, not in the input).");
  c->add_option("dir", o->data_dir, "dataset directory (written by `steptp generate`)");
  c->add_option("--data", o->data_dir, "dataset directory (same as the positional argument)");
  c->add_option("--split", o->split, "evaluation split: val or test (default test)")->capture_default_str();
  c->add_option("--out", o->out_dir, "output directory: results.jsonl, summary.json, summary.md, transcripts.jsonl, "
                                     "run.json, cache.sqlite")->required();
  c->add_option("--policy", o->policy, "llm (OpenAI-compatible endpoint), replay (--replay FILE) or random")
      ->capture_default_str();
  add_llm_options(c, o->llm);
  auto seed = std::make_shared<std::uint64_t>(0);
  auto* seed_opt = c->add_option("--seed", *seed, "llm: send this request seed (plus the sample index); random: the "
                                                  "policy seed (default: the dataset's master seed)");
  c->add_option("--llm-mode", o->llm_mode, "multi: send n >= 2 prompts as they are; samples: answer them with n "
                                           "separate n = 1 requests")->capture_default_str();
  c->add_option("--concurrency", o->concurrency, "prompts in flight at once (parallel requests and grading)")
      ->capture_default_str()->check(CLI::Range(1, 4096));
  c->add_option("--replay", o->replay_file, R"(replay: JSONL of {"prompt_sha256", "replies": [...]}; see gold-replay)");
  c->add_option("--samples", o->samples, "answers per prompt (sample indices 0..k-1; pass@k in summary.json and "
                                         "summary.md)")->capture_default_str()->check(CLI::Range(1, 1000000));
  auto no_measure = std::make_shared<bool>(false);
  c->add_flag("--no-measure", *no_measure, "stop at the equivalent gate: no compilation, no timing");
  c->add_option("--timer", o->timer, "real, or fixed (a deterministic latency model, for tests)")->capture_default_str();
  c->add_option("--repeats", o->repeats, "timing repeats (default: the dataset's)");
  c->add_option("--faster-threshold", o->grade.faster_threshold, "speedup an answer needs to count as faster")
      ->capture_default_str();
  c->add_option("--suspicious-speedup", o->grade.suspicious_speedup,
                "re-check faster answers above this speedup on compute-bound tasks (above 10 on any)")->capture_default_str();
  c->add_option("--recheck-trials", o->grade.recheck_trials, "fresh draws of the suspicious-speedup re-check")
      ->capture_default_str();
  c->add_option("--consistency-enum-limit", o->grade.consistency_enum_limit,
                "candidates of the claimed strategy tried by strategy_consistent")->capture_default_str();
  c->add_option("--cache", o->cache_path, "SQLite cache (llm_calls, eval_grades, measurements; default OUT/cache.sqlite)");
  c->add_option("--limit", o->limit, "evaluate only the first N prompts (0 = all)")->capture_default_str();
  c->add_option("--n", o->only_n, "evaluate only the prompts that ask for N programs (1, or the dataset's eval_n; "
                                  "0 = all)")->capture_default_str();
  const auto no_strict = add_no_strict_equivalence_flag(c);
  auto no_progress = std::make_shared<bool>(false);
  c->add_flag("--no-progress", *no_progress, "no progress line on stderr");
  return [o, seed, seed_opt, no_measure, no_progress, no_strict]() {
    o->grade.strict.enabled = !*no_strict;
    if (o->data_dir.empty()) return usage_error("eval", "give the dataset directory (positional or --data)");
    o->measure = !*no_measure;
    o->progress = !*no_progress;
    if (seed_opt->count()) {
      o->llm.seed = *seed;
      o->policy_seed = *seed;
    }
    if (o->policy == "llm" && o->llm.base_url.empty())
      return usage_error("eval", "--policy llm needs --base-url and --model");
    eval::EvalResult r;
    try {
      r = eval::run_eval(*o);
    } catch (const eval::EvalUsageError& e) {  // other errors: exit 2 through fail_exception (main)
      return usage_error("eval", e.what());
    }
    print_summary(r.summary, o->out_dir);
    return 0;
  };
});

const CommandRegistrar reg_gold("45-gold-replay", [](CLI::App& app) -> RunFn {
  auto dir = std::make_shared<std::string>();
  auto split = std::make_shared<std::string>("test");
  auto out = std::make_shared<std::string>();
  auto* c = app.add_subcommand("gold-replay", "Write the replay file of a split's own answers (the gold self-check of "
                                              "`steptp eval --policy replay`)");
  c->footer("Exit status: 0 written; 2 bad input (D codes, E115 --out path); 70 an internal error.");
  c->add_option("dir", *dir, "dataset directory")->required();
  c->add_option("--split", *split, "val or test")->capture_default_str();
  c->add_option("--out", *out, "replay JSONL file to write")->required();
  return [dir, split, out]() {
    std::vector<eval::ojson> lines;
    try {
      lines = eval::gold_replay(*dir, *split);
    } catch (const eval::EvalUsageError& e) {
      return usage_error("gold-replay", e.what());
    }
    std::string text;
    std::size_t replies = 0;
    for (const auto& l : lines) text += core::dump_py(l) + "\n", replies += l["replies"].size();
    ir::write_file_atomic(*out, text);
    std::cout << fmt::format("gold replay: {} prompts, {} replies -> {}\n", lines.size(), replies, *out);
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
