// The validator's annotations (Expr::ty, Stmt::init, reduction keys; LEIR.md §7) for strategies that read static
// types during enumeration. ir::analyze walks the whole program, and a strategy asks once per nest of the same
// task, so the analysed copy is memoised per thread for the last task seen.
#pragma once
#include <memory>
#include <string>

#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::strategy::analysis {

struct TypedTask {
  ir::Task task;          // a copy of the input with the annotations filled in
  ir::Analysis analysis;  // ir::analyze's result (diagnostics, buffer shapes)
};

/// The key of the per-thread task memos (typed_task, task_signs): the printed program plus every known buffer's
/// name, role, dtype, declared range and shape.
std::string task_memo_key(const ir::Task& t);

/// `t` analysed by ir::analyze. Memoised per thread on the printed program and the known table, so the result is
/// exactly what analysing a fresh copy gives. The shared pointer stays valid whatever the caller does next.
std::shared_ptr<const TypedTask> typed_task(const ir::Task& t);

}  // namespace steptp::strategy::analysis
