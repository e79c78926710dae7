// isl dependence analysis (STRATEGIES.md §7.1).
//
// Instances: a statement plus the values of its enclosing loop keys; the domain is the box of the loop extents
// (if_then_else guards are ignored, which only adds dependences: every access is treated as a may-access).
// Schedules: 2d+1 vectors [top-level nest index, v1, c1, v2, c2, ..., vd, cd] where ci is 0 between two loops of
// one header and the body item index after a header's last loop; vectors are padded with 0.
// Access relations: each subscript entry becomes a quasi-affine isl_aff (sums, products by constants, // and % by
// positive constants); any other entry (gathers, products of keys, ...) is over-approximated by the whole
// dimension. Relations are built with the isl C API; no isl text is parsed.
// Dependences: every pair of accesses to one buffer (at least one a write) whose instances touch the same
// element, ordered by the original schedule (RAW, WAR, WAW).
// Reduction dependences: pairs between the write and the accumulator read of one reduction statement
// (reduction.hpp) are tagged *reduction* and may be reordered (associativity). With an implicit init the
// initialiser restarts for every value of a key the statement does not use, so only pairs that agree on those
// keys are tagged. Every other dependence is ordinary.
//
// Each call owns one isl_ctx for its whole duration and frees every isl object before returning.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ir/ast.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/subst.hpp"

namespace steptp::strategy::analysis {

/// One statement's instance set with its old and new schedules (affine expressions over `loops`' keys).
struct PolyStmt {
  const ir::Stmt* stmt = nullptr;    // accesses come from this statement
  std::vector<ir::Loop> loops;       // instance dimensions (distinct keys), outermost first
  std::vector<ir::Expr> sched_old;   // the order that defines the semantics
  std::vector<ir::Expr> sched_new;   // the order after the rewrite (empty: same as sched_old)
  std::optional<Reduction> red;      // reduction form of `stmt` (pointers into `stmt`), for tagging
};

/// The 2d+1 schedule of a statement of `p` (see above), as expressions over its loop keys.
std::vector<ir::Expr> schedule_2d1(const ir::Program& p, const StmtCtx& sc);

/// PolyStmts of the statements of top-level nest `top` of `p` (sched_new empty), reductions matched with their
/// init status.
std::vector<PolyStmt> poly_stmts(const ir::Program& p, std::uint32_t top);
/// PolyStmts of every statement of `p`.
std::vector<PolyStmt> poly_stmts(const ir::Program& p);

/// Instances of `after`'s top-level nest `top` against the order of `before`'s nest `top`, for rewrites that keep
/// the statements (same count and text order) and change loops. `old_key_of` gives each key of `before` as an
/// affine expression over the keys of `after` (keys not in the map are the same key). sched_new is the 2d+1
/// schedule of `after`. Throws std::invalid_argument when the statement counts differ.
std::vector<PolyStmt> reschedule_stmts(const ir::Program& before, const ir::Program& after, std::uint32_t top,
                                       const KeyMap& old_key_of);

/// General form of reschedule_stmts for rewrites that move statements between nests (fusion, fission): the
/// statements of `before`'s top-level nests [b0, b1) and of `after`'s top-level nests [a0, a1) are paired in text
/// order (same count and order, else std::invalid_argument). Instances, accesses and sched_new come from `after`;
/// sched_old is the 2d+1 schedule in `before` with statement k's keys replaced by old_key_of[k] (expressions over
/// its keys in `after`; an empty vector, or a missing key, means the same key).
std::vector<PolyStmt> reschedule_range(const ir::Program& before, std::uint32_t b0, std::uint32_t b1,
                                       const ir::Program& after, std::uint32_t a0, std::uint32_t a1,
                                       const std::vector<KeyMap>& old_key_of = {});

struct ScheduleCheck {
  bool legal = true;                 // no ordinary dependence is reversed by sched_new
  bool reduction_reordered = false;  // some tagged reduction dependence is reversed
  bool reassociated = false;         // ... of a + - * reduction (class R)
  std::size_t dependences = 0;       // non-empty access-pair dependence relations
  std::size_t reduction_dependences = 0;
  std::string detail;                // first violation, e.g. "RAW on D: S0 -> S1"; "" when legal
  bool isl_error = false;            // isl failed; the result is then conservative (illegal)
};

/// Checks `sched_new` against every dependence of the `sched_old` order.
ScheduleCheck check_schedule(const std::vector<PolyStmt>& stmts);

/// Does a dependence (reduction ones included) join two instances whose sched_old agree on dims [0, dim) and
/// differ on dim `dim`? With `dim` the schedule dimension of a loop, this is "the loop carries a dependence".
/// isl failure answers true (conservative).
bool carries_dependence(const std::vector<PolyStmt>& stmts, std::size_t dim);

/// Value-based flow test used by scope confinement (§7.1 "value-based flow", isl_union_access_info_compute_flow):
/// for every read of `buffer` by statement j, each write instance whose value the read may see (the last write of
/// the element before the read in sched_old order; writes with a non-affine entry are may-writes and do not kill
/// earlier ones) must agree with the read instance on sched_old dims [0, prefix[j]]; prefix[j] == SIZE_MAX means
/// "no requirement". Accumulator initialisers are not modelled as writes (conservative). Returns false when some
/// flow breaks it (or isl fails).
bool raw_deps_within_prefix(const std::vector<PolyStmt>& stmts, const std::string& buffer,
                            const std::vector<std::size_t>& prefix);

/// Value-based flow (§7.1, isl_union_access_info_compute_flow) on `buffer` for dead-code analysis: flag k is true
/// when some read of `buffer` by another statement j != k may take its value from a write instance of statement k
/// (the last write of the element before the read in sched_old order; writes with a non-affine entry are
/// may-writes and kill nothing). Reads of a statement's own output do not count. isl failure: every flag true.
std::vector<bool> flow_live_writers(const std::vector<PolyStmt>& stmts, const std::string& buffer);

/// Schedule dimension of loop `loop` of the nest at `path` (2d+1 layout above).
std::size_t loop_sched_dim(const ir::Program& p, const NestPath& path, std::uint32_t loop);

}  // namespace steptp::strategy::analysis
