// Reports of `steptp search` (DATASET.md §9.4): the result of one task and the aggregates of a run.
//
// Result of a task (one line of results.jsonl; no wall times, so the same seed and cache give the same bytes):
//   {task_id, workload, algorithm, policy, status ("ok" | "error"), error,
//    root: {leir, latency: {median_ns, q1_ns, q3_ns, iqr_ns}, intensity},
//    baseline: null | {routine, median_ns, q1_ns, q3_ns, iqr_ns},
//    result: null (error) | {node, improved, leir, speedup, latency_ns, speedup_vs_baseline, noisy,
//            path: [{strategy, candidate, params, speedup}]},
//    confirmed: [{node, speedup_search, speedup, noisy[, error]}],
//    rechecks: [{node, speedup, trigger, equivalent, speedup_recheck, noisy, passed, detail}],
//    budget: {proposals: {limit, used, unused}, measurements: {limit, used, unused}, stop_reason},
//    outcomes: {accepted: n, <reason>: n, ...}, nodes: [{id, parent, depth, strategy, candidate, speedup,
//    speedup_vs_parent, noisy, check, children, asks, visits, value}], llm: {requests, cached, prompt_tokens,
//    completion_tokens, no_proposal}}
// Confirmation (SearchConfig::confirm > 0): the leading nodes by search-time speedup are re-measured paired with the
// root in one batch and only they can be the result, ranked by that measurement (`confirmed`; a node's `speedup`
// is then the confirmed one). `result` is the program to use: the fastest node faster than the root that is not
// noisy and passes the §9.4
// re-check when its speedup is suspicious (a failing node is discarded and the next one examined; every examination
// is listed under `rechecks`) — or the root itself (node 0, speedup 1, empty path, improved false) when no node
// qualifies, so a search never reports a program slower than the one it started from. Its latency is the paired
// measurement's; the root's latency is taken from the same pair (or a root-against-root measurement when the
// search found nothing). speedup_vs_baseline = baseline median / result median (two separate measurements).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "step/timing.hpp"
#include "search/engine.hpp"

namespace steptp::search {

/// Builds the result line of a finished search. `timer` measures the root alone when no node was measured.
/// `baseline`: the library baseline object or null. Never throws for a failed re-check or measurement (recorded).
ojson task_result(Search& s, const std::string& task_id, const std::string& workload, const std::string& policy,
                  dataset::Timer& timer, const ojson& baseline);

/// measured.jsonl: one line per measured node, in the shape of a dataset record's fields that `steptp cost-model
/// train` reads (task_id, workload, suite, before {leir, known}, after {leir}, measurement), plus node, paired_with
/// (the node timed as the measurement's before) and strategy: the search's trajectories as cost-model training data.
ojson measured_lines(const Search& s, const std::string& task_id);

/// The result line of a task that could not be searched (the root does not validate, a fatal policy error, ...).
ojson failed_task_result(const std::string& task_id, const std::string& workload, const SearchConfig& cfg,
                         const std::string& policy, const std::string& error);

/// The fast_p thresholds of §9.4 (KernelBench): 0 (correctness), 1.0, 1.5, 2.0, 3.0.
const std::vector<double>& fast_p_thresholds();

/// Aggregates of one (algorithm, policy) run over its task results (§9.4): {algorithm, policy, tasks, errors,
/// improved (tasks whose result is not the root), fast_p: {naive: {"0": rate, "1.0": ...}, baseline: {tasks, "0": rate, ...}}, geomean_speedup,
/// median_speedup (result speedups, 1.0 for tasks without result), geomean_speedup_vs_baseline,
/// mean_budget_use: {proposals, measurements} (fractions of the limits), outcomes: totals by reason}.
/// Rates are over ALL tasks (tasks that failed count as not fast). Empty input gives zero counts and null rates.
ojson summarize(const std::vector<ojson>& results, const SearchConfig& cfg, const std::string& policy);

/// summary.md: the aggregates and one row per task (workload, root latency, baseline, best latency, speedups,
/// path, budget use).
std::string summary_markdown(const ojson& summary, const std::vector<ojson>& results);

}  // namespace steptp::search
