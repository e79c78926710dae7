// String literals for generated code (escape.hpp).
#include "lower/escape.hpp"

namespace steptp::lower {
namespace {

bool printable(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

}  // namespace

std::string cpp_string_literal(std::string_view s) {
  std::string r = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c == '?') {
      r += "\\?";
    } else if (printable(c)) {
      r += static_cast<char>(c);
    } else {
      r += '\\';
      r += static_cast<char>('0' + ((c >> 6) & 7));
      r += static_cast<char>('0' + ((c >> 3) & 7));
      r += static_cast<char>('0' + (c & 7));
    }
  }
  return r + "\"";
}

std::string python_string_literal(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string r = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      r += '\\';
      r += ch;
    } else if (printable(c)) {
      r += ch;
    } else {
      r += "\\x";
      r += kHex[c >> 4];
      r += kHex[c & 15];
    }
  }
  return r + "\"";
}

}  // namespace steptp::lower
