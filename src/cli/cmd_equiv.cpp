// `steptp equiv A.json B.json`: checks that candidate B computes the same outputs as original A (LEIR.md §11).
// Prints the verdict and the error summary (or JSON with --json). Exit 0 equivalent, 1 not equivalent (E501, E503,
// E504, E505), 2 bad input (unreadable or unparsable files, a work or memory estimate over --max-steps or
// --max-memory (E309, E310), or E502: the
// original itself fails).
#include <fmt/format.h>
#include <iostream>

#include "cli/command.hpp"
#include "cli/task_params.hpp"
#include "cli/work_budget.hpp"
#include "ir/limits.hpp"
#include "equiv/equivalence.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct EquivArgs {
  std::string a, b;
  std::vector<std::uint64_t> seeds;  // empty: Options' default seeds
  std::string dists = "NUWK";
  bool json = false;
  /// The check's options: the CLI's further draws (equiv::cli_options()), set by the options below; seeds,
  /// distributions, stored weights, the step budget and progress are filled in by equiv_cmd.
  equiv::Options opt = equiv::cli_options();
  WorkBudget budget;
  TaskParams params;
};

int equiv_cmd(const EquivArgs& x) {
  ir::Task a, b;
  for (auto [path, task] : {std::pair{&x.a, &a}, std::pair{&x.b, &b}}) {
    try {
      *task = ir::read_task_file(*path);
    } catch (const ir::LeirError& e) {
      return fail_in(*path, e);
    }
  }
  for (auto [path, task] : {std::pair{&x.a, &a}, std::pair{&x.b, &b}}) {
    try {
      x.budget.check(*task);
    } catch (const ir::LeirError& e) {
      return fail_in(*path, e);
    }
  }
  equiv::Options opt = x.opt;
  opt.fixed = x.params.load(x.a, a);  // the original's stored weights (both tasks share the known signature)
  if (opt.fixed)
    std::cerr << "equiv: " << opt.fixed->size()
              << " buffer(s) hold the original's stored values (the candidate's sidecar is not read)\n";
  if (!x.seeds.empty()) opt.seeds = x.seeds;
  try {
    opt.dists = equiv::parse_distributions(x.dists);
  } catch (const std::invalid_argument& e) {
    return usage_error("equiv", std::string("--dists: ") + e.what());
  }
  opt.max_steps = x.budget.max_steps;
  const std::uint64_t total = opt.dists.size() * opt.seeds.size() *
                              (ir::statement_executions(a.program) + ir::statement_executions(b.program));
  opt.progress = make_progress("equiv", total, opt.progress_every);
  const equiv::Result r = equiv::check_equivalence(a, b, opt);
  if (x.json) {
    std::cout << r.to_json() << "\n";
  } else if (r.equivalent) {
    std::cout << "equivalent: " << r.message << "\n";
  } else {
    std::cout << (r.code == code_text(Code::E502) ? "inconclusive" : "not equivalent") << ": LEIR-" << r.code << ": "
              << r.message << "\n";
  }
  if (r.equivalent) return 0;
  return r.code == code_text(Code::E502) ? 2 : 1;
}

const CommandRegistrar reg("21-equiv", [](CLI::App& app) -> RunFn {
  auto args = std::make_shared<EquivArgs>();
  auto* sub = app.add_subcommand("equiv", "check that a candidate task is equivalent to an original task");
  sub->footer("Exit status: 0 equivalent; 1 not equivalent (E501 signatures differ, E503 candidate fails to run, E504 "
              "output mismatch, E505 degenerate candidate output); 2 bad input (unreadable, not JSON, invalid LEIR) "
              "or E502 (the original fails to run: inconclusive).");
  sub->add_option("original", args->a, "original task (.json or .jsonl: the first task)")->required();
  sub->add_option("candidate", args->b, "candidate task (.json or .jsonl: the first task)")->required();
  sub->add_option("--seeds", args->seeds,
                  "input seeds, each drawn from every --dists distribution (default 0 1 2); the adaptive and "
                  "cheap-check draws add further seeds, counted in the verdict (\"equivalent on 72 seed(s)\")");
  sub->add_option("--extra-seeds", args->opt.adaptive.extra_seeds,
                  "adaptive draws: up to N further seeds when every draw passed but an output element of the original "
                  "took fewer than 3 distinct values (a saturated comparison or clamp, a bool output), each drawn from "
                  "every --dists distribution plus S; 0: off")
      ->capture_default_str();
  sub->add_option("--cheap-seeds", args->opt.cheap.extra_seeds,
                  "cheap checks: up to N further seeds, each drawn from every --dists distribution plus S, untyped "
                  "and typed, within 2^20 statement executions (a small program gets them all, a real workload "
                  "none); 0: off")
      ->capture_default_str();
  sub->add_option("--boundary-pairs", args->opt.boundary.pairs,
                  "boundary draws: up to N pairs of further draws (alternately untyped and typed); where an output "
                  "element flips between the two, the flip point is bisected and both programs are compared on "
                  "either side of it, within 2^20 statement executions; 0: off")
      ->capture_default_str();
  sub->add_option("--guided-draws", args->opt.guided.draws,
                  "guided draws: up to N mutated draws (alternately untyped and typed), run with coverage probes on "
                  "both programs and kept when they reach a value class or hit count no earlier draw reached, as a "
                  "greybox fuzzer does, within 2^20 statement executions; 0: off")
      ->capture_default_str();
  sub->add_option("--dists", args->dists,
                  "input distributions of LEIR.md §11, letters N (normal), U (uniform on [0.5,1.5]), W (wide: "
                  "log-uniform magnitudes 2^-4..2^6, integers in [-16,16]), K (the programs' literals, nudged), "
                  "S (skewed: per buffer all <= 0, all >= 0, zero-heavy, ... at one of four scales)")
      ->capture_default_str();
  sub->add_flag("--typed", args->opt.typed,
                "run every draw in exact §8.2 precision (with the rounding allowance of LEIR.md §11 step 4b); by "
                "default the --seeds and adaptive draws run in f64, and the cheap-check, boundary and guided draws "
                "both in f64 and typed");
  sub->add_flag("--exact", args->opt.exact, "require bit-identical outputs");
  sub->add_option("--rtol-scale", args->opt.rtol_scale, "multiply the per-dtype tolerances");
  sub->add_flag("--json", args->json, "print the full result as JSON");
  args->budget.add_options(sub);
  args->params.add_options(sub);
  return [args] { return equiv_cmd(*args); };
});

}  // namespace
}  // namespace steptp::cli
