// `steptp fuzz`: random-program differential fuzzing of the parser, printer, validator, interpreter, C lowering and
// strategies, plus the mutation check of the equivalence checker (src/fuzz/differential.hpp). Writes minimised
// regression files and fuzz_summary.json into --out; prints progress lines on stderr.
// Exit codes: 0 no failure and no mutant miss, 1 some failure or miss, 2 bad options.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command.hpp"
#include "equiv/inputs.hpp"
#include "fuzz/differential.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct FuzzArgs {
  fuzz::FuzzRun run;
  fuzz::DiffOptions opt;
  std::string out = "out/fuzz";
  bool no_lower = false, no_mutants = false, no_minimize = false, no_skewed = false, no_tie_check = false;
  double progress_every = 10.0;
  std::string replay;
  std::string checker_dists = "NUWK";
  int checker_seeds = 3;  // the checker under test draws seeds 0..checker_seeds-1
};

/// --replay DIR: re-runs the check named in every regression file of DIR; one line per file.
int replay_cmd(const FuzzArgs& a) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(a.replay))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int failed = 0;
  for (const auto& p : files) {
    std::string err;
    try {
      const fuzz::Failure f = fuzz::read_regression(p.string());
      err = fuzz::check_error(f.task, f.check, f.strategy, f.seed, a.opt);
    } catch (const std::exception& e) {
      err = std::string("unreadable: ") + e.what();
    }
    failed += !err.empty();
    std::cout << p.filename().string() << ": " << (err.empty() ? "ok" : "FAIL " + err) << "\n";
  }
  std::cout << files.size() - failed << " of " << files.size() << " regression case(s) pass\n";
  return failed ? 1 : 0;
}

