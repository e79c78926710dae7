// Options of the grading and timing that `steptp eval`, `search` and `replay` share (eval/grader.hpp).
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace steptp::cli {

/// Adds `--no-strict-equivalence` to `sub`: the returned flag, once parsed, turns the strict stage of the
/// equivalent gate off (eval::GradeConfig::strict, step/strict_equiv.hpp).
inline std::shared_ptr<bool> add_no_strict_equivalence_flag(CLI::App* sub) {
  auto no_strict = std::make_shared<bool>(false);
  sub->add_flag("--no-strict-equivalence", *no_strict,
                "turn off the strict equivalence check (on by default). After S5 (DATASET.md §8: 3 normal and 1 "
                "uniform input draw), an answer is also compared with the root on 2 wide-magnitude and 2 "
                "literal-directed draws and, for small programs, on all of `steptp equiv`'s draws; the whole check "
                "is skipped when those runs would exceed 2^28 statement executions");
  return no_strict;
}

/// Adds `--fp-contract on|off` to `sub` (only those two words), writing `target`, whose value is the default.
inline CLI::Option* add_fp_contract_option(CLI::App* sub, bool& target, const std::string& help) {
  return sub->add_option("--fp-contract", target, help)
      ->check(CLI::IsMember({"on", "off"}))
      ->type_name("on|off")
      ->default_str(target ? "on" : "off");
}

}  // namespace steptp::cli
