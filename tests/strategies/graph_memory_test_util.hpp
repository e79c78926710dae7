// Helpers for the graph/memory strategy tests: the numeric check of an applied candidate in its class (LEIR.md
// §11; class E requires bit-identical outputs).
#pragma once
#include <gtest/gtest.h>

#include "equiv/equivalence.hpp"
#include "strategy_test_util.hpp"

namespace steptp::strategy::testing {

inline ::testing::AssertionResult equivalent_in_class(const ir::Task& before, const Applied& a) {
  equiv::Options opt;
  opt.exact = a.cls == Exactness::Exact;
  auto r = equiv::check_equivalence(before, a.task, opt);
  if (r.equivalent) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.code << " " << r.message << " for " << a.facts.value("candidate", "")
                                       << ": " << ir::print_program(a.task.program);
}

/// Applies every candidate of `strategy` on `t` and checks validation (apply runs the validator) and the numeric
/// check in the candidate's class. Returns the number of candidates.
inline std::size_t check_all_candidates(const std::string& strategy, const ir::Task& t) {
  std::size_t n = 0;
  for (const auto& c : enumerate_candidates(*find(strategy), t)) {
    Applied a = find(strategy)->apply(t, c);
    EXPECT_TRUE(equivalent_in_class(t, a));
    ++n;
  }
  return n;
}

}  // namespace steptp::strategy::testing

// The names every graph/memory/special golden test uses (included by test files only).
namespace st = steptp::strategy;
using st::testing::apply_id;
using st::testing::candidate_ids;
using st::testing::check_all_candidates;
using st::testing::equivalent_in_class;
using st::testing::expand_refs;
using st::testing::leir;
using st::testing::make_task;
using R = steptp::ir::Role;
using Ids = std::vector<std::string>;
