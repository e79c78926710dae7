// Element comparison of LEIR.md §11 step 4, shared by equivalence checking and the lowering checks
// (runtime/lower_check): two NaNs match, two equal infinities match, a NaN on one side only is a mismatch;
// otherwise float elements match iff |a−b| ≤ atol + rtol·|b| (per-dtype tolerances, scaled), and integer and
// bool elements must be equal.
#pragma once
#include <cmath>

#include "ir/dtype.hpp"

namespace steptp::interp {

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

/// Does candidate element `a` match original element `b` of dtype `t`?
inline bool elements_match(double a, double b, ir::DType t, double tol_scale = 1.0) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na && nb;
  if (std::isinf(a) || std::isinf(b)) return a == b;
  if (!ir::is_float(t)) return a == b;
  const auto [rtol, atol] = element_tolerance(t);
  return std::fabs(a - b) <= tol_scale * (atol + rtol * std::fabs(b));
}

}  // namespace steptp::interp
