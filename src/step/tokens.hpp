// Token counting (DATASET.md §4 "Token counts", §7.3): one TokenCounter per run feeds every `tokens` field of the
// records and the S10 length limits. It is the byte-level BPE tokenizer of a tokenizer.json when one is given
// (`generate --tokenizer`, config option `tokenizer`), else the built-in rule "approx-v2", calibrated against
// Qwen3's tokenizer (bench/RESULTS.md "Token counts").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace steptp::core {

/// The built-in rule's name, the `tokens.rule` of records counted without a tokenizer file.
inline constexpr const char* kTokenRule = "approx-v2";

/// approx-v2 (DATASET.md §4), calibrated to Qwen3 (bench/RESULTS.md "Token counts"). Scanning left to right:
///   a maximal run of ASCII letters    ceil(len/9)   (a word is mostly one token)
///   an ASCII digit                    1             (Qwen splits numbers into digits)
///   a maximal run of other printable  ceil(len/2);  0 for a single one directly before a letter (it joins the
///     ASCII characters                              word: Qwen's pre-tokenizer puts it in the word's piece)
///   a maximal run of newlines, with   1;            0 directly after a punctuation run (it joins the run)
///     the blanks between them
///   a run of spaces or tabs           1 when it starts a line or precedes a digit, else 0 (it joins the next word)
///   any other code point              1             (UTF-8 decoded; an invalid byte counts 1)
std::int64_t approx_tokens(std::string_view text);

/// approx-v1, the rule before v2 (records with `tokens.rule` "approx-v1"): ceil(len/4) per run of ASCII letters,
/// ceil(len/3) per run of ASCII digits, 1 per newline, 1 per run of spaces/tabs that starts a line (0 elsewhere),
/// 1 per other code point. Kept to report v2's calibration against v1 (`steptp token-calibration`).
std::int64_t approx_tokens_v1(std::string_view text);

/// Counts tokens of a text under one rule. Implementations are thread-safe.
class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  virtual std::int64_t count(std::string_view text) const = 0;
  /// The `tokens.rule` of the records: "approx-v2", or "bpe:" + the first 16 hex digits of the file's SHA-256.
  virtual const std::string& rule() const = 0;
};

/// The built-in rule (approx_tokens).
const TokenCounter& approx_counter();

/// The counter of a run: the BPE tokenizer read from `tokenizer_path`, or approx_counter() when the path is empty.
/// A file is read once per process (later calls with the same path share it). Throws steptp::Error D012 at the
/// path when the file is unreadable, not JSON, or not a supported byte-level BPE tokenizer.json.
std::shared_ptr<const TokenCounter> make_token_counter(const std::string& tokenizer_path);

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
