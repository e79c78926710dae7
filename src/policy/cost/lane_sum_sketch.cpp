#include "policy/cost/lane_sum_sketch.hpp"

#include <algorithm>
#include <string>

#include "strategies/registry.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::policy::cost {
namespace {

bool has_lanes(const strategy::Params& ps) {
  return std::any_of(ps.begin(), ps.end(), [](const strategy::Param& p) { return p.name == "lanes"; });
}

/// The best lanes step from `t` (score in `out_score`), or nullopt.
std::optional<PlanStep> best_lanes_step(const strategy::StrategyInfo& rf, const ir::Task& t,
                                        const std::function<double(const ir::Task&)>& score, double& out_score) {
  std::optional<PlanStep> best;
  std::vector<strategy::Site> sites;
  try {
    sites = rf.enumerate(t);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  for (const auto& site : sites)
    // the lanes tuples come first in a site's parameter space (reduction_factorization.cpp)
    for (std::uint64_t k = 0; k < site.params.size(); ++k) {
      strategy::Candidate c{std::string(rf.name), site.ref, site.params.at(k)};
      if (!has_lanes(c.params)) break;
      try {
        strategy::Applied a = strategy::locked_apply(rf, t, c);
        const double s = score(a.task);
        if (!best || s < out_score) {
          out_score = s;
          best = PlanStep{std::move(c), std::move(a.task)};
        }
      } catch (const std::exception&) {
      }
    }
  return best;
}

}  // namespace

std::optional<Plan> lane_sum_plan(const ir::Task& t, const std::function<double(const ir::Task&)>& score) {
  const strategy::StrategyInfo* rf = strategy::find("reduction_factorization");
  if (!rf) return std::nullopt;
  double cur;
  try {
    cur = score(t);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  Plan plan;
  const ir::Task* at = &t;
  for (int i = 0; i < kLaneSumMaxSteps; ++i) {
    double s = 0;
    std::optional<PlanStep> step = best_lanes_step(*rf, *at, score, s);
    if (!step || !(s + kLaneSumMinGainLog2 <= cur)) break;
    cur = s;
    plan.steps.push_back(std::move(*step));
    at = &plan.steps.back().after;
  }
  if (plan.steps.empty()) return std::nullopt;
  plan.score = cur;
  plan.label = "lane partial sums of " + std::to_string(plan.steps.size()) + " reduction" +
               (plan.steps.size() == 1 ? "" : "s");
  return plan;
}

}  // namespace steptp::policy::cost
