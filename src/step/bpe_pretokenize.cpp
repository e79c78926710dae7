// The Qwen2 pre-tokenizer pattern by hand (bpe_tokenizer.hpp): a small Unicode classification and the seven
// alternatives of the pattern, tried in order at each position with the regex's greedy and backtracking semantics.
#include <array>
#include <utility>

#include "step/bpe_tokenizer.hpp"

namespace steptp::core {
namespace {

struct Cp {
  char32_t c;
  std::size_t len;  // bytes
};

constexpr char32_t kInvalid = 0xFFFFFFFF;  // an invalid UTF-8 byte: classed as punctuation

Cp decode(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  std::size_t len = b0 >= 0xF0 && b0 < 0xF8 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return {kInvalid, 1};
  char32_t c = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {kInvalid, 1};
    c = (c << 6) | (b & 0x3F);
  }
  return {c, len};
}

using Range = std::pair<char32_t, char32_t>;

// \p{L}: the scripts named in bpe_tokenizer.hpp, letters only where a block mixes letters and signs.
constexpr std::array<Range, 38> kLetters = {{
    {0x41, 0x5A},     {0x61, 0x7A},     {0xAA, 0xAA},     {0xB5, 0xB5},     {0xBA, 0xBA},     {0xC0, 0xD6},
    {0xD8, 0xF6},     {0xF8, 0x2C1},    {0x2C6, 0x2D1},   {0x2E0, 0x2E4},   {0x370, 0x374},   {0x376, 0x37D},
    {0x386, 0x386},   {0x388, 0x3FF},   {0x400, 0x481},   {0x48A, 0x52F},   {0x531, 0x556},   {0x561, 0x587},
    {0x5D0, 0x5EA},   {0x620, 0x64A},   {0x671, 0x6D3},   {0x904, 0x939},   {0xE01, 0xE30},   {0x1E00, 0x1FFF},
    {0x3041, 0x3096}, {0x309D, 0x309F}, {0x30A1, 0x30FA}, {0x30FC, 0x30FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
    {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0xFF66, 0xFF9D}, {0x20000, 0x2A6DF},
    {0x1100, 0x11FF}, {0x3131, 0x318E},
}};

// \p{N}: decimal digits of those scripts, super/subscripts, fractions, Roman numerals, circled numbers.
constexpr std::array<Range, 17> kNumbers = {{
    {0x30, 0x39},     {0xB2, 0xB3},     {0xB9, 0xB9},     {0xBC, 0xBE},     {0x660, 0x669},   {0x6F0, 0x6F9},
    {0x966, 0x96F},   {0xE50, 0xE59},   {0x2070, 0x2070}, {0x2074, 0x2079}, {0x2080, 0x2089}, {0x2150, 0x2189},
    {0x2460, 0x249B}, {0x24EA, 0x24FF}, {0x2776, 0x2793}, {0x3007, 0x3007}, {0xFF10, 0xFF19},
}};

template <std::size_t N>
bool in(const std::array<Range, N>& table, char32_t c) {
  for (const auto& [lo, hi] : table)
    if (c >= lo && c <= hi) return true;
  return false;
}

bool is_letter(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return c != kInvalid && in(kLetters, c);
}
bool is_number(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return c != kInvalid && in(kNumbers, c);
}
bool is_space(char32_t c) {  // Unicode White_Space
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
bool is_crlf(char32_t c) { return c == '\r' || c == '\n'; }
bool is_other(char32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); }

/// End of the match at i, or 0 when no alternative matches (never: every code point is L, N, \s or other).
std::size_t match_at(std::string_view s, std::size_t i) {
  const std::size_t n = s.size();
  const Cp c0 = decode(s, i);
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (c0.c == '\'' && i + 1 < n) {
    const char a = char(s[i + 1] | 0x20), b = i + 2 < n ? char(s[i + 2] | 0x20) : '\0';
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
  }
  auto letters_from = [&](std::size_t j) {
    while (j < n) {
      Cp c = decode(s, j);
      if (!is_letter(c.c)) break;
      j += c.len;
    }
    return j;
  };
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (!is_crlf(c0.c) && !is_letter(c0.c) && !is_number(c0.c) && i + c0.len < n &&
      is_letter(decode(s, i + c0.len).c))
    return letters_from(i + c0.len);
  if (is_letter(c0.c)) return letters_from(i);
  // \p{N}
  if (is_number(c0.c)) return i + c0.len;
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  {
    std::size_t j = i;
    if (c0.c == ' ' && i + 1 < n && is_other(decode(s, i + 1).c)) j = i + 1;
    if (is_other(decode(s, j).c)) {
      while (j < n) {
        Cp c = decode(s, j);
        if (!is_other(c.c)) break;
        j += c.len;
      }
      while (j < n && is_crlf(static_cast<unsigned char>(s[j]))) ++j;
      return j;
    }
  }
  // The rest start with a whitespace run [i, e).
  std::size_t e = i, last_start = i, last_crlf_end = 0;
  while (e < n) {
    Cp c = decode(s, e);
    if (!is_space(c.c)) break;
    last_start = e;
    e += c.len;
    if (is_crlf(c.c)) last_crlf_end = e;
  }
  if (e == i) return i + c0.len;           // unreachable: c0 is L, N, other or \s
  if (last_crlf_end > i) return last_crlf_end;  // \s*[\r\n]+
  if (e == n) return e;                          // \s+(?!\S) at the end
  if (last_start > i) return last_start;         // \s+(?!\S): leave the last one to the next match
  return e;                                      // \s+
}

}  // namespace

std::vector<std::string_view> BpeTokenizer::pre_tokenize(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = match_at(text, i);
    if (j <= i) j = i + 1;
    out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace steptp::core