int fuzz_cmd(FuzzArgs& a) {
  a.opt.checker.seeds.clear();
  for (int s = 0; s < a.checker_seeds; ++s) a.opt.checker.seeds.push_back(std::uint64_t(s));
  if (!a.replay.empty()) return replay_cmd(a);
  if (a.run.programs <= 0 && a.run.time_limit <= 0)
    return usage_error("fuzz", "give --programs N or --time-limit SECONDS (or both)");
  if (a.no_lower) a.opt.lower_every = 0;
  a.opt.mutants = !a.no_mutants;
  try {
    a.opt.checker.dists = equiv::parse_distributions(a.checker_dists);
  } catch (const std::invalid_argument& e) {
    return usage_error("fuzz", std::string("--checker-dists: ") + e.what());
  }
  a.opt.minimize = !a.no_minimize;
  a.opt.checker.skewed_further_draws = !a.no_skewed;
  a.opt.checker.guided.tie_check = !a.no_tie_check;
  a.opt.regressions_dir = (std::filesystem::path(a.out) / "regressions").string();
  std::filesystem::create_directories(a.out);
  double next = a.progress_every;
  auto progress = [&](const fuzz::Figures& f) {
    if (f.seconds < next) return;
    next = f.seconds + a.progress_every;
    std::cerr << fmt::format("fuzz: {:.0f}s {} programs, {} candidates, {} chain steps, {} failures, {} mutant misses, "
                             "{} checker false rejections, {:.1f} exec/s\n",
                             f.seconds, f.programs, f.candidates, f.chain_steps, f.failures(), f.mutant_misses(),
                             f.checker_false_rejections, f.seconds > 0 ? double(f.executions()) / f.seconds : 0.0);
  };
  fuzz::FuzzResult r = fuzz::run_fuzz(a.run, a.opt, progress);
  nlohmann::json j = r.figures.to_json();
  j["seed"] = a.run.seed;
  j["lower_every"] = a.opt.lower_every;
  j["checker"] = {{"seeds", a.checker_seeds}, {"dists", a.checker_dists},
                  {"extra_seeds", a.opt.checker.adaptive.extra_seeds}, {"cheap_seeds", a.opt.checker.cheap.extra_seeds},
                  {"skewed_further_draws", a.opt.checker.skewed_further_draws},
                  {"guided_tie_check", a.opt.checker.guided.tie_check},
                  {"boundary_pairs", a.opt.checker.boundary.pairs},
                  {"guided_draws", a.opt.checker.guided.draws},
                  {"second_method",
                   "seeds 1000.." + std::to_string(999 + a.opt.judge_seeds) + " x NUWKS, untyped and typed, " +
                       std::to_string(fuzz::kJudgeBoundaryPairs) + " boundary pairs and " +
                       std::to_string(fuzz::kJudgeGuidedInputs) + " guided draws each"}};
  nlohmann::json fl = nlohmann::json::array();
  for (const auto& f : r.failures)
    fl.push_back({{"check", f.check}, {"strategy", f.strategy}, {"seed", f.seed}, {"detail", f.detail}, {"file", f.file}});
  j["failure_list"] = fl;
  j["mutant_miss_list"] = r.misses;
  nlohmann::json frl = nlohmann::json::array();
  for (const auto& f : r.false_rejections)
    frl.push_back({{"strategy", f.strategy}, {"seed", f.seed}, {"detail", f.detail}, {"file", f.file}});
  j["checker_false_rejection_list"] = frl;
  const std::string summary = (std::filesystem::path(a.out) / "fuzz_summary.json").string();
  ir::write_file_atomic(summary, j.dump(2) + "\n");
  const auto& f = r.figures;
  std::cout << fmt::format("{} programs ({} valid, {} round trips), {} C lowerings, {} strategy candidates ({} also "
                           "by the mutation checker), {} chain steps in {:.1f}s ({:.1f} exec/s)\n",
                           f.programs, f.validated, f.roundtrips, f.lowerings, f.candidates, f.checker_candidates,
                           f.chain_steps, f.seconds,
                           f.seconds > 0 ? double(f.executions()) / f.seconds : 0.0);
  std::cout << fmt::format("failures: {}", f.failures());
  for (const auto& [k, n] : f.failures_by_check) std::cout << fmt::format(" {}={}", k, n);
  std::cout << "\nmutants:";
  for (const auto& [k, m] : f.mutants)
    std::cout << fmt::format(" {} {}/{} rejected ({} equivalent, {} missed);", k, m.rejected, m.generated, m.equivalent,
                             m.missed);
  std::cout << "\n";
  std::cout << fmt::format("checker: {} false rejection(s) of {} legitimate candidates\n", f.checker_false_rejections,
                           f.checker_candidates);
  std::cout << "summary: " << summary << "\n";
  return f.failures() == 0 && f.mutant_misses() == 0 && f.checker_false_rejections == 0 ? 0 : 1;
}

