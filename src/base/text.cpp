// Terminal-safe text (text.hpp).
#include "base/text.hpp"

#include <fmt/format.h>

namespace steptp::core {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] and its code point, or 0 when it is not valid (overlong forms,
// surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = b0 >= 0xf0 && b0 <= 0xf4 ? 4 : b0 >= 0xe0 ? (b0 <= 0xef ? 3 : 0) : b0 >= 0xc2 && b0 <= 0xdf ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = b0 & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  const char32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

bool invisible_format(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || (c >= 0x20 && c < 0x7f)) {
      r += static_cast<char>(c);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = c < 0x80 ? 0 : utf8_sequence(s, i, cp);
    if (n == 0) {
      r += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (invisible_format(cp)) {
      r += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp));
      i += n;
    } else {
      r.append(s.substr(i, n));
      i += n;
    }
  }
  return r;
}

}  // namespace steptp::core
