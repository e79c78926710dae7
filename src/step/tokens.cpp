#include "step/tokens.hpp"

#include <map>
#include <mutex>

#include "step/bpe_tokenizer.hpp"

namespace steptp::core {
namespace {

bool is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_blank(unsigned char c) { return c == ' ' || c == '\t'; }
bool is_punct(unsigned char c) { return c > ' ' && c < 0x7F && !is_alpha(c) && !is_digit(c); }

/// Bytes of the UTF-8 code point at s[i] (1 for an invalid or truncated lead byte).
std::size_t code_point_len(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 1;
  if (c >= 0xF0 && c < 0xF8) len = 4;
  else if (c >= 0xE0) len = c < 0xF0 ? 3 : 1;
  else if (c >= 0xC0) len = 2;
  return i + len > s.size() ? 1 : len;
}

/// End of the maximal run of characters satisfying `pred` from i.
template <class Pred>
std::size_t run_end(std::string_view s, std::size_t i, Pred pred) {
  while (i < s.size() && pred(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

class ApproxCounter final : public TokenCounter {
 public:
  std::int64_t count(std::string_view text) const override { return approx_tokens(text); }
  const std::string& rule() const override { return rule_; }

 private:
  std::string rule_ = kTokenRule;
};

class BpeCounter final : public TokenCounter {
 public:
  explicit BpeCounter(std::shared_ptr<const BpeTokenizer> t) : t_(std::move(t)), rule_("bpe:" + t_->sha256().substr(0, 16)) {}
  std::int64_t count(std::string_view text) const override { return t_->count(text); }
  const std::string& rule() const override { return rule_; }

 private:
  std::shared_ptr<const BpeTokenizer> t_;
  std::string rule_;
};

}  // namespace

std::int64_t approx_tokens(std::string_view s) {
  std::int64_t n = 0;
  std::size_t i = 0;
  bool line_start = true, after_punct = false;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t j = i + 1;
    bool punct = false;
    if (is_alpha(c)) {
      j = run_end(s, i, is_alpha);
      n += std::int64_t(j - i + 8) / 9;
    } else if (is_digit(c)) {
      n += 1;
    } else if (is_punct(c)) {
      j = run_end(s, i, is_punct);
      const bool joins_word = j == i + 1 && j < s.size() && is_alpha(static_cast<unsigned char>(s[j]));
      if (!joins_word) n += std::int64_t(j - i + 1) / 2;
      punct = true;
    } else if (c == '\n' || c == '\r') {
      j = run_end(s, i, [](unsigned char b) { return b == '\n' || b == '\r' || is_blank(b); });
      while (j > i && is_blank(static_cast<unsigned char>(s[j - 1]))) --j;  // the next line's indent is its own
      if (!after_punct) n += 1;
    } else if (is_blank(c)) {
      j = run_end(s, i, is_blank);
      if (line_start || (j < s.size() && is_digit(static_cast<unsigned char>(s[j])))) n += 1;
    } else {
      j = i + code_point_len(s, i);
      n += 1;
    }
    line_start = c == '\n' || c == '\r';
    after_punct = punct;
    i = j;
  }
  return n;
}

std::int64_t approx_tokens_v1(std::string_view s) {
  std::int64_t n = 0;
  std::size_t i = 0;
  bool line_start = true;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (is_alpha(c) || is_digit(c)) {
      const bool alpha = is_alpha(c);
      const std::size_t j = alpha ? run_end(s, i, is_alpha) : run_end(s, i, is_digit);
      const auto len = std::int64_t(j - i);
      n += alpha ? (len + 3) / 4 : (len + 2) / 3;
      i = j;
      line_start = false;
    } else if (c == '\n') {
      ++n;
      ++i;
      line_start = true;
    } else if (is_blank(c)) {
      const std::size_t j = run_end(s, i, is_blank);
      if (line_start) ++n;
      i = j;
      line_start = false;
    } else {
      ++n;
      i += code_point_len(s, i);
      line_start = false;
    }
  }
  return n;
}

const TokenCounter& approx_counter() {
  static const ApproxCounter counter;
  return counter;
}

std::shared_ptr<const TokenCounter> make_token_counter(const std::string& tokenizer_path) {
  if (tokenizer_path.empty()) return std::shared_ptr<const TokenCounter>(&approx_counter(), [](const TokenCounter*) {});
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const TokenCounter>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[tokenizer_path];
  if (!slot) slot = std::make_shared<BpeCounter>(BpeTokenizer::from_file(tokenizer_path));
  return slot;
}

}  // namespace steptp::core