const CommandRegistrar reg("48-fuzz", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<FuzzArgs>();
  auto* sub = app.add_subcommand(
      "fuzz",
      "Differential fuzzing on random valid LEIR tasks: print/parse round trip, validator, C lowering against the "
      "interpreter, every strategy's sampled candidates and random 5-step chains checked for equivalence, and "
      "semantic mutants that the equivalence checker must reject, while accepting the legitimate candidates. "
      "Failures are minimised into DIR/regressions/, missed mutants go to DIR/mutant_misses/ and legitimate "
      "candidates the checker rejected to DIR/checker_false_rejections/; figures go to DIR/fuzz_summary.json. Exit 0 "
      "iff no failure, no mutant miss and no false rejection.");
  sub->add_option("--seed", a->run.seed, "first generator seed (program i uses seed+i)")->default_val(0);
  sub->add_option("--programs", a->run.programs, "stop after N programs (0: no limit)")->default_val(100);
  sub->add_option("--time-limit", a->run.time_limit, "stop after SECONDS of wall-clock time (0: no limit)")->default_val(0);
  sub->add_option("--out", a->out, "output directory (regressions/ and fuzz_summary.json)")->default_val("out/fuzz");
  sub->add_flag("--no-lower", a->no_lower, "skip the compiled C lowering check (no C compiler needed)");
  sub->add_option("--lower-every", a->opt.lower_every, "check the C lowering on every K-th program")->default_val(4);
  sub->add_option("--candidates", a->opt.candidates_per_program, "strategy candidates sampled per program")->default_val(30);
  sub->add_option("--per-strategy", a->opt.candidates_per_strategy, "candidates sampled per strategy and program")->default_val(3);
  sub->add_option("--chain-steps", a->opt.chain_steps, "random strategy steps per chain (0: no chain)")->default_val(5);
  sub->add_option("--max-extent", a->opt.gen.max_extent, "generated loop and buffer extents are in [1, N]")->default_val(6);
  sub->add_option("--max-stages", a->opt.gen.max_steps, "top-level computation stages per generated task (each one or two top-level nests)")->default_val(4);
  sub->add_option("--max-depth", a->opt.gen.max_depth, "expression depth of generated values")->default_val(3);
  sub->add_flag("--no-mutants", a->no_mutants, "skip the mutation check of the equivalence checker");
  sub->add_option("--checker-candidates", a->opt.checker_candidates,
                  "mutation check, other side: per program, the first N strategy candidates that the dataset's check "
                  "accepted are checked again by the checker under test, which must accept them (a rejection is a false "
                  "rejection, minimised into DIR/checker_false_rejections/; it makes the exit status 1); 0: off")
      ->default_val(2)
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--checker-seeds", a->checker_seeds,
                  "mutation check: seeds 0..N-1 of the equivalence checker under test")
      ->default_val(3)
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--checker-extra-seeds", a->opt.checker.adaptive.extra_seeds,
                  "mutation check: the checker's adaptive draws, further seeds when an output element of the original "
                  "took < 3 distinct values (0: off)")
      ->capture_default_str();
  sub->add_option("--checker-cheap-seeds", a->opt.checker.cheap.extra_seeds,
                  "mutation check: the checker's cheap-check draws, further seeds (untyped and typed) within 2^20 "
                  "statement executions (0: off)")
      ->capture_default_str();
  sub->add_option("--checker-dists", a->checker_dists,
                  "mutation check: the checker's input distributions as letters (N, U, W, K, S; LEIR.md §11)")
      ->capture_default_str();
  sub->add_option("--checker-boundary-pairs", a->opt.checker.boundary.pairs,
                  "mutation check: the checker's boundary draws, pairs of further draws whose outputs' change points "
                  "are bisected and compared on both sides, within 2^20 statement executions (0: off)")
      ->capture_default_str();
  sub->add_option("--checker-guided-draws", a->opt.checker.guided.draws,
                  "mutation check: the checker's guided draws, mutated draws kept when they reach new coverage of "
                  "either program, within 2^20 statement executions (0: off)")
      ->capture_default_str();
  sub->add_flag("--checker-no-skewed", a->no_skewed,
                "mutation check: the checker's adaptive and cheap-check draws use only --checker-dists, without "
                "distribution S (to measure what S adds)");
  sub->add_flag("--checker-no-tie-check", a->no_tie_check,
                "mutation check: the checker reports a guided draw's difference without first moving the float "
                "inputs by a few ulps (to measure what the tie check removes: rounding ties of legitimate candidates)");
  sub->add_option("--judge-seeds", a->opt.judge_seeds,
                  "mutation check: seeds of the second method that confirms a mutant the checker accepted as "
                  "equivalent (seeds 1000.. x NUWKS, untyped and typed, each with 128 boundary pairs and 2048 guided draws)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  sub->add_flag("--no-minimize", a->no_minimize, "write failing tasks without delta-debugging them");
  sub->add_option("--replay", a->replay, "re-check every regression file of DIR instead of fuzzing (exit 1 if one fails)");
  sub->add_option("--progress-every", a->progress_every, "seconds between progress lines on stderr")->default_val(10);
  return [a] { return fuzz_cmd(*a); };
});

}  // namespace
}  // namespace steptp::cli
