// Sign analysis (STRATEGIES.md §9.4): every expression of a task gets a sign from the lattice
// {positive, non-negative, non-zero, negative, non-positive, zero, unknown}, represented as the set of the signs
// {-, 0, +} its value may take (an empty set is "no value yet", the bottom of the fixpoint). Literals get their own
// sign; `exp` is positive; `sqrt`, `abs` and even integer powers are non-negative; sums, products, quotients,
// max/min and if_then_else (join of the two branches) combine their operands; a loop key used as a value is
// non-negative; a comparison or a logical operator is 0 or 1. A buffer access gets the join over every statement
// that writes the buffer; a reduction with implicit init starts from its identity (0, 1, -inf, +inf) and runs at
// least once, so `N=N+exp(...)` is positive. A known input is unknown unless the task declares its range
// (ir::KnownBuffer::range). The buffer signs are a fixpoint over the program (at most 8 rounds, then every buffer
// still changing widens to unknown).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "ir/task.hpp"

namespace steptp::strategy::analysis {

/// A set of possible signs: bit 0 = negative, bit 1 = zero, bit 2 = positive.
struct Sign {
  std::uint8_t bits = 0;
  static constexpr std::uint8_t kNeg = 1, kZero = 2, kPos = 4;
  static Sign bottom() { return {0}; }
  static Sign zero() { return {kZero}; }
  static Sign positive() { return {kPos}; }
  static Sign negative() { return {kNeg}; }
  static Sign nonnegative() { return {kZero | kPos}; }
  static Sign nonpositive() { return {kNeg | kZero}; }
  static Sign nonzero() { return {kNeg | kPos}; }
  static Sign unknown() { return {kNeg | kZero | kPos}; }
  bool operator==(const Sign&) const = default;
  bool is_positive() const { return bits == kPos; }                        // proves u>0
  bool is_nonnegative() const { return bits != 0 && !(bits & kNeg); }      // proves u>=0
  bool is_nonzero() const { return bits != 0 && !(bits & kZero); }         // proves u!=0
  bool is_negative() const { return bits == kNeg; }
  /// "positive", "non-negative", "non-zero", "negative", "non-positive", "zero", "unknown" ("none" for bottom).
  std::string_view name() const;
};

Sign sign_join(Sign a, Sign b);
Sign sign_neg(Sign a);
Sign sign_add(Sign a, Sign b);
Sign sign_mul(Sign a, Sign b);
/// Sign of a/b over the finite quotients (a zero divisor is left out).
Sign sign_div(Sign a, Sign b);

/// The signs of one task's buffers (the fixpoint) and of any expression of it.
class SignAnalysis {
 public:
  /// Runs the fixpoint over `t.program`. The program need not be typed (Stmt::init is recomputed when absent).
  explicit SignAnalysis(const ir::Task& t);
  /// Sign of every value buffer `name` may hold (unknown for a name the program does not write and the task does
  /// not declare).
  Sign buffer(std::string_view name) const;
  /// Sign of `e` evaluated anywhere in the task's program.
  Sign expr(const ir::Expr& e) const;
  /// A one-line justification of expr(e) for facts and reasoning text, e.g. "exp(...) is positive",
  /// "D is declared positive", "N is a sum of positive terms (exp) from 0", "1 is a positive literal".
  std::string evidence(const ir::Expr& e) const;

 private:
  std::map<std::string, Sign, std::less<>> buf_;
  std::map<std::string, std::string, std::less<>> why_;
};

/// The analysis of `t`, memoised per thread on the printed program and known table (like typed_task).
std::shared_ptr<const SignAnalysis> task_signs(const ir::Task& t);

}  // namespace steptp::strategy::analysis
