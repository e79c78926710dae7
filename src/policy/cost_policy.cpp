#include "policy/cost_policy.hpp"

#include <algorithm>
#include <set>

#include "core/canon.hpp"
#include "core/json_text.hpp"
#include "core/prompt.hpp"
#include "ir/printer.hpp"
#include "policy/cost/analytical.hpp"
#include "policy/cost/model.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::policy {
namespace {

class CostPolicy : public Policy {
 public:
  CostPolicy(std::unique_ptr<cost::CostModel> model, int enum_limit, const strategy::StrategyInfo* lookahead)
      : model_(std::move(model)), limit_(std::max(1, enum_limit)), lookahead_(lookahead) {}
  std::string name() const override { return "cost"; }

  Reply reply(const Prompt& p, int /*sample*/) override {
    if (!p.task)
      throw PolicyError("policy_error", "the cost policy needs the prompt's program (prompt " + p.id + ")", true);
    // Candidates per strategy (registry order), then round-robin so that one strategy's large parameter space
    // does not fill the limit.
    std::vector<std::vector<strategy::Candidate>> per;
    for (const auto& [s, sites] : strategy::locked_legal_sites(*p.task)) {
      std::vector<strategy::Candidate> cs;
      for (const auto& site : sites)
        for (std::uint64_t k = 0; k < site.params.size() && int(cs.size()) < limit_; ++k) {
          try {
            cs.push_back(strategy::Candidate{std::string(s->name), site.ref, site.params.at(k)});
          } catch (const std::exception&) {
            continue;
          }
        }
      if (!cs.empty()) per.push_back(std::move(cs));
    }
    struct Scored {
      double score;  // with the lookahead: min(own, best child)
      double own;
      std::size_t order;
      std::string id, strategy, leir;
    };
    std::vector<Scored> scored;
    std::set<std::string> seen{core::alpha_canonical(*p.task)};
    std::size_t taken = 0;
    for (std::size_t round = 0; taken < std::size_t(limit_); ++round) {
      bool any = false;
      for (const auto& cs : per) {
        if (round >= cs.size() || taken >= std::size_t(limit_)) continue;
        any = true;
        ++taken;
        const strategy::Candidate& c = cs[round];
        try {
          strategy::Applied ap = strategy::locked_apply(*strategy::find(c.strategy), *p.task, c);
          const std::string canon = core::alpha_canonical(ap.task);
          if (!seen.insert(canon).second || (p.seen && p.seen(canon))) continue;
          const double own = model_->score(ap.task);
          scored.push_back({lookahead_score(ap.task, own), own, scored.size(), c.id(), c.strategy,
                            ir::print_program(ap.task.program)});
        } catch (const std::exception&) {
          continue;
        }
      }
      if (!any) break;
    }
    // Ties of the lookahead score (every reorder of a nest reaches the same best order) go to the better own score.
    std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
      return a.score != b.score ? a.score < b.score : a.own < b.own;
    });
    Reply r;
    r.finish_reason = "stop";
    const std::size_t want = std::size_t(std::max(1, p.n));
    if (scored.empty()) {
      r.none = true;
      return r;
    }
    core::ojson answers = core::ojson::array();
    for (std::size_t i = 0; i < scored.size() && i < want; ++i) {
      answers.push_back(core::answer_object(scored[i].strategy, scored[i].leir));
      r.candidates.push_back(scored[i].id);
    }
    r.content = "<answer>" + core::dump_py(p.n <= 1 ? answers[0] : answers) + "</answer>";
    return r;
  }

 private:
  /// A gain one step later counts only when it beats the candidate's own score by this factor, so that a
  /// candidate that realises the gain now is preferred to one that postpones it (at the transposed program of the
  /// example above, the loop_reorder itself rather than a fusion whose reordered child is a little better).
  /// Scores are predicted log2 seconds, so the factor 1.25 is an added log2(1.25).
  static constexpr double kLookaheadMarginLog2 = 0.321928;  // log2(1.25)

  /// min(own, score of every child of `t` by the lookahead strategy + kLookaheadMarginLog2); `own` without one.
  double lookahead_score(const ir::Task& t, double own) const {
    if (!lookahead_) return own;
    double best = own;
    std::vector<strategy::Site> sites;
    try {
      sites = strategy::locked_enumerate(*lookahead_, t);
    } catch (const std::exception&) {
      return own;
    }
    for (const auto& site : sites)
      for (std::uint64_t k = 0; k < site.params.size(); ++k) {
        try {
          const strategy::Candidate c{std::string(lookahead_->name), site.ref, site.params.at(k)};
          const strategy::Applied child = strategy::locked_apply(*lookahead_, t, c);
          best = std::min(best, kLookaheadMarginLog2 + model_->score(child.task));
        } catch (const std::exception&) {
          continue;
        }
      }
    return best;
  }

  std::unique_ptr<cost::CostModel> model_;
  int limit_;
  const strategy::StrategyInfo* lookahead_;  // null: no lookahead
};

}  // namespace

std::unique_ptr<Policy> make_cost_policy(const std::string& model, int enum_limit, int threads,
                                         const std::string& lookahead) {
  const strategy::StrategyInfo* la = nullptr;
  if (lookahead != "none") {
    la = strategy::find(lookahead);
    if (!la)
      throw std::runtime_error("unknown lookahead strategy '" + lookahead +
                               "' (see `steptp strategies list`, or none)");
  }
  if (model == "analytical")
    return std::make_unique<CostPolicy>(cost::make_analytical_model(cost::MachineModel::detect(threads)), enum_limit,
                                        la);
  return std::make_unique<CostPolicy>(cost::load_cost_model(model), enum_limit, la);
}

}  // namespace steptp::policy
