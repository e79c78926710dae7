// Reduction statements (STRATEGIES.md §1 terms; LEIR.md §8.4): `X_s = X_s (+|-|*) e`, `X_s = max(X_s, e)` or
// `X_s = min(X_s, e)` where X does not occur in e. Init status: implicit when no earlier statement (program
// order) writes X, continuing otherwise.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ast.hpp"
#include "strategies/analysis/locate.hpp"

namespace steptp::strategy::analysis {

enum class ReduceOp { Add, Sub, Mul, Max, Min };
std::string_view reduce_op_text(ReduceOp op);  // "+", "-", "*", "max", "min"
/// Reordering partial results of `op` changes rounding (R) for + - *, never for max/min (E) (§7.1).
inline bool reassociates(ReduceOp op) { return op == ReduceOp::Add || op == ReduceOp::Sub || op == ReduceOp::Mul; }

struct Reduction {
  ReduceOp op = ReduceOp::Add;
  std::string acc;                          // accumulator buffer
  const ir::Expr* lhs = nullptr;            // X_s (the write)
  const ir::Expr* acc_read = nullptr;       // X_s on the right-hand side
  const ir::Expr* operand = nullptr;        // e
  std::vector<std::string> spatial_keys;    // keys in scope occurring in s, scope order
  std::vector<std::string> reduction_keys;  // keys in scope the statement uses and s does not, scope order
  std::vector<std::string> unused_keys;     // keys in scope the statement does not use at all
  bool implicit_init = true;                // false: continuing
};

/// Matches the reduction form; init status is left implicit (see with_init_status). A max/min statement whose
/// store into the accumulator is not monotone (an integer target narrower than the promoted type, a bool target)
/// is not a reduction: its steps do not commute.
std::optional<Reduction> match_reduction(const ir::Stmt& s, const std::vector<const ir::Loop*>& loops);

/// Does a statement before `s` in program order write buffer `buf`?
bool written_before(const ir::Program& p, const ir::Stmt* s, const std::string& buf);

/// match_reduction plus the init status from the program.
std::optional<Reduction> match_reduction(const ir::Program& p, const StmtCtx& sc);

/// The combination of two partial results of a reduction with operator `op` (rfactor, tensor_split's reduction
/// variant): max(a,b), min(a,b), a*b, or a+b for + and - (partial sums of a `-` reduction are added, §11 entry 5).
ir::Expr combine_partials(ReduceOp op, ir::Expr a, ir::Expr b);

/// Prefix statement (STRATEGIES.md §1): reads its own output buffer with a subscript other than its LHS.
bool is_prefix_form(const ir::Stmt& s);

}  // namespace steptp::strategy::analysis
