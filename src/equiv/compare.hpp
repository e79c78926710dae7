// Element comparison of LEIR.md §11 step 4, shared by equivalence checking and the lowering checks
// (runtime/lower_check): two NaNs match, two equal infinities match, a NaN on one side only is a mismatch;
// otherwise float elements match iff |a−b| ≤ atol + rtol·|b| (per-dtype tolerances, scaled) + the rounding
// allowance of step 4b (0 unless the comparison involves arithmetic in reduced precision), and integer and bool
// elements must be equal.
#pragma once
#include <cmath>
#include <vector>

#include "ir/dtype.hpp"

namespace steptp::equiv {

/// Per-dtype (rtol, atol) of §11: f64 1e-9/1e-12, f32 1e-4/1e-5, f16/bf16 1e-2/1e-3, others 0/0.
inline std::pair<double, double> element_tolerance(ir::DType t) {
  switch (t) {
    case ir::DType::F64: return {1e-9, 1e-12};
    case ir::DType::F32: return {1e-4, 1e-5};
    case ir::DType::F16:
    case ir::DType::BF16: return {1e-2, 1e-3};
    default: return {0.0, 0.0};
  }
}

/// Does candidate element `a` match original element `b` of dtype `t`? `allowance` (absolute, >= 0) is the
/// rounding allowance of §11 step 4b for this element (rounding_allowance), 0 for comparisons in f64.
inline bool elements_match(double a, double b, ir::DType t, double tol_scale = 1.0, double allowance = 0.0) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na && nb;
  if (std::isinf(a) || std::isinf(b)) return a == b;
  if (!ir::is_float(t)) return a == b;
  const auto [rtol, atol] = element_tolerance(t);
  return std::fabs(a - b) <= tol_scale * (atol + rtol * std::fabs(b)) + allowance;
}

/// κ of LEIR.md §11 step 4b: how many times the original's own rounding error a difference may reach.
inline constexpr double kRoundingAllowanceFactor = 4.0;

/// Rounding allowance of LEIR.md §11 step 4b for one output. `rounded` is the original's output computed in its
/// declared types (a typed interpreter run, compiled code, or a framework's f32 result), `exact` the same output
/// of the same program on the same inputs computed in f64 (an untyped interpreter run); both hold n elements in
/// row-major order. Element i gets κ·max(e_i, ρ) where e_i = |rounded_i − exact_i| and ρ is the root mean square
/// of e over the finite pairs with e_i > 0 (an element computed exactly, such as a clamp's bound, says nothing of
/// the error level): e_i is the error rounding caused at i, and ρ the error level of the whole output —
/// an element that ends near zero after a long sum (cancellation) has a large error relative to itself but not
/// relative to the sum of |terms| it accumulated, which ρ reflects. Non-finite pairs get 0. Sizes must match
/// (throws std::invalid_argument otherwise). Units: those of the output's values.
std::vector<double> rounding_allowance(const std::vector<double>& rounded, const std::vector<double>& exact);

/// κ·ρ of rounding_allowance: the rounding error level of a whole output (0 when no pair is finite). The
/// equivalence checker's typed runs allow a candidate this much of its own rounding besides the original's
/// allowance: a class-R rewrite changes the rounding points (STRATEGIES.md §6), so where the original happens to
/// be exact (a copy) the candidate's reassociated sum still rounds. Sizes must match (std::invalid_argument).
double rounding_level(const std::vector<double>& rounded, const std::vector<double>& exact);

}  // namespace steptp::equiv
