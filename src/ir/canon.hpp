// Alpha-canonical form of a task's program (DATASET.md §2.4 no_change/undo/revisit, §7.1 pair dedup): loop keys
// renamed by order of binding (k0, k1, ... per scope), intermediate buffers by order of first occurrence (T0, ...);
// known buffers keep their names. Two programs are alpha-equivalent iff their canonical texts are equal.
#pragma once
#include <string>

#include "ir/task.hpp"

namespace steptp::core {

/// Canonical text (printer output of the renamed program; not necessarily valid LEIR names).
std::string alpha_canonical(const ir::Task& t);

/// Canonical known list as JSON text: [{"dtype","name","role","shape"}...] in declaration order, sorted keys.
std::string canonical_known_json(const ir::Task& t);

/// DATASET.md §3 task_key = H("steptp.task/1", workload, canonical known JSON, printed LEIR).
std::string task_key(const ir::Task& t);
/// DATASET.md §3 prog_key = H("steptp.prog/1", canonical known JSON, printed LEIR, lowering version, flags).
std::string prog_key(const ir::Task& t, const std::string& compiler_flags);

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
