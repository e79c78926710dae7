#include "step/chat_schema.hpp"

#include <regex>

namespace steptp::dataset {

std::vector<std::string> chat_line_errors(const ojson& line, int* n_requested) {
  std::vector<std::string> e;
  if (!line.is_object() || line.size() != 1 || !line.contains("messages")) return {"line is not exactly {\"messages\": [...]}"};
  const auto& m = line["messages"];
  if (!m.is_array() || m.size() != 3) return {"messages is not an array of 3"};
  const char* roles[] = {"system", "user", "assistant"};
  for (int i = 0; i < 3; ++i) {
    if (!m[i].is_object() || m[i].size() != 2 || m[i].value("role", "") != roles[i] || !m[i].contains("content") ||
        !m[i]["content"].is_string())
      e.push_back(std::string("message ") + std::to_string(i) + " is not {role: " + roles[i] + ", content: string}");
  }
  if (!e.empty()) return e;
  const std::string user = m[1]["content"];
  int n = 1;
  static const std::regex many("Task: give at least ([0-9]+) distinct");
  std::smatch sm;
  if (std::regex_search(user, sm, many)) n = std::stoi(sm[1]);
  else if (user.find("Task: apply one optimisation strategy") == std::string::npos) e.push_back("user message has no task line");
  if (n_requested) *n_requested = n;
  const std::string asst = m[2]["content"];
  if (asst.rfind("<think>\n", 0) != 0) e.push_back("assistant does not start with <think>");
  ParsedAnswer p = parse_answer(asst, n);
  if (!p.ok) e.push_back("assistant answer: " + p.reason + ": " + p.detail);
  else if (n >= 2 && int(p.programs.size()) < n) e.push_back("fewer answers than requested");
  return e;
}

}  // namespace steptp::dataset
