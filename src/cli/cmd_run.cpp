// `steptp run TASK.json [--seed S] [--dist N|U|W|K] [--typed] [--checked] [--no-batch]`: runs a task in the reference interpreter
// (LEIR.md §8) on the §11 inputs (param/constant buffers with stored values in TASK.params.bin keep them) and prints, per output, its shape, checksum (sum), min and max, then the number
// of statement executions and the run time (wall clock and process CPU time, seconds). Exit 0 ok, 1 runtime error (E3xx), 2 bad input
// (including E309/E310: a work or memory estimate over --max-steps/--max-memory).
#include <chrono>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <iostream>

#include "cli/command.hpp"
#include "cli/task_params.hpp"
#include "cli/work_budget.hpp"
#include "base/text.hpp"
#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "base/diag.hpp"
#include "ir/limits.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct RunArgs {
  std::string path;
  std::uint64_t seed = 0;
  std::string dist = "N";
  bool typed = false;
  bool checked = false;
  bool no_batch = false;
  WorkBudget budget;
  TaskParams params;
};

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (k) r += ',';
    r += std::to_string(s[k]);
  }
  return r + "]";
}

int run_cmd(const RunArgs& a) {
  std::vector<equiv::Distribution> dists;
  try {
    dists = equiv::parse_distributions(a.dist);
  } catch (const std::invalid_argument&) {
    // not a distribution letter: the one-line error below
  }
  if (dists.size() != 1) return usage_error("run", "--dist must be N, U, W or K");
  ir::Task task;
  try {
    task = ir::read_task_file(a.path);
  } catch (const ir::LeirError& e) {
    return fail_in(a.path, e);
  }
  try {
    a.budget.check(task);
  } catch (const ir::LeirError& e) {
    return fail_in(a.path, e);
  }
  const std::shared_ptr<const interp::TensorMap> fixed = a.params.load(a.path, task);
  try {
    interp::Interpreter in(task);
    const equiv::Distribution dist = dists.front();
    interp::TensorMap inputs = equiv::make_inputs(in, a.seed, dist);
    if (fixed) {
      equiv::apply_fixed_inputs(inputs, *fixed);
      std::cerr << "run: " << fixed->size() << " buffer(s) hold their stored values (--no-params draws them)\n";
    }
    interp::RunOptions ro;
    ro.typed = a.typed;
    ro.checked = a.checked;
    ro.batched = !a.no_batch;
    ro.max_steps = a.budget.max_steps;
    ro.progress = make_progress("run", ir::statement_executions(task.program), ro.progress_every);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    interp::TensorMap out;
    try {
      out = in.run(inputs, ro);
    } catch (const ir::LeirError& e) {
      std::cerr << core::terminal_safe(e.diag().full()) << "\n";
      return 1;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    for (const auto& k : in.task().known) {
      if (k.role != ir::Role::Output) continue;
      const auto& t = out.at(k.name);
      double sum = 0, mn = INFINITY, mx = -INFINITY;
      bool nan = false;
      for (double v : t.data) {
        sum += v;
        if (std::isnan(v)) nan = true;
        else { mn = std::min(mn, v); mx = std::max(mx, v); }
      }
      if (nan) mn = mx = NAN;
      std::cout << fmt::format("{} {} {} checksum={:.10g} min={:.10g} max={:.10g}\n", k.name,
                               ir::dtype_name(k.dtype), shape_text(t.shape), sum, mn, mx);
    }
    std::cout << fmt::format("statements={} time={:.6f}s cpu={:.6f}s ({} mode, seed {}, dist {})\n", in.last_steps(),
                             secs, cpu, a.typed ? "typed" : "f64", a.seed, a.dist);
    return 0;
  } catch (const ir::LeirError& e) {
    std::cerr << core::terminal_safe(e.diag().full()) << "\n";
    return 2;
  }
}

const CommandRegistrar reg("20-run", [](CLI::App& app) -> RunFn {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand("run", "run a task in the reference interpreter on generated inputs");
  sub->footer("Exit status: 0 ran; 1 a runtime error of the program (E3xx); 2 bad input (unreadable or invalid "
              "task, over a budget); 70 an internal error.");
  sub->add_option("task", args->path, "task file (.json with one task, or .jsonl: the first task)")->required();
  sub->add_option("--seed", args->seed, "input seed (LEIR.md §11)");
  sub->add_option("--dist", args->dist,
                  "input distribution (LEIR.md §11): N (normal), U (uniform [0.5,1.5]), W (wide: log-uniform "
                  "magnitudes 2^-4..2^6), K (the program's literals, nudged)")
      ->capture_default_str();
  sub->add_flag("--typed", args->typed, "exact §8.2 precision (f32/f16/bf16 rounding) instead of f64");
  sub->add_flag("--checked", args->checked, "also check parallel-loop conflicts and s/l confinement (E306, E307)");
  sub->add_flag("--no-batch", args->no_batch,
                "run every statement one iteration at a time (slower; the reference the default batched execution "
                "of innermost loops is tested against: same outputs bit for bit, same errors)");
  args->budget.add_options(sub);
  args->params.add_options(sub);
  return [args] { return run_cmd(*args); };
});

}  // namespace
}  // namespace steptp::cli
