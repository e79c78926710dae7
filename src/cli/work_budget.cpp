// CLI statement budget and progress lines (work_budget.hpp).
#include "cli/work_budget.hpp"

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <algorithm>

namespace steptp::cli {

const CLI::Validator& non_negative() {
  static const CLI::Validator v(
      [](std::string& s) {
        return s.find_first_not_of(" \t") != std::string::npos && s[s.find_first_not_of(" \t")] == '-'
                   ? std::string("must be 0 or more, got ") + s
                   : std::string();
      },
      "", "non-negative");
  return v;
}

CLI::Option* add_step_budget_option(CLI::App* sub, std::uint64_t& v) {
  v = interp::kDefaultStepBudget;
  return sub->add_option("--max-steps", v,
                         "statement executions allowed per interpreter run, checked against the task's work "
                         "estimate before running (E309) and while running (E308); 0: no limit")
      ->check(non_negative())  // a uint64 option would wrap "-5" to 2^64-5: no limit
      ->capture_default_str();
}

void WorkBudget::add_options(CLI::App* sub, const std::string& what) {
  add_step_budget_option(sub, max_steps)
      ->description(what + "statement executions allowed per run, checked against the task's work estimate "
                           "before running (E309) and while running (E308); 0: no limit");
  sub->add_option("--max-memory", max_memory_mib,
                  what + "MiB one run may hold, checked against the task's buffer sizes before running (E310); 0: "
                         "no limit")
      ->check(non_negative())
      ->capture_default_str();
}

void WorkBudget::check(const ir::Task& task) const {
  interp::check_step_budget(task, max_steps, "--max-steps");
  interp::check_memory_budget(task, mib_to_bytes(max_memory_mib), "--max-memory");
}

std::function<void(std::uint64_t)> make_progress(const std::string& label, std::uint64_t total,
                                                 std::uint64_t& every) {
  every = 0;
  if (total < 100'000'000) return {};
  every = total / 10;
  const auto t0 = std::chrono::steady_clock::now();
  return [label, total, t0](std::uint64_t done) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double pct = 100.0 * static_cast<double>(std::min(done, total)) / static_cast<double>(total);
    std::fprintf(stderr, "%s: %.0f%% (%.3g of %.3g statement executions, %.1f s)\n", label.c_str(), pct,
                 double(done), double(total), secs);
    std::fflush(stderr);
  };
}

}  // namespace steptp::cli
