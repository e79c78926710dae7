// The parts of the equivalence check's interface that are not a phase: tolerances, K's value set for two programs,
// draw labels and the verdict's JSON (equiv/equivalence.hpp).
#include <algorithm>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "equiv/compare.hpp"
#include "equiv/context.hpp"
#include "equiv/equivalence.hpp"

namespace steptp::equiv {

std::pair<double, double> tolerance(ir::DType t) { return element_tolerance(t); }

std::vector<double> comparison_literals(const ir::Program& original, const ir::Program& candidate) {
  const std::vector<double> a = literal_magnitudes(original), b = literal_magnitudes(candidate);
  std::vector<double> all, only;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all));
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
  const std::size_t n = all.size();
  for (std::size_t i = 0; i < n && !only.empty(); ++i) all.push_back(only[i % only.size()]);
  return all;
}

std::string draw_label(const ErrLocation& at) {
  using detail::fmt_num;
  std::string s = at.guided >= 0 ? "guided draw " + std::to_string(at.guided) + " of seed " + std::to_string(at.seed)
                                  : "seed " + std::to_string(at.seed) + ", " + distribution_name(at.dist);
  if (at.guided < 0 && at.t >= 0) s += std::string("->") + distribution_name(at.to) + " at t=" + fmt_num(at.t);
  if (at.clamped > 0) s += ", float inputs clamped to " + fmt_num(at.clamped);
  return s;
}

std::string Result::to_json() const {
  auto loc = [](const ErrLocation& l) {
    nlohmann::json j{{"output", l.output}, {"index", l.index}, {"seed", l.seed},
                     {"dist", distribution_name(l.dist)}, {"candidate", l.a}, {"original", l.b}};
    if (l.t >= 0) {
      j["to"] = distribution_name(l.to);
      j["t"] = l.t;
    }
    if (l.guided >= 0) {
      j.erase("dist");
      j["guided"] = l.guided;
    }
    if (l.typed) j["typed"] = true;
    if (l.clamped > 0) j["clamped"] = l.clamped;
    return j;
  };
  nlohmann::json j{{"equivalent", equivalent},
                   {"code", code},
                   {"message", message},
                   {"max_abs_err", max_abs_err},
                   {"max_rel_err", max_rel_err},
                   {"max_abs_at", loc(max_abs_at)},
                   {"max_rel_at", loc(max_rel_at)},
                   {"first_mismatch", has_mismatch ? loc(first_mismatch) : nlohmann::json(nullptr)},
                   {"extra_seeds", extra_seeds},
                   {"boundary_pairs", boundary_pairs},
                   {"guided_inputs", guided_inputs},
                   {"guided_kept", guided_kept}};
  return j.dump();
}

}  // namespace steptp::equiv
