// Rounding allowance of LEIR.md §11 step 4b (declared in equiv/compare.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "equiv/compare.hpp"

namespace steptp::equiv {

namespace {

/// Per-element errors |rounded_i - exact_i| (0 where a value is not finite) and their RMS over the finite pairs
/// that rounding changed (e_i > 0): an element the original computes exactly (a clamp's bound, a copy) is no
/// evidence of the output's error level, and counting it would shrink ρ where most of an output saturates.
double rounding_errors(const std::vector<double>& rounded, const std::vector<double>& exact, std::vector<double>& err) {
  if (rounded.size() != exact.size())
    throw std::invalid_argument("rounding_allowance: " + std::to_string(rounded.size()) + " rounded values but " +
                                std::to_string(exact.size()) + " exact ones");
  err.assign(rounded.size(), 0.0);
  double peak = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < err.size(); ++i) {
    if (!std::isfinite(rounded[i]) || !std::isfinite(exact[i])) continue;
    err[i] = std::fabs(rounded[i] - exact[i]);
    peak = std::max(peak, err[i]);
    if (err[i] > 0) ++n;
  }
  // RMS scaled by the peak, so that squares of errors near the top of the f64 range cannot overflow.
  double sum_sq = 0;
  if (peak > 0)
    for (std::size_t i = 0; i < err.size(); ++i) sum_sq += (err[i] / peak) * (err[i] / peak);
  return n && peak > 0 ? peak * std::sqrt(sum_sq / static_cast<double>(n)) : 0.0;
}

}  // namespace

std::vector<double> rounding_allowance(const std::vector<double>& rounded, const std::vector<double>& exact) {
  std::vector<double> err;
  const double rho = rounding_errors(rounded, exact, err);
  for (std::size_t i = 0; i < err.size(); ++i)
    if (std::isfinite(rounded[i]) && std::isfinite(exact[i]))
      err[i] = kRoundingAllowanceFactor * std::max(err[i], rho);
  return err;
}

double rounding_level(const std::vector<double>& rounded, const std::vector<double>& exact) {
  std::vector<double> err;
  return kRoundingAllowanceFactor * rounding_errors(rounded, exact, err);
}

}  // namespace steptp::equiv
