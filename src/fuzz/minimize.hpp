// Delta debugging on the LEIR AST: shrinks a failing task while a predicate (the failure) stays true.
#pragma once
#include <functional>

#include "ir/task.hpp"

namespace steptp::fuzz {

/// True when the task still shows the failure. Called only on tasks that pass ir::analyze without errors; it must
/// not throw (a throwing predicate counts as false).
using FailPredicate = std::function<bool(const ir::Task&)>;

struct MinimizeOptions {
  int max_tests = 600;        // predicate calls at most
  double max_seconds = 60.0;  // wall-clock budget
  /// Re-parse each reduced program's printed text before testing it, so the result is exactly what its text reads
  /// back as (off for print/parse failures, where that step would hide the bug).
  bool normalize = true;
};

struct MinimizeResult {
  ir::Task task;              // the smallest failing task found (the input if nothing smaller fails)
  int tests = 0;              // predicate calls made
  int accepted = 0;           // reductions kept
};

/// Greedy passes until none makes progress or the budget is spent, each edit kept only if the result is valid
/// (ir::analyze: no errors) and `still_fails` holds: remove nests, remove statements, replace an expression by one
/// of its operands or by the literal 1 or 0, set loop extents to 1 or halve them (with the known shapes they
/// determine), drop known inputs the program no longer reads. `t` must satisfy `still_fails`.
MinimizeResult minimize(const ir::Task& t, const FailPredicate& still_fails, const MinimizeOptions& opt = {});

/// Size of a task for minimisation: AST nodes (buffer reads twice) plus loop headers plus total loop extent (smaller
/// is simpler).
std::size_t task_size(const ir::Task& t);

}  // namespace steptp::fuzz
