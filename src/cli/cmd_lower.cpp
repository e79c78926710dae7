// `steptp lower --target tir|c|cuda TASK.json [--check] [--cpu] [-o FILE]`: the lowerings of LEIR.md §10.
// --check (c, cuda): compile, run sandboxed on the §11 seeded inputs and compare with the interpreter; prints one
// JSON line and exits 1 on a mismatch or failure. `--target cuda --check` needs nvcc and a GPU (the GPU harness).
#include <iostream>

#include "cli/command.hpp"
#include "cli/task_params.hpp"
#include "cli/work_budget.hpp"
#include "ir/limits.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"
#include "lower/lower.hpp"
#include "runtime/lower_check.hpp"

namespace steptp::cli {
namespace {

struct LowerOpts {
  std::string file, target = "tir", out;
  bool check = false, cpu = false;
  double timeout = 60;
  WorkBudget budget;
  TaskParams params;
};

int run_lower(const LowerOpts& o) {
  if (!o.check && (!o.params.file.empty() || o.params.none))
    return usage_error("lower", "--params and --no-params need --check (lowering itself does not use values)");
  ir::Task t;
  std::string code;
  try {
    t = ir::read_task_file(o.file);
    if (o.target == "tir") code = lower::lower_tir(t, !o.cpu);
    else if (o.target == "c") code = lower::lower_c(t);
    else if (o.target == "cuda") code = lower::lower_cuda(t);
    else return usage_error("lower", "unknown target '" + o.target + "' (tir, c, cuda)");
  } catch (const ir::LeirError& e) {
    return fail_in(o.file, e);
  }
  if (o.check) {
    if (o.target == "tir") return usage_error("lower", "--check supports --target c and cuda");
    try {
      o.budget.check(t);
    } catch (const ir::LeirError& e) {
      return fail_in(o.file, e);
    }
    runtime::LowerCheckOptions co;
    co.fixed = o.params.load(o.file, t);
    co.limits.timeout_seconds = o.timeout;
    co.interp.max_steps = o.budget.max_steps;
    co.interp.progress = make_progress("lower --check: interpreter run", ir::statement_executions(t.program),
                                       co.interp.progress_every);
    const auto r = runtime::check_lowering(t, o.target == "c" ? runtime::LowerTarget::C : runtime::LowerTarget::Cuda, co);
    std::cout << r.to_json() << "\n";
    return r.ok ? 0 : 1;
  }
  if (!o.out.empty()) ir::write_file_atomic(o.out, code);
  else std::cout << code;
  return 0;
}

CommandRegistrar reg("40-lower", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<LowerOpts>();
  auto* sub = app.add_subcommand("lower", "Lower a task to TVMScript, C++/OpenMP or CUDA (LEIR.md §10)");
  sub->footer("Exit status: 0 lowered (--check: matches the interpreter); 1 --check failed; 2 bad input "
              "(invalid task, E115 -o path, --check with tir); 70 an internal error.");
  sub->add_option("task", o->file, "Task file (.json, or .jsonl: first task)")->required();
  sub->add_option("--target", o->target, "tir, c or cuda")->check(CLI::IsMember({"tir", "c", "cuda"}));
  sub->add_flag("--check", o->check, "c/cuda: compile, run sandboxed and compare with the interpreter");
  sub->add_flag("--cpu", o->cpu, "tir: no unit_tx wrapping of nests without B loops");
  sub->add_option("--timeout", o->timeout, "--check: seconds per sandboxed run (default 60)");
  o->budget.add_options(sub, "--check: ");
  o->params.add_options(sub);
  sub->add_option("-o,--output", o->out, "Write the code here (atomically; an existing link, FIFO or device is "
                  "never replaced: E115) instead of stdout");
  return [o] { return run_lower(*o); };
});

}  // namespace
}  // namespace steptp::cli
