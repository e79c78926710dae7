// Small text helpers shared by the answer parser, the chat schema check, eval and every message to the terminal.
#pragma once
#include <string>
#include <string_view>

namespace steptp::core {

/// `s` without leading and trailing spaces, tabs, CR and LF.
inline std::string trim(const std::string& s) {
  const char* ws = " \t\r\n";
  auto a = s.find_first_not_of(ws);
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(ws) - a + 1);
}

/// `s` made safe to print on a terminal, one message per line: every control character except '\n' (C0, DEL, C1),
/// every byte of an invalid UTF-8 sequence and the bidirectional-formatting and zero-width characters (U+200B-U+200F,
/// U+202A-U+202E, U+2066-U+2069, U+FEFF) are written as escapes (`\x00`, `\x07`, `\u202e`); `\` stays as it is.
/// Used for every error, warning and progress line that may hold a name from an input.
std::string terminal_safe(std::string_view s);

}  // namespace steptp::core
