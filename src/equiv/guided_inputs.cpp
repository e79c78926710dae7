// Coverage features and draw mutation of the guided draws (equiv/guided.hpp).
#include <algorithm>
#include <cmath>

#include "equiv/guided.hpp"

namespace steptp::equiv {

using steptp_num::SplitMix64;

int hit_bucket(std::uint32_t count) {
  if (count == 0) return -1;
  if (count <= 3) return static_cast<int>(count) - 1;
  if (count < 8) return 3;
  if (count < 16) return 4;
  if (count < 32) return 5;
  return count < 128 ? 6 : 7;
}

std::size_t CoverageMap::add(const std::vector<std::uint32_t>& counts) {
  if (seen_.size() < counts.size()) seen_.resize(counts.size(), 0);
  std::size_t fresh = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const int b = hit_bucket(counts[k]);
    if (b < 0) continue;
    const auto bit = static_cast<std::uint8_t>(1u << b);
    if (seen_[k] & bit) continue;
    seen_[k] |= bit;
    ++fresh;
  }
  features_ += fresh;
  return fresh;
}

namespace {

std::size_t guided_pick(SplitMix64& g, std::size_t n) {
  return static_cast<std::size_t>(g.u01() * static_cast<double>(n)) % n;
}

/// One edit of buffer `t` (domain `d`); `donor` is the same buffer of another kept draw.
void edit_buffer(Tensor& t, const Tensor& donor, const InputDomain& d, const std::vector<double>& literals, SplitMix64& g) {
  auto& x = t.data;
  if (x.empty()) return;
  const bool is_float = ir::is_float(d.dtype);
  const std::size_t e = guided_pick(g, x.size());
  const int op = static_cast<int>(guided_pick(g, 12));
  if (d.dtype == ir::DType::Bool) {
    switch (op % 4) {
      case 0: x[e] = x[e] != 0.0 ? 0.0 : 1.0; break;
      case 1: std::fill(x.begin(), x.end(), g.u01() < 0.5 ? 1.0 : 0.0); break;
      case 2: x[e] = x[guided_pick(g, x.size())]; break;
      default: x = donor.data; break;
    }
    return;
  }
  switch (op) {
    case 0:
    case 1:
    case 11: {  // a literal magnitude, nudged
      const double c = literals.empty() ? 1.0 : literals[guided_pick(g, literals.size())];
      const double sign = g.u01() < 0.5 ? -1.0 : 1.0;
      const double u = g.u01();
      const int nudge = u < 0.5 ? 0 : u < 0.75 ? -1 : 1;
      x[e] = is_float ? sign * c * (1.0 + nudge * 0x1.0p-5) : sign * c + nudge;
      break;
    }
    case 2: x[e] = 0.0; break;
    case 3: x[e] = x[guided_pick(g, x.size())]; break;
    case 4: x[e] = -x[e]; break;
    case 5:
      if (is_float) x[e] *= std::exp2(static_cast<double>(guided_pick(g, 49)) - 24.0);
      else x[e] += static_cast<double>(guided_pick(g, 17)) - 8.0;
      break;
    case 6:
      x[e] = is_float ? (g.u01() < 0.5 ? g.normal() : (g.u01() < 0.5 ? -1.0 : 1.0) * std::exp2(10.0 * g.u01() - 4.0))
                      : std::floor(33.0 * g.u01()) - 16.0;
      break;
    case 7: for (double& v : x) v = std::fabs(v); break;
    case 8: for (double& v : x) v = -std::fabs(v); break;
    case 9: std::fill(x.begin(), x.end(), x[e]); break;
    default: x = donor.data; break;  // 10
  }
}

/// The value b of a logged comparison a vs b, nudged so that a strict comparison is met from either side.
double nudged(double b, bool is_float, SplitMix64& g) {
  const double u = g.u01();
  if (!is_float) return u < 0.5 ? b : u < 0.75 ? b - 1 : b + 1;
  static const double kFactor[] = {1.0, 1.0, 1.0 - 0x1.0p-10, 1.0 + 0x1.0p-10, 1.0 - 0x1.0p-5, 1.0 + 0x1.0p-5};
  return b * kFactor[guided_pick(g, 6)];
}

/// REDQUEEN's input-to-state replacement from one logged comparison (a, b): elements equal to a become b (all of
/// them or one), or, where none is, one element is scaled or shifted by the comparison's gap. False when nothing
/// applied (no finite pair, or no element to change).
bool input_to_state(TensorMap& child, const std::map<std::string, InputDomain>& domains,
                    const std::vector<std::pair<double, double>>& operands, SplitMix64& g) {
  auto [a, b] = operands[guided_pick(g, operands.size())];
  if (g.u01() < 0.5) std::swap(a, b);
  if (!std::isfinite(a) || !std::isfinite(b) || a == b) return false;
  std::vector<std::pair<Tensor*, std::size_t>> equal, any;
  for (const auto& [name, d] : domains) {
    auto it = child.find(name);
    if (it == child.end() || d.dtype == ir::DType::Bool) continue;
    auto& x = it->second.data;
    for (std::size_t e = 0; e < x.size(); ++e) {
      if (x[e] == a) equal.emplace_back(&it->second, e);
      else if (x[e] != 0.0 && ir::is_float(d.dtype) && d.gather == 0) any.emplace_back(&it->second, e);
    }
  }
  if (!equal.empty()) {
    const bool all = g.u01() < 0.5;
    const std::size_t one = guided_pick(g, equal.size());
    for (std::size_t k = 0; k < equal.size(); ++k)
      if (all || k == one) equal[k].first->data[equal[k].second] = nudged(b, ir::is_float(equal[k].first->dtype), g);
    return true;
  }
  if (any.empty()) return false;
  auto [t, e] = any[guided_pick(g, any.size())];
  double& v = t->data[e];
  v = nudged(g.u01() < 0.5 && a != 0.0 ? v * (b / a) : v + (b - a), true, g);
  return true;
}

}  // namespace

