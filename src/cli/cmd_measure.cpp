// `steptp measure TASK.json [--compare OTHER.json] [--repeats N] [--warmup W] [--min-repeat-ms MS] [--threads T]
// [--cold-cache]`: compile the C lowering (cached), run it sandboxed and pinned on seeded inputs with a calibrated
// number of calls per repeat (runtime/interleaved.hpp) and print timing as JSON (seconds per call): median, q1, q3,
// iqr, min, repeats, number, compile_seconds. Each program first runs once in the interpreter on the inputs it is
// timed on (up to --check-steps statement executions): a program the interpreter rejects (E301-E304) is never
// timed: {"ok": false, "error": "interpreter: LEIR-E30x ..."}, exit 1. With --compare both programs are timed
// interleaved ABBA in one child and the speedup (median paired ratio TASK / OTHER) is printed too. A failing
// kernel prints {"ok": false, "error": ...} and exits 1. A work or memory estimate over --max-steps or --max-memory (E309, E310) is refused
// before compiling (exit 2).
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/grade_options.hpp"
#include "cli/work_budget.hpp"
#include "base/text.hpp"
#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "base/diag.hpp"
#include "ir/limits.hpp"
#include "ir/task.hpp"
#include "runtime/measure.hpp"

namespace steptp::cli {
namespace {

/// Statement executions up to which `measure` runs a program in the interpreter before timing it.
constexpr std::uint64_t kDefaultCheckSteps = 100'000'000;

// Runs `t` once in the interpreter on the seeded inputs `measure` times it on. Returns the interpreter's error
// ("" when it runs); a program over `max_steps` is not run, with a note on stderr (0: the check is off).
std::string interpreter_error(const ir::Task& t, const std::string& file, std::uint64_t seed, std::uint64_t max_steps) {
  if (max_steps == 0) return "";
  const std::uint64_t steps = ir::statement_executions(t.program);
  if (steps > max_steps) {
    std::cerr << "measure: " << core::terminal_safe(file) << " not run in the interpreter first (" << steps
              << " statement executions > --check-steps " << max_steps << ")\n";
    return "";
  }
  try {
    interp::Interpreter in(t);
    interp::RunOptions ro;
    ro.max_steps = max_steps;
    (void)in.run(equiv::make_inputs(t, seed, equiv::Distribution::Normal), ro);
  } catch (const ir::LeirError& e) {
    return "interpreter: " + e.diag().headline();
  }
  return "";
}

int refuse_timing(const std::string& error) {
  std::cout << nlohmann::json{{"ok", false}, {"error", error}}.dump() << "\n";
  return 1;
}

int run_measure(const std::string& file, const std::string& other, runtime::MeasureOptions opt,
                const WorkBudget& budget, std::uint64_t check_steps) {
  std::string current = file;
  try {
    const ir::Task t = ir::read_task_file(file);
    budget.check(t);
    if (const std::string e = interpreter_error(t, file, opt.seed, check_steps); !e.empty()) return refuse_timing(e);
    if (other.empty()) {
      const auto r = runtime::measure(t, opt);
      std::cout << r.to_json() << "\n";
      return r.ok ? 0 : 1;
    }
    current = other;
    const ir::Task o = ir::read_task_file(other);
    budget.check(o);
    if (t.known != o.known) return fail(other + ": known signature differs from " + file + "'s; nothing to compare");
    if (const std::string e = interpreter_error(o, other, opt.seed, check_steps); !e.empty()) return refuse_timing(e);
    const auto r = runtime::measure_pair(t, o, opt);
    std::cout << r.to_json() << "\n";
    return r.ok ? 0 : 1;
  } catch (const ir::LeirError& e) {
    return fail_in(current, e);
  }
}

CommandRegistrar reg("41-measure", [](CLI::App& app) -> RunFn {
  auto file = std::make_shared<std::string>();
  auto other = std::make_shared<std::string>();
  auto o = std::make_shared<runtime::MeasureOptions>();
  auto* sub = app.add_subcommand("measure", "Compile the C lowering and time it in a sandboxed child (JSON, seconds)");
  sub->add_option("task", *file, "Task file (.json, or .jsonl: first task)")->required();
  sub->add_option("--compare", *other, "Second task with the same known signature, timed interleaved ABBA (speedup = "
                                      "TASK / OTHER)");
  sub->add_option("--repeats", o->repeats, "Timed repeats (default 10)")->check(CLI::Range(1, 1000000));
  sub->add_option("--warmup", o->warmup, "Untimed calls first (default 2)")->check(CLI::Range(0, 1000000));
  sub->add_option("--min-repeat-ms", o->min_repeat_ms,
                  "Calibrate calls per repeat so one repeat lasts at least this long (default 1 ms; 0 = one call)")
      ->check(CLI::Range(0.0, 10000.0));
  sub->add_option("--threads", o->threads, "OpenMP threads (default 1)")->check(CLI::Range(1, 4096));
  sub->add_flag("--cold-cache,--flush", o->flush_cache,
                "Write 2 x the last-level cache before every timed call (one call per repeat)");
  sub->add_option("--seed", o->seed, "Input seed (LEIR.md §11, distribution N)");
  sub->add_option("--timeout", o->limits.timeout_seconds, "Seconds for the whole sandboxed run (default 60)");
  auto check_steps = std::make_shared<std::uint64_t>(kDefaultCheckSteps);
  sub->add_option("--check-steps", *check_steps,
                  "run each program once in the interpreter first, on the inputs it is timed on, when it takes at "
                  "most this many statement executions; one it rejects (E301-E304) is not timed (exit 1); 0: skip")
      ->capture_default_str();
  auto budget = std::make_shared<WorkBudget>();
  budget->add_options(sub);
  sub->get_option("--max-steps")
      ->description("statement executions allowed per kernel call, checked against the task's work estimate "
                    "before compiling (E309); 0: no limit")
      ->default_str(std::to_string(interp::kDefaultCompiledStepBudget));
  budget->max_steps = interp::kDefaultCompiledStepBudget;
  sub->get_option("--max-memory")
      ->description("MiB of buffers (estimated as the interpreter holds them) allowed before compiling (E310); 0: no "
                    "limit");
  sub->footer("Exit status: 0 timed, 1 the kernel or the interpreter check failed ({\"ok\": false, ...}), 2 bad input "
              "(unreadable or invalid task, E217 and other validator errors, over a budget).");
  auto contract = std::make_shared<bool>(false);
  add_fp_contract_option(sub, *contract,
                         "on: compile with FMA contraction (-ffp-contract=fast), as `steptp search` and `replay` time "
                         "kernels; off: as `generate` does (every operation rounded, like the interpreter)");
  return [file, other, o, budget, check_steps, contract] {
    if (*contract) o->compile.flags = runtime::kernel_compile_options(true).flags;
    return run_measure(*file, *other, *o, *budget, *check_steps);
  };
});

}  // namespace
}  // namespace steptp::cli
