// The `random` policy (DATASET.md §9.3): a strategy drawn uniformly among those with at least one enumerated site
// at the prompt's program, then a site and a parameter tuple drawn uniformly, all from the named stream
// derive(seed, "policy", prompt sha256, sample) (§11). For an n >= 2 prompt it draws until it holds n distinct
// programs or 20·n draws are spent. Draws whose apply fails are redrawn. The reply is the answer block alone,
// "<answer>{...}</answer>" (no think block): a floor that any trained model should beat.
#pragma once
#include <cstdint>

#include "policy/policy.hpp"

namespace steptp::policy {

class RandomPolicy : public Policy {
 public:
  explicit RandomPolicy(std::uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "random"; }
  /// Needs p.task; throws PolicyError("policy_error") without it. A program with no applicable strategy gives
  /// Reply::none.
  Reply reply(const Prompt& p, int sample) override;

 private:
  std::uint64_t seed_;
};

}  // namespace steptp::policy
