// The reasoning checker (DATASET.md §6.3): confirms every statement of a record's reasoning from the record alone.
//  1. apply(strategy, before, params) reproduces the after program (alpha-canonical comparison) and its class;
//  2. the facts are recomputed from before, after and the re-run's facts record and must equal the stored facts;
//  3. the text is re-derived clause by clause from the recomputed facts: a missing/reordered section, a line that
//     no clause produces, or a differing slot fails, naming the section and line;
//  4. a chat answer must equal (strategy.name, after.leir).
// Never throws: analysis failures become a failed verdict.
#pragma once
#include <string>

#include "base/json_text.hpp"
#include "strategies/registry.hpp"

namespace steptp::dataset {

struct CheckVerdict {
  bool ok = true;
  std::string clause;  // "apply", "class", "facts", "section Observation", "Candidate line 2", "answer", ...
  std::string detail;
};

/// `reapplied`: the result of apply(strategy, before, candidate) when the caller has just computed it (the
/// generator); null makes the checker re-run apply itself (audit, check-reasoning).
CheckVerdict check_record(const ojson& rec, const strategy::Applied* reapplied = nullptr);

/// Check the assistant text of a single-answer chat sample against its record (think block = reasoning, answer
/// JSON = strategy + after).
CheckVerdict check_answer(const ojson& rec, const std::string& assistant);

/// Named parameter values of a candidate as records store them (`params.values`).
ojson candidate_values(const strategy::Candidate& c);

/// The reasoning text (§6.2, no think tags) the renderer writes for the step before -> ap, where `ap` is
/// apply(strategy, before, c). Throws on analysis failure (like compute_facts).
std::string expected_reasoning(const ir::Task& before, const strategy::Applied& ap, const strategy::Candidate& c);

/// §6.3 step 3 on a given text: compares `got` with `want` line by line, naming the first failing clause
/// ("section Legality", "Candidate line 2", "extra text", ...).
CheckVerdict compare_reasoning(const std::string& got, const std::string& want);

}  // namespace steptp::dataset
