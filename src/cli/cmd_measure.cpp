// `steptp measure TASK.json [--repeats N] [--warmup W] [--threads T] [--flush]`: compile the C lowering (cached),
// run it sandboxed on seeded inputs and print timing as JSON (seconds): median, iqr, min, repeats,
// compile_seconds. A failing kernel prints {"ok": false, "error": ...} and exits 1.
#include <iostream>

#include "cli/command.hpp"
#include "ir/diag.hpp"
#include "ir/task.hpp"
#include "runtime/measure.hpp"

namespace steptp::cli {
namespace {

int run_measure(const std::string& file, runtime::MeasureOptions opt) {
  try {
    const ir::Task t = ir::read_task_file(file);
    const auto r = runtime::measure(t, opt);
    std::cout << r.to_json() << "\n";
    return r.ok ? 0 : 1;
  } catch (const ir::LeirError& e) {
    return fail(file + ": " + e.diag().headline());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

CommandRegistrar reg("41-measure", [](CLI::App& app) -> RunFn {
  auto file = std::make_shared<std::string>();
  auto o = std::make_shared<runtime::MeasureOptions>();
  auto* sub = app.add_subcommand("measure", "Compile the C lowering and time it in a sandboxed child (JSON, seconds)");
  sub->add_option("task", *file, "Task file (.json, or .jsonl: first task)")->required();
  sub->add_option("--repeats", o->repeats, "Timed runs (default 10)")->check(CLI::Range(1, 1000000));
  sub->add_option("--warmup", o->warmup, "Untimed runs first (default 2)")->check(CLI::Range(0, 1000000));
  sub->add_option("--threads", o->threads, "OpenMP threads (default 1)")->check(CLI::Range(1, 4096));
  sub->add_flag("--flush", o->flush_cache, "Write a buffer larger than the last-level cache before every run");
  sub->add_option("--seed", o->seed, "Input seed (LEIR.md §11, distribution N)");
  sub->add_option("--timeout", o->limits.timeout_seconds, "Seconds for the whole sandboxed run (default 60)");
  return [file, o] { return run_measure(*file, *o); };
});

}  // namespace
}  // namespace steptp::cli