TensorMap mutate_inputs(const TensorMap& parent, const TensorMap& donor,
                        const std::map<std::string, InputDomain>& domains, const std::vector<double>& literals,
                        const std::vector<std::pair<double, double>>& operands, SplitMix64& g) {
  TensorMap child = parent;
  if (domains.empty()) return child;
  // Half the mutations start with an input-to-state replacement (nothing else when it applies, half the time).
  if (!operands.empty() && g.u01() < 0.5 && input_to_state(child, domains, operands, g)) {
    for (const auto& [name, d] : domains) {
      auto it = child.find(name);
      if (it != child.end())
        for (double& v : it->second.data) v = conform_input(v, d);
    }
    if (g.u01() < 0.5) return child;
  }
  int edits = 1;  // 1 + a geometric count (mean 2): small inputs keep most of a parent's progress
  while (edits < 8 && g.u01() < 0.5) ++edits;
  for (int k = 0; k < edits; ++k) {
    auto it = domains.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(guided_pick(g, domains.size())));
    auto ct = child.find(it->first);
    auto dt = donor.find(it->first);
    if (ct == child.end() || dt == donor.end() || dt->second.data.size() != ct->second.data.size()) continue;
    edit_buffer(ct->second, dt->second, it->second, literals, g);
    for (double& v : ct->second.data) v = conform_input(v, it->second);
  }
  return child;
}

TensorMap perturb_float_inputs(const TensorMap& in, const std::map<std::string, InputDomain>& domains,
                               const std::vector<double>& literals, bool up, SplitMix64& g) {
  TensorMap out = in;
  for (const auto& [name, d] : domains) {
    auto it = out.find(name);
    if (it == out.end() || !ir::is_float(d.dtype) || d.gather > 0) continue;
    std::vector<double> kept;  // the literal magnitudes as this buffer holds them
    for (double l : literals) kept.push_back(std::fabs(conform_input(l, d)));
    for (double& v : it->second.data) {
      if (!std::isfinite(v) || v == std::trunc(v) || std::find(kept.begin(), kept.end(), std::fabs(v)) != kept.end())
        continue;
      int e = 0;
      std::frexp(v, &e);  // |v| = m * 2^e, m in [0.5, 1): an f64 ulp of v is 2^(e - 53)
      const double k = 1.0 + static_cast<double>(guided_pick(g, kTiePerturbUlps));
      v = conform_input(v + (up ? k : -k) * std::ldexp(1.0, e - 53), d);
    }
  }
  return out;
}

}  // namespace steptp::equiv
