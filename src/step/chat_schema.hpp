// The chat sample schema steptp.chat/1 (DATASET.md §5.1): a line is exactly {"messages": [system, user, assistant]}
// and the assistant's answer passes the strict answer parser of evaluation (step/answer_parser.hpp, §8).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "step/answer_parser.hpp"
#include "base/json_text.hpp"

namespace steptp::dataset {

/// Schema problems of one chat line; sets *n_requested from the user message's task line (1 or N).
std::vector<std::string> chat_line_errors(const ojson& line, int* n_requested = nullptr);

}  // namespace steptp::dataset
