// S9 reasoning text (DATASET.md §6.2): fixed sections Observation, Candidate, Legality, Expected effect, Result,
// each a heading line followed by "- " lines, every line rendered from facts by one clause of a fixed table.
// Integers are printed exactly, other numbers with two correctly rounded decimals.
#pragma once
#include <string>
#include <vector>

#include "base/json_text.hpp"

namespace steptp::dataset {

inline constexpr const char* kSections[] = {"Observation", "Candidate", "Legality", "Expected effect", "Result"};

/// Renders the single-answer reasoning (no <think> tags, no trailing newline) from a fact list of compute_facts.
std::string render_reasoning(const ojson& facts, const std::string& strategy_name);

/// Splits a single-answer reasoning into the Observation block and the rest (Candidate..Result), both without a
/// trailing newline. Throws std::invalid_argument if the text lacks the sections.
std::pair<std::string, std::string> split_observation(const std::string& reasoning);

/// Multi-answer reasoning (§6.2, n >= 2): Observation once, then "Option i of n:" blocks.
std::string render_multi_reasoning(const std::vector<std::string>& single_reasonings);

/// Formats a number the §6.2 way: exact integers, otherwise two correctly rounded decimals.
std::string fmt_number(const ojson& v);

}  // namespace steptp::dataset
