#include "policy/random_policy.hpp"

#include <set>

#include "ir/canon.hpp"
#include "base/hash.hpp"
#include "base/json_text.hpp"
#include "step/prompt.hpp"
#include "base/rng.hpp"
#include "ir/printer.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::policy {

Reply RandomPolicy::reply(const Prompt& p, int sample) {
  if (!p.task) throw PolicyError("policy_error", "the random policy needs the prompt's program (prompt " + p.id + ")", true);
  core::Rng rng(core::derive(seed_, "policy", {p.sha256(), std::to_string(sample)}));
  // Strategies with at least one enumerated site, in registry order.
  const auto legal = strategy::locked_legal_sites(*p.task);
  Reply r;
  r.finish_reason = "stop";
  if (legal.empty()) {
    r.none = true;
    return r;
  }
  const int want = std::max(1, p.n);
  std::set<std::string> seen{core::alpha_canonical(*p.task)};
  core::ojson answers = core::ojson::array();
  for (int draw = 0; draw < 20 * want && int(answers.size()) < want; ++draw) {
    const auto& [s, sites] = legal[rng.below(legal.size())];
    const auto& site = sites[rng.below(sites.size())];
    strategy::Candidate c;
    c.strategy = std::string(s->name);
    c.ref = site.ref;
    try {
      c.params = site.params.at(rng.below(site.params.size()));
      strategy::Applied ap = strategy::locked_apply(*s, *p.task, c);
      if (!seen.insert(core::alpha_canonical(ap.task)).second) continue;
      answers.push_back(core::answer_object(c.strategy, ir::print_program(ap.task.program)));
      r.candidates.push_back(c.id());
    } catch (const std::exception&) {
      continue;
    }
  }
  if (answers.empty()) {
    r.none = true;
    return r;
  }
  r.content = "<answer>" + core::dump_py(p.n <= 1 ? answers[0] : answers) + "</answer>";
  return r;
}

}  // namespace steptp::policy
