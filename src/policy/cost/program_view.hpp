// Internal to src/policy/cost/: one validated view of a program that the feature extractor and the analytical
// model share. Statements with their enclosing loop chains, instance counts, operation counts and buffer accesses
// (affine subscripts in the normal form of strategies/analysis/affine.hpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/affine.hpp"

namespace steptp::policy::cost {

/// One distinct buffer access of a statement (the same buffer with the same printed subscript counts once; a
/// statement's write and its read of the same element are one access with `write` set).
struct AccessView {
  const ir::Expr* ref = nullptr;   // the Ref node inside ProgramView::task
  std::string buffer;
  std::string key;                 // buffer name + printed subscript: identifies the access within a nest
  bool write = false;
  bool read = false;               // the statement also reads it (a read-modify-write when `write` is set too)
  ir::Scope scope = ir::Scope::Global;  // as written at the reference
  bool gather = false;             // some subscript entry reads a buffer
  int elem_bytes = 4;
  std::vector<std::int64_t> shape; // the buffer's shape (inferred for intermediates); empty for 0-d
  std::vector<std::optional<strategy::analysis::Linear>> dims;  // per subscript entry; nullopt: not affine

  /// Coefficient of loop key `var` in the row-major linear element index (elements); nullopt when a subscript
  /// entry that mentions `var` is not affine.
  std::optional<std::int64_t> stride(const std::string& var) const;
};

/// One statement in text order.
struct StmtView {
  const ir::Stmt* stmt = nullptr;
  std::vector<const ir::Loop*> loops;  // enclosing loops, outermost first (nested nests included)
  std::size_t nest = 0;                // top-level nest index
  std::int64_t instances = 1;          // product of the loop extents
  std::int64_t flops = 0;              // per instance, DATASET.md §6.1 (+ - * /, max/min and intrinsic calls)
  double work = 0;                     // per instance, weighted: + - * max min abs 1, / sqrt 4, exp log erf ** 16
  int expensive_ops = 0;               // per instance: / sqrt exp log erf **
  ir::DType dtype = ir::DType::F32;    // the target's effective dtype
  int parallel_loop = -1;              // index in `loops` of the loop the C lowering runs with omp parallel for
  std::size_t own_headers = 0;         // loops of the innermost nest's header list (its innermost loops)
  bool alone = false;                  // that nest's body is this statement alone
  std::vector<AccessView> accesses;    // the write first, then reads
};

/// Accesses of `s` whose stride along its innermost loop is neither 0 nor ±1, or unknown (0 without loops).
int nonunit_inner_accesses(const StmtView& s);

/// Is every access of `s` of stride 0 or ±1 along its innermost loop? (true without loops)
bool inner_unit_or_invariant(const StmtView& s);

/// Vector lanes the analytical model assumes for s (analytical.hpp, vec(S)); 1 when scalar. Along the innermost
/// loop, or, for an accumulation whose innermost loop is its reduction, along the loop just outside it when
/// outer_vector_width says GCC vectorises that one.
int vector_width(const StmtView& s, int vector_lanes_f32);

/// GCC's outer-loop vectorisation of `for o: for r..: X[..o..] = X[..o..] + f(...)`: lanes along o when s's write
/// is an accumulation with stride 0 along the loops inside o (its reductions) and 1 along o, every access has a
/// known stride 0 or 1 along o, o is not unrolled, o and the loops inside it are headers of one nest whose body
/// is s alone, and the reduction loops are one loop, or several whose extents multiply to at most 16 (GCC unrolls
/// them completely, and o becomes the innermost loop); else 1. The lanes run as independent accumulation chains.
int outer_vector_width(const StmtView& s, int vector_lanes_f32);

/// A validated copy of a task and its statements. Not copyable: statements point into `task`.
struct ProgramView {
  explicit ProgramView(const ir::Task& t);  // throws ir::LeirError when t does not validate
  ProgramView(const ProgramView&) = delete;
  ProgramView& operator=(const ProgramView&) = delete;

  ir::Task task;
  ir::Analysis analysis;
  std::vector<StmtView> stmts;
  std::size_t nests = 0;
};

}  // namespace steptp::policy::cost
