// Aggregates of `steptp eval` (DATASET.md §8): summary.json and summary.md from the per-answer result lines.
//
// Single-answer prompts (n = 1), overall and per claimed strategy (answers whose reply did not parse are listed
// under "(unparsed)"): counts of answers passing parsed, differs, valid, equivalent, faster; cumulative rates
// (count / answers) and conditional rates (count / the previous gate's count); strategy_consistent and
// reasoning_verified counts and rates over answers; the failure reasons per gate; the speedup distribution of
// equivalent answers; fast_p = share of answers that are equivalent with speedup > p, p in {1.0, 1.2, 1.5, 2.0};
// with k > 1 samples, pass@k = share of prompts with at least one equivalent (faster) sample.
// Multi-answer prompts (n >= 2): parsed, meets_n, all_equivalent, any_faster (shares of answers), mean distinct
// differing programs and claimed strategies, per-program gate rates over programs returned, best speedups.
// Token usage totals are included (replies without usage are counted); latency is not, so a resumed run and an
// uninterrupted one give the same summary.json.
#pragma once
#include <string>
#include <vector>

#include "base/json_text.hpp"

namespace steptp::eval {

using core::ojson;

/// `results`: the results.jsonl lines in prompt order; `meta`: fields copied to the top of the summary (split,
/// policy, model, samples, measured, timer, ...).
ojson compute_summary(const std::vector<ojson>& results, const ojson& meta);

/// A rate of the summary as text: "12.5%", or "n/a" for null (a rate over nothing, or faster when not measured).
std::string pct(const ojson& rate);

/// Markdown rendering of a summary: run line, gate table, fast_p, per-strategy table, multi-N table.
std::string render_summary_md(const ojson& summary);

}  // namespace steptp::eval
