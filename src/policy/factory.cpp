#include "policy/factory.hpp"

#include "policy/cost_policy.hpp"
#include "policy/random_policy.hpp"
#include "policy/replay.hpp"

namespace steptp::policy {

std::unique_ptr<Policy> make_policy(const PolicySpec& spec, core::Cache* cache, const std::string& allowed,
                                    LlmPolicy** llm_out) {
  if (llm_out) *llm_out = nullptr;
  const std::string list = ", " + allowed + ",";
  if (list.find(", " + spec.name + ",") == std::string::npos)
    throw PolicySpecError("unknown policy '" + spec.name + "' (" + allowed + ")");
  if (spec.name == "llm") {
    auto p = std::make_unique<LlmPolicy>(spec.llm, cache);
    if (llm_out) *llm_out = p.get();
    return p;
  }
  if (spec.name == "replay") {
    if (spec.replay_file.empty()) throw PolicySpecError("--policy replay needs --replay FILE");
    try {
      return std::make_unique<ReplayPolicy>(spec.replay_file);
    } catch (const std::exception& e) {
      throw PolicySpecError(e.what());
    }
  }
  if (spec.name == "random") return std::make_unique<RandomPolicy>(spec.seed);
  try {
    return make_cost_policy(spec.cost_model, spec.enum_limit, spec.threads, spec.lookahead, spec.sketch,
                            spec.measure_guided);
  } catch (const std::exception& e) {
    throw PolicySpecError(e.what());
  }
}

}  // namespace steptp::policy
