// The guided draws' judging (LEIR.md §11 step 7.4 and its tie check; used by equiv/phase_guided.cpp). A
// coverage-guided search also finds the inputs where a legitimate class-R rewrite rounds differently
// (cancellations), so a guided draw counts only on a gross difference (gross_mismatch). And input-to- state
// replacement copies a value one program computes into an input it is compared with; where the two programs round
// that value differently, the comparison ties, a class-R effect: so a mutated draw's difference must also show on
// one of two copies of the draw whose float inputs are moved up, or down, by a few f64 ulps (perturb_float_inputs),
// the tie check.
#include <algorithm>
#include <cmath>

#include "equiv/compare.hpp"
#include "equiv/context.hpp"
#include "interp/splitmix64.hpp"

namespace steptp::equiv::detail {

Gross gross_mismatch(const ir::Task& task, const TensorMap& b, const TensorMap& a, bool exact) {
  Gross g = Gross::No;
  for (const auto& k : task.known) {
    if (k.role != ir::Role::Output) continue;
    const auto &vb = b.at(k.name).data, &va = a.at(k.name).data;
    for (std::size_t e = 0; e < vb.size(); ++e) {
      const double x = va[e], y = vb[e];
      if (std::isnan(x) != std::isnan(y)) return Gross::NaN;
      if (exact && !same_value(x, y)) g = Gross::Yes;
      if (std::isnan(x) || elements_match(x, y, k.dtype)) continue;
      if (std::isinf(x) || std::isinf(y) || std::fabs(x - y) > 0x1.0p-4 * std::max(std::fabs(x), std::fabs(y)))
        g = Gross::Yes;
    }
  }
  return g;
}

Shows shows(Context& c, const TensorMap& x, const interp::RunOptions& o) {
  TensorMap xb, xa;
  try {
    xb = c.A->run(x, o);
  } catch (const std::exception&) {
    c.done_before += c.A->last_steps();
    return Shows::OriginalFails;
  }
  c.done_before += c.A->last_steps();
  try {
    xa = c.B->run(x, o);
  } catch (const std::exception&) {
    c.done_before += c.B->last_steps();
    return Shows::CandidateFails;
  }
  c.done_before += c.B->last_steps();
  return gross_mismatch(c.original, xb, xa, c.opt.exact) != Gross::No ? Shows::Yes : Shows::No;
}

bool survives_tie_check(Context& c, const TensorMap& in, const std::map<std::string, InputDomain>& domains,
                        std::uint64_t seed, std::int64_t guided, const interp::RunOptions& where) {
  steptp_num::SplitMix64 pg{(std::uint64_t{3} << 60) + seed * 4096 + static_cast<std::uint64_t>(guided)};
  // A copy on which a program fails counts as showing it: no evidence against the difference.
  for (const bool up : {true, false})
    if (shows(c, perturb_float_inputs(in, domains, c.literals, up, pg), where) != Shows::No) return true;
  return false;
}

}  // namespace steptp::equiv::detail
