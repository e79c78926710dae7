#include "dataset/chat_schema.hpp"

#include <regex>

namespace steptp::dataset {

namespace {
std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}
bool answer_obj(const nlohmann::json& o, std::pair<std::string, std::string>& out) {
  if (!o.is_object() || o.size() != 2 || !o.contains("applied_strategy") || !o.contains("transformed_IR")) return false;
  if (!o["applied_strategy"].is_string() || !o["transformed_IR"].is_string()) return false;
  out = {o["applied_strategy"].get<std::string>(), o["transformed_IR"].get<std::string>()};
  return true;
}
}  // namespace

ParsedAnswer parse_answer(const std::string& reply, int n) {
  ParsedAnswer p;
  std::string rest = reply;
  auto t = reply.rfind("</think>");
  if (t != std::string::npos) {
    p.had_think = true;
    rest = reply.substr(t + 8);
  }
  auto a = rest.find("<answer>");
  if (a == std::string::npos) return p.error = "no <answer>", p;
  if (rest.find("<answer>", a + 1) != std::string::npos) return p.error = "more than one <answer>", p;
  auto b = rest.find("</answer>", a);
  if (b == std::string::npos) return p.error = "no </answer>", p;
  if (rest.find("</answer>", b + 1) != std::string::npos) return p.error = "more than one </answer>", p;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(trim(rest.substr(a + 8, b - a - 8)));
  } catch (const std::exception&) {
    return p.error = "answer is not strict JSON", p;
  }
  if (n <= 1) {
    std::pair<std::string, std::string> x;
    if (!answer_obj(j, x)) return p.error = "answer is not {applied_strategy, transformed_IR}", p;
    p.answers.push_back(x);
  } else {
    if (!j.is_array() || j.empty()) return p.error = "answer is not a non-empty array", p;
    for (const auto& o : j) {
      std::pair<std::string, std::string> x;
      if (!answer_obj(o, x)) return p.error = "array element is not {applied_strategy, transformed_IR}", p;
      p.answers.push_back(x);
    }
  }
  p.ok = true;
  return p;
}

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
  if (!p.ok) e.push_back("assistant answer: " + p.error);
  else if (n >= 2 && int(p.answers.size()) < n) e.push_back("fewer answers than requested");
  return e;
}

}  // namespace steptp::dataset
