// The statement budget and progress reporting shared by the CLI commands that interpret a task (run, equiv,
// lower --check): a work estimate before interpreting (E309 above --max-steps) and progress lines on stderr for
// long runs.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::cli {

/// Rejects a negative value of an unsigned option (CLI11 would wrap "-5" of a uint64 to 2^64-5, i.e. no limit).
const CLI::Validator& non_negative();

/// Adds `--max-steps N` (statement executions per interpreter run; default interp::kDefaultStepBudget; 0: no limit)
/// to `sub`, bound to `v`.
CLI::Option* add_step_budget_option(CLI::App* sub, std::uint64_t& v);

/// The work and memory budgets of one command: `--max-steps` and `--max-memory` (MiB).
struct WorkBudget {
  std::uint64_t max_steps = interp::kDefaultStepBudget;
  std::uint64_t max_memory_mib = interp::kDefaultMemoryBudget >> 20;
  /// Adds both options; `what` prefixes their descriptions (e.g. "--check: ").
  void add_options(CLI::App* sub, const std::string& what = "");
  /// Throws LeirError E309 / E310 when `task` is over a budget.
  void check(const ir::Task& task) const;
};

/// A --max-memory value in MiB as bytes (0, and values too large to shift, mean no limit).
inline std::uint64_t mib_to_bytes(std::uint64_t mib) { return mib >= (std::uint64_t{1} << 44) ? 0 : mib << 20; }

/// Progress reporter for work of `total` statement executions: returns the callback and sets `every` to the
/// call interval, a tenth of `total` (0 and an empty callback when `total` is below 10^8: short runs stay
/// silent). Each call prints one line "<label>: 40% (4e+08 of 1e+09 statement executions, 12.3 s)" on stderr.
std::function<void(std::uint64_t)> make_progress(const std::string& label, std::uint64_t total,
                                                 std::uint64_t& every);

}  // namespace steptp::cli
