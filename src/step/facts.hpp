// S8 facts (DATASET.md §6.1): typed objects computed from the before/after programs and the facts record that
// strategy apply returns (STRATEGIES.md §10). Pure functions of their inputs, so the checker (checker.hpp) can
// recompute them independently of what a record stores.
//
// Definitions (DATASET.md §6.1): statement instances = product of enclosing loop extents; flops per instance = one
// per + - * / operator, max/min and intrinsic call on the right-hand side (subscripts and if_then_else conditions
// excluded); minimum traffic = bytes of each known buffer once + twice the bytes of each global intermediate;
// intensity = flops / minimum traffic; footprint = bytes of all buffers of any scope; parallel iterations = sum
// over top-level nests of the product of their P and B loop extents; stride of X along k = coefficient of k in X's
// row-major linear index (null when not affine); a loop is spatial if its key occurs in a left-hand-side subscript
// under it, otherwise reduction.
#pragma once
#include <string>

#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::dataset {

/// Whole-program metrics (bytes, flop counts; integers).
struct ProgramMetrics {
  std::int64_t iterations = 0, flops = 0, min_traffic = 0, footprint = 0, parallel_iterations = 0;
};

/// Metrics of a task (validated internally on a copy). Throws LeirError when the task does not validate.
ProgramMetrics program_metrics(const ir::Task& t);

/// The fact list of one record, in rendering order: Observation facts of `before`, candidate facts (site,
/// parameters, per-strategy keys, class, legality, conditions), effect facts and result facts.
/// `apply_facts` is Applied::facts; `candidate_id` the printed candidate; `cls` 'E','R','D' or 'P'; `params` the
/// named parameter values. Throws LeirError / std::exception on analysis failure (S8 `analysis_error`).
ojson compute_facts(const ir::Task& before, const ir::Task& after, const nlohmann::json& apply_facts,
                    const std::string& candidate_id, char cls, const ojson& params);

/// Statement text without superscripts: "D[tx,a] = D[tx,a] + A[tx,c]*C[c,a]".
std::string plain_stmt_text(const ir::Stmt& s);

/// Indices of top-level nests of `after` whose printed text occurs nowhere among `before`'s nests (multiset).
std::vector<std::size_t> changed_nests(const ir::Task& before, const ir::Task& after);

}  // namespace steptp::dataset
