// The `cost` policy (DATASET.md §9.3): enumerate the legal one-step candidates of the prompt's program (every
// registered strategy's sites × parameter tuples, taken round-robin across strategies up to `enum_limit`), apply
// each, drop those whose result the search has already seen (Prompt::seen) or that repeat another candidate's
// program, score the rest with a cost model (policy/cost/model.hpp: the analytical model, or a learned model file)
// and propose the k best (lowest predicted latency; ties in enumeration order). The reply is the answer block
// alone, with the candidate ids in Reply::candidates. Deterministic: the same program and seen-set give the same
// reply, whatever the sample index.
#pragma once
#include <memory>
#include <string>

#include "policy/policy.hpp"

namespace steptp::policy {

/// `model`: "analytical" (assuming `threads` threads) or the path of a model file written by `steptp cost-model
/// train`. Throws std::runtime_error naming the file when the model cannot be loaded.
std::unique_ptr<Policy> make_cost_policy(const std::string& model, int enum_limit, int threads);

}  // namespace steptp::policy
