// `steptp library-baseline` (hidden): the child that search starts without OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE
// (runtime/best_core.hpp). Prints one JSON line: {"library", "core_check_max_rel_err"} and, with --task, "timing"
// (time_library_baseline of that task).
#include <iostream>

#include "base/json_text.hpp"
#include "cli/command.hpp"
#include "ir/task.hpp"
#include "runtime/best_core.hpp"
#include "runtime/library_baseline.hpp"

namespace steptp::cli {
namespace {

struct BaselineArgs {
  std::string workload, task;
  int repeats = 5, threads = 1;
};

CommandRegistrar reg("99-library-baseline", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<BaselineArgs>();
  auto* sub = app.add_subcommand("library-baseline", "internal: the library baseline in a child process");
  sub->group("");  // not listed in --help: search starts it
  sub->add_option("--workload", a->workload, "workload name (library_call registry)");
  sub->add_option("--task", a->task, "task file to time");
  sub->add_option("--repeats", a->repeats, "timed repeats")->check(CLI::Range(1, 1000000));
  sub->add_option("--threads", a->threads, "BLAS threads")->check(CLI::Range(1, 4096));
  sub->footer("Exit status: 0 printed; 2 bad input; 70 an internal error.");
  return [a] {
    core::ojson out = {{"library", runtime::blas_library_info()},
                       {"core_check_max_rel_err", runtime::blas_core_check()}};
    if (!a->task.empty())
      out["timing"] = runtime::time_library_baseline(a->workload, ir::read_task_file(a->task), a->repeats,
                                                     a->threads);
    std::cout << core::dump_py(out) << "\n";
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
