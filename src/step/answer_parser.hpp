// The strict answer parser (DATASET.md §8 "Strict parsing"), one for every reader of answers: `steptp eval` and
// `steptp search` grade model replies with it, `steptp audit` checks the exported chat lines with it. Nothing is
// repaired:
//  - a reply cut off at max_tokens fails as `truncated`;
//  - the text after the last "</think>" (the whole reply when there is none: `think_missing`, noted, not fatal)
//    must hold exactly one "<answer>" and one "</answer>", in that order (`no_answer_block`,
//    `multiple_answer_blocks`);
//  - the trimmed content between them must be RFC 8259 JSON (`not_json`: single quotes, trailing commas, comments,
//    NaN, ...); for n = 1 an object, for n >= 2 a non-empty array of objects (`wrong_shape`, `empty_array`);
//  - every object has exactly the keys "applied_strategy" and "transformed_IR" (`wrong_keys`, `duplicate_key`),
//    both strings (`not_a_string`).
#pragma once
#include <string>
#include <vector>

#include "base/text.hpp"

namespace steptp::core {

/// One program of an answer: the claimed strategy name and the transformed LEIR text, as the model wrote them.
struct AnswerProgram {
  std::string strategy;
  std::string leir;
};

struct ParsedAnswer {
  bool ok = false;
  std::string reason;        // "" when ok, else one of the codes above
  std::string detail;        // human-readable, e.g. the JSON parser's message with its byte offset
  bool think_present = false;
  std::string think;         // the reasoning between "<think>\n" and "\n</think>" (one newline trimmed each side)
  std::vector<AnswerProgram> programs;
};

/// Parses `reply` for a prompt that asked for `n` programs. `truncated`: the server reported finish_reason
/// "length". Never throws.
ParsedAnswer parse_answer(const std::string& reply, int n, bool truncated = false);

}  // namespace steptp::core

namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
