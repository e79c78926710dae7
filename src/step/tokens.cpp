#include "step/tokens.hpp"

namespace steptp::core {

std::int64_t approx_tokens(std::string_view s) {
  std::int64_t n = 0;
  std::size_t i = 0;
  bool line_start = true;
  auto is_alpha = [](unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto is_digit = [](unsigned char c) { return c >= '0' && c <= '9'; };
  while (i < s.size()) {
    unsigned char c = s[i];
    if (is_alpha(c) || is_digit(c)) {
      bool alpha = is_alpha(c);
      std::size_t j = i;
      while (j < s.size() && (alpha ? is_alpha(s[j]) : is_digit(s[j]))) ++j;
      std::int64_t len = std::int64_t(j - i);
      n += alpha ? (len + 3) / 4 : (len + 2) / 3;
      i = j;
      line_start = false;
    } else if (c == '\n') {
      ++n;
      ++i;
      line_start = true;
    } else if (c == ' ' || c == '\t') {
      std::size_t j = i;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
      if (line_start) ++n;
      i = j;
      line_start = false;
    } else {
      std::size_t len = 1;
      if (c >= 0xF0 && c < 0xF8) len = 4;
      else if (c >= 0xE0) len = c < 0xF0 ? 3 : 1;
      else if (c >= 0xC0) len = 2;
      if (i + len > s.size()) len = 1;
      ++n;
      i += len;
      line_start = false;
    }
  }
  return n;
}

}  // namespace steptp::core
