// Options of the grading that `steptp eval` and `steptp search` share (eval/grader.hpp).
#pragma once
#include <CLI/CLI.hpp>
#include <memory>

namespace steptp::cli {

/// Adds `--no-strict-equivalence` to `sub`: the returned flag, once parsed, turns the strict stage of the
/// equivalent gate off (eval::GradeConfig::strict, dataset/strict_equiv.hpp).
inline std::shared_ptr<bool> add_no_strict_equivalence_flag(CLI::App* sub) {
  auto no_strict = std::make_shared<bool>(false);
  sub->add_flag("--no-strict-equivalence", *no_strict,
                "equivalent gate: S5's draws only (DATASET.md §8), without the strict stage that also compares the "
                "answer with the root on 2 wide and 2 literal-directed draws and, for programs of at most 2^14 "
                "statement instances, on the draws of `steptp equiv` (skipped above 2^28 statement executions)");
  return no_strict;
}

}  // namespace steptp::cli
