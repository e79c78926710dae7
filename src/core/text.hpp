// Small text helpers shared by the answer parser, the chat schema check and eval.
#pragma once
#include <string>

namespace steptp::core {

/// `s` without leading and trailing spaces, tabs, CR and LF.
inline std::string trim(const std::string& s) {
  const char* ws = " \t\r\n";
  auto a = s.find_first_not_of(ws);
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(ws) - a + 1);
}

}  // namespace steptp::core
