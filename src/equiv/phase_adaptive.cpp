// Phase "adaptive" of the equivalence check (LEIR.md §11 step 7.1; Options::Adaptive): where a comparison, clamp or
// bool reduction saturates, the draws say little about an output element. So when every draw passed but some element
// of the original took fewer than 3 distinct values over them, up to Options::Adaptive::extra_seeds further seeds
// (the first after `seeds`) are drawn with every distribution of the further draws (`dists`, and S), stopping at the
// first mismatch, within the check's own work so far or kAdaptiveMinBudget statement executions, whichever is
// larger.
#include <algorithm>
#include <cstring>

#include "equiv/context.hpp"

namespace steptp::equiv::detail {

void track(Context& c, const TensorMap& ob) {
  if (c.opt.adaptive.extra_seeds == 0) return;  // off: nothing to count
  std::size_t o = 0;
  for (const auto& k : c.original.known) {
    if (k.role != ir::Role::Output) continue;
    const auto& d = ob.at(k.name).data;
    if (o == c.first_value.size()) {
      c.first_value.push_back(d);
      c.second_value.push_back(d);
      c.varied.emplace_back(d.size(), 1);
    } else {
      for (std::size_t e = 0; e < d.size(); ++e) {
        char& n = c.varied[o][e];
        if (n >= 3 || std::memcmp(&d[e], &c.first_value[o][e], sizeof(double)) == 0) continue;
        if (n == 1) {
          c.second_value[o][e] = d[e];
          n = 2;
        } else if (std::memcmp(&d[e], &c.second_value[o][e], sizeof(double)) != 0) {
          n = 3;
        }
      }
    }
    ++o;
  }
}

namespace {

/// Did some output element of the original take fewer than 3 distinct values?
bool insensitive(const Context& c) {
  for (const auto& v : c.varied)
    if (std::any_of(v.begin(), v.end(), [](char n) { return n < 3; })) return true;
  return false;
}

}  // namespace

bool phase_adaptive(Context& c) {
  const Options& opt = c.opt;
  if (!c.passing() || opt.adaptive.extra_seeds == 0 || opt.seeds.empty() || !insensitive(c)) return true;
  // The extension at most doubles the check's work, or spends kAdaptiveMinBudget statement executions.
  const std::uint64_t per_seed = std::max<std::uint64_t>(1, c.done_before / c.draws) * c.further.size();
  const std::uint64_t affordable = std::max<std::uint64_t>(c.done_before, kAdaptiveMinBudget) / per_seed;
  const std::uint64_t extra = std::min<std::uint64_t>(opt.adaptive.extra_seeds, affordable);
  for (std::uint64_t i = 0; i < extra && c.passing(); ++i, ++c.next) {
    for (Distribution dist : c.further)
      if (!run_draw(c, c.next, dist)) return false;
    ++c.r.extra_seeds;
  }
  if (c.r.extra_seeds)
    c.note(std::to_string(c.r.extra_seeds) + " added" + c.with_s + ": an output element took < 3 distinct values");
  return true;
}

}  // namespace steptp::equiv::detail
