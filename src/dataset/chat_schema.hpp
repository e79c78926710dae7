// The chat sample schema steptp.chat/1 (DATASET.md §5.1) and the strict answer parser of evaluation (§8): a line is
// exactly {"messages": [system, user, assistant]}; the assistant text after the last </think> holds exactly one
// <answer>…</answer> whose trimmed content is RFC 8259 JSON: for n = 1 an object with exactly the string keys
// applied_strategy and transformed_IR, for n >= 2 a non-empty array of such objects. Nothing is repaired.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"

namespace steptp::dataset {

struct ParsedAnswer {
  bool ok = false;
  std::string error;
  bool had_think = false;
  std::vector<std::pair<std::string, std::string>> answers;  // (applied_strategy, transformed_IR)
};

/// Strict parse of a reply for a prompt asking for n programs.
ParsedAnswer parse_answer(const std::string& reply, int n);

/// Schema problems of one chat line; sets *n_requested from the user message's task line (1 or N).
std::vector<std::string> chat_line_errors(const ojson& line, int* n_requested = nullptr);

}  // namespace steptp::dataset
