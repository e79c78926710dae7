// The `cost` policy (DATASET.md §9.3): enumerate the legal one-step candidates of the prompt's program (every
// registered strategy's sites × parameter tuples, taken round-robin across strategies up to `enum_limit`), apply
// each, drop those whose result the search has already seen (Prompt::seen) or that repeat another candidate's
// program, score the rest with a cost model (policy/cost/model.hpp: the analytical model, or a learned model file)
// and propose the k best (lowest predicted latency; ties in enumeration order). The reply is the answer block
// alone, with the candidate ids in Reply::candidates. Deterministic: the same program and seen-set give the same
// reply, whatever the sample index.
//
// Lookahead (a steptp addition to §9.3): with `lookahead` naming a strategy (default loop_reorder), a candidate is
// scored by the better of its own predicted latency and 1.25 x that of its best child by that strategy (every legal
// site and parameter tuple of the lookahead strategy at the candidate, applied and scored; the margin makes a
// candidate that realises a gain now win over one that postpones it). A layout change
// (layout_transformation, set_storage_layout, cache_read_write) or a split often pays off only together with the
// loop order that walks the new layout unit-stride: `x @ W^T` needs W transposed and then the i-k-j order, and the
// transposition alone is slower. A one-step ranking never proposes such an enabling step; this makes it rank it by
// what it enables; ties go to the better own score. "none" turns it off. It costs one enumeration of the lookahead
// strategy per scored candidate.
#pragma once
#include <memory>
#include <string>

#include "policy/policy.hpp"

namespace steptp::policy {

/// `model`: "analytical" (assuming `threads` threads) or the path of a model file written by `steptp cost-model
/// train`. `lookahead`: a registered strategy name or "none". Throws std::runtime_error naming the file when the
/// model cannot be loaded, or the strategy when `lookahead` is unknown.
std::unique_ptr<Policy> make_cost_policy(const std::string& model, int enum_limit, int threads,
                                         const std::string& lookahead = "loop_reorder");

}  // namespace steptp::policy
