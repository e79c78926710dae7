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
// strategy per candidate that gets it: every candidate of the memory family and the 64 best others by their own
// score (the rest keep their own score).
//
// Sketch (a steptp addition to §9.3; `sketch` "register_block", the default, or "none"): when the prompt's program
// has an accumulation nest, the policy also builds the register-block plan of policy/cost/register_block_sketch.hpp
// (reorder, splits, reorders, local write cache, unrolling: seven legal steps on a GEMM, the middle four of which
// gain nothing in the model), and the lane-sum plan of policy/cost/lane_sum_sketch.hpp (one reduction_factorization
// lanes step per chain-bound reduction nest), and keeps the one whose last program scores better. When the plan's
// last program beats the best one-step score by the lookahead margin,
// the plan's first step is proposed first and every program on the plan remembers its next step: a later reply at
// one of them proposes that step first (once; an already seen result is not proposed again). The plans are
// remembered for the policy's lifetime, so the replies depend on the order of earlier replies; a search asks in a
// deterministic order.
//
// Measure-guided (§9.3 `--measure-guided`): inside a search (Prompt::measure set), the policy measures its 2k best
// candidates in ranked order (the plan's step first) against the search's measurement budget and proposes the k
// fastest measured ones; candidates that are not equivalent or find the budget spent are dropped, so a reply may hold
// fewer than k programs (the rest count as missing). Outside a search it ranks by the model alone.
#pragma once
#include <memory>
#include <string>

#include "policy/policy.hpp"

namespace steptp::policy {

/// `model`: "analytical" (assuming `threads` threads) or the path of a model file written by `steptp cost-model
/// train`, whose learned model is used unless the file's own held-out report has the analytical model ranking more
/// clear pairs right (cost::choose_model; Policy::describe() says which model runs and why). `lookahead`: a
/// registered strategy name or "none". `sketch`: "register_block" or "none".
/// `measure_guided`: measure the top candidates (above) instead of trusting the model. Throws
/// std::runtime_error naming the file when the model cannot be loaded, the strategy when `lookahead` is unknown, or
/// the sketch when it is neither.
std::unique_ptr<Policy> make_cost_policy(const std::string& model, int enum_limit, int threads,
                                         const std::string& lookahead = "loop_reorder",
                                         const std::string& sketch = "register_block",
                                         bool measure_guided = false);

}  // namespace steptp::policy
