// Approximate token counting, rule "approx-v1" (DATASET.md §4 "Token counts"): deterministic, used for length
// limits and representation comparisons when no tokenizer file is given.
#pragma once
#include <cstdint>
#include <string_view>

namespace steptp::core {

inline constexpr const char* kTokenRule = "approx-v1";

/// approx-v1: ceil(len/4) per maximal run of ASCII letters, ceil(len/3) per maximal run of ASCII digits, 1 per
/// newline, 1 per run of spaces/tabs that starts a line (0 elsewhere), 1 per other code point (UTF-8 decoded;
/// invalid bytes count 1 each).
std::int64_t approx_tokens(std::string_view text);

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
