// A byte-level BPE tokenizer read from a Hugging Face `tokenizer.json` (DATASET.md §4 "Token counts"), for exact
// token counts of the Qwen2 / Qwen2.5 / Qwen3 family without Python or network access.
//
// Contract
//   * Accepted shape (anything else is Error D012 naming the file and the unsupported member):
//       model:         {"type": "BPE"} with merges as ["a b", ...] or [["a", "b"], ...], no dropout, no
//                      continuing_subword_prefix / end_of_word_suffix, byte_fallback false; ignore_merges honoured;
//       pre_tokenizer: Sequence[Split{Regex: the Qwen2 pattern below, behavior "Isolated", invert false},
//                               ByteLevel{add_prefix_space false, use_regex false}];
//       normalizer:    null or NFC (see "Approximations");
//       added_tokens:  matched in the raw text before pre-tokenization, leftmost and then longest first; flags
//                      lstrip / rstrip / single_word must be false.
//     The post-processor and decoder are ignored: encode() adds no special tokens.
//   * Qwen2 pattern, implemented by hand on code points (no regex library):
//       (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//     so digits are split one at a time, a space or punctuation character joins the word it precedes, runs of
//     punctuation stay together with their trailing newlines, and a whitespace run before a word leaves its last
//     space to that word.
//   * encode() returns the ids; count() their number. Both are thread-safe (a mutex-guarded word cache of at most
//     kMaxCachedWords pre-tokens; merges are ranked in a hash map of id pairs).
// Approximations
//   * \p{L} and \p{N} are a small table (ASCII, Latin-1, Latin Extended, IPA, Greek, Cyrillic, Armenian, Hebrew,
//     Arabic, Devanagari, Thai, Hangul, kana, CJK ideographs, fullwidth forms; decimal digits of those scripts,
//     super/subscript digits, vulgar fractions, Roman numerals, circled numbers). Other code points count as
//     punctuation. Exact for ASCII text, which is what steptp renders.
//   * (?i) folds ASCII only. \s is Unicode White_Space.
//   * NFC is not applied: the text is assumed to be in NFC already (every ASCII text is).
//   * Invalid UTF-8 bytes are treated as one punctuation code point each (byte-level BPE still encodes them).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace steptp::core {

class BpeTokenizer {
 public:
  static constexpr std::size_t kMaxCachedWords = 1 << 18;

  /// Reads and checks `path`. Throws steptp::Error D012 at the path (unreadable, not JSON, unsupported shape).
  static std::shared_ptr<const BpeTokenizer> from_file(const std::string& path);
  /// The same from the file's text; `where` names it in errors.
  static std::shared_ptr<const BpeTokenizer> from_json_text(const std::string& text, const std::string& where);

  ~BpeTokenizer();
  BpeTokenizer(const BpeTokenizer&) = delete;
  BpeTokenizer& operator=(const BpeTokenizer&) = delete;

  std::vector<std::int32_t> encode(std::string_view text) const;
  std::int64_t count(std::string_view text) const;
  /// SHA-256 (hex) of the tokenizer.json text.
  const std::string& sha256() const;
  std::size_t vocab_size() const;

  /// The pre-tokenizer split alone (the Qwen2 pattern), as views into `text`; exposed for tests.
  static std::vector<std::string_view> pre_tokenize(std::string_view text);

  struct Impl;

 private:
  explicit BpeTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace steptp::core
