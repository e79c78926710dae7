// One place that turns a policy name and its flags into a Policy (DATASET.md §9.3), shared by `steptp eval` and
// `steptp search`.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "step/cache.hpp"
#include "policy/llm_client.hpp"
#include "policy/policy.hpp"

namespace steptp::policy {

struct PolicySpec {
  std::string name = "random";      // llm | replay | random | cost
  LlmConfig llm;                    // llm
  std::string replay_file;          // replay
  std::uint64_t seed = 0;           // random
  std::string cost_model = "analytical";  // cost: "analytical" or a model file of `steptp cost-model train`
  int enum_limit = 256;             // cost: candidates enumerated and scored per request
  int threads = 1;                  // cost: threads the analytical model assumes
  std::string lookahead = "loop_reorder";  // cost: strategy of the one-step lookahead, or "none" (cost_policy.hpp)
  std::string sketch = "register_block";   // cost: multi-step plans, "register_block" or "none" (cost_policy.hpp)
  bool measure_guided = false;             // cost: measure the 2k best candidates, propose the k fastest
};

/// Bad policy flags (unknown name, unreadable replay file or model file). The CLI prints it as one line, exit 2.
class PolicySpecError : public Error {
 public:
  explicit PolicySpecError(const std::string& msg) : Error(Code::UncodedInput, msg) {}
};

/// Builds the policy. `cache` backs the llm policy's llm_calls table (may be null). `llm_out`, when given, receives
/// the LlmPolicy (for its request counters) or nullptr. `allowed` lists the names the caller supports ("llm,
/// replay, random" for eval). Throws PolicySpecError, or PolicyError(fatal) for a bad llm configuration.
std::unique_ptr<Policy> make_policy(const PolicySpec& spec, core::Cache* cache, const std::string& allowed,
                                    LlmPolicy** llm_out = nullptr);

}  // namespace steptp::policy
