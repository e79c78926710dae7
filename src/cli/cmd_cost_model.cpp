// `steptp cost-model train DATASET -o MODEL.json [--holdout-frac F] [--seed N] [--rounds R] [--max-depth D]`:
// train the learned cost model of the `cost` policy (DATASET.md §9.3; policy/cost/learned.hpp) on a generated
// dataset's measured records and print a short report (held-out pairwise accuracy, learned vs analytical).
// `steptp cost-model score MODEL|analytical TASKS.jsonl [--threads T] [--terms]`: one line per task,
// "<score>\t<workload>", the score being the predicted log2 latency in seconds (lower = predicted faster); with
// --terms (analytical only) the model's compute, memory, issue, latency and chain seconds come between them.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"
#include "policy/cost/analytical.hpp"
#include "policy/cost/learned.hpp"
#include "policy/cost/model.hpp"

namespace steptp::cli {
namespace {

namespace cost = policy::cost;

struct Args {
  std::vector<std::string> datasets;
  std::string out, model, tasks, objective = "rank", predictions;
  double holdout_frac = 0.2;
  std::uint64_t seed = 0;
  int rounds = 200, max_depth = 6, threads = 1;
  bool terms = false, no_margin = false;
};

std::string acc(const cost::PairScore& s) {
  return s.pairs ? fmt::format("{:.1f}% ({:g}/{})", 100 * s.accuracy(), s.correct, s.pairs) : "n/a (no pairs)";
}

int run_train(const Args& a) {
  cost::TrainOptions o;
  o.holdout_frac = a.holdout_frac;
  o.seed = a.seed;
  o.rounds = a.rounds;
  o.max_depth = a.max_depth;
  o.objective = a.objective;
  o.predictions_path = a.predictions;
  o.analytical_margin = !a.no_margin;
  o.machine = cost::MachineModel::detect(1);
  const cost::TrainReport r = cost::train_learned_model(a.datasets, a.out, o);
  std::cout << fmt::format("records {} ({} measured, {} skipped), programs {}: train {}, held out {} ({} of {} "
                           "workloads, {} records)\n",
                           r.records, r.measured_records, r.skipped_records, r.programs, r.train_programs,
                           r.heldout_programs, r.heldout_workloads.size(), r.workloads, r.heldout_records);
  std::cout << fmt::format("train RMSE {:.3f} (log2 s)\n", r.train_rmse);
  std::cout << "held-out pairwise accuracy (programs of one task): learned " << acc(r.learned_pairs) << ", analytical "
            << acc(r.analytical_pairs) << "\n";
  std::cout << "  of them, pairs whose latencies differ by >= 10%: learned " << acc(r.learned_clear) << ", analytical "
            << acc(r.analytical_clear) << "\n";
  std::cout << "held-out record direction (before vs after): learned " << acc(r.learned_records) << ", analytical "
            << acc(r.analytical_records) << "\n";
  std::cout << "model: " << a.out << "\n";
  return 0;
}

int run_score(const Args& a) {
  if (a.terms && a.model != "analytical")
    return usage_error("cost-model score", "--terms needs the analytical model, not " + a.model);
  const cost::MachineModel machine = cost::MachineModel::detect(a.threads);
  std::unique_ptr<cost::CostModel> m =
      a.model == "analytical" ? cost::make_analytical_model(machine) : cost::load_cost_model(a.model);
  const auto tasks = ir::read_tasks_jsonl(a.tasks);
  if (tasks.empty())  // as `check`
    return fail(ir::make_diag(Code::E101, "no tasks (the file is empty)", 0, a.tasks).headline());
  for (const auto& t : tasks)
    if (!t.ok) return fail(a.tasks + ": " + t.error.headline());
  std::vector<std::string> lines;
  for (const auto& t : tasks) {
    try {
      std::string terms;
      if (a.terms) {
        const cost::Estimate e = cost::analytical_estimate(t.task, machine);
        terms = fmt::format("compute_s={:.6g}\tmemory_s={:.6g}\tissue_s={:.6g}\tlatency_s={:.6g}\tchain_s={:.6g}\t",
                            e.compute_s, e.memory_s, e.issue_s, e.latency_s, e.chain_s);
      }
      lines.push_back(fmt::format("{:.6f}\t{}{}\n", m->score(t.task), terms, t.task.workload));
    } catch (const ir::LeirError& e) {
      return fail(a.tasks + ": line " + std::to_string(t.line) + ": " + e.diag().headline());
    }
  }
  for (const auto& l : lines) std::cout << l;
  return 0;
}

const CommandRegistrar reg("47-cost-model", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("cost-model", "Train or apply the cost models of the `cost` search policy "
                                             "(analytical, or learned XGBoost; DATASET.md §9.3)");
  c->footer("Exit status: 0 done; 2 bad input (D codes, E101 task file, an unreadable model); 70 an internal "
            "error.");
  c->require_subcommand(1);
  auto* t = c->add_subcommand("train", "Train the learned model on a dataset's measured records; report held-out "
                                       "pairwise accuracy (learned vs analytical)");
  t->add_option("dataset", a->datasets,
                "one or more: a dataset directory (archive/all.jsonl is read), a `steptp search` output directory "
                "(its measured.jsonl: the search's trajectories) or a records .jsonl file")
      ->required();
  t->add_option("-o,--out", a->out, "model file to write (JSON)")->required();
  t->add_option("--holdout-frac", a->holdout_frac, "fraction of workloads held out for the report")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  t->add_option("--seed", a->seed, "hold-out draw and XGBoost seed")->capture_default_str();
  t->add_option("--rounds", a->rounds, "boosting rounds")->check(CLI::Range(1, 100000))->capture_default_str();
  t->add_option("--max-depth", a->max_depth, "tree depth")->check(CLI::Range(1, 32))->capture_default_str();
  t->add_option("--objective", a->objective,
                "rank: XGBoost rank:pairwise over the programs of each task; regression: squared error on "
                "log2(latency / ideal_s)")
      ->check(CLI::IsMember({"rank", "regression"}))
      ->capture_default_str();
  t->add_flag("--no-analytical-margin", a->no_margin,
              "start the trees from zero instead of from the analytical model's estimate");
  t->add_option("--predictions", a->predictions,
                "also write each (task, program)'s measured, learned and analytical log2 seconds as JSON lines");
  auto* s = c->add_subcommand("score", "Print each task's score (predicted log2 seconds; lower = faster)");
  s->add_option("model", a->model, "a model file from `cost-model train`, or `analytical`")->required();
  s->add_option("tasks", a->tasks, "tasks (.jsonl, one task per line)")->required();
  s->add_option("--threads", a->threads, "analytical: threads the programs run with")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  s->add_flag("--terms", a->terms, "analytical: also print the compute, memory, issue, latency and chain seconds (analytical.hpp)");
  return [a, t] { return t->parsed() ? run_train(*a) : run_score(*a); };
});

}  // namespace
}  // namespace steptp::cli
