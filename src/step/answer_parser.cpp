#include "step/answer_parser.hpp"

#include <nlohmann/json.hpp>
#include <set>

namespace steptp::core {
namespace {

std::size_t count_of(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

ParsedAnswer fail(ParsedAnswer a, std::string reason, std::string detail) {
  a.ok = false;
  a.reason = std::move(reason);
  a.detail = std::move(detail);
  a.programs.clear();
  return a;
}

}  // namespace

ParsedAnswer parse_answer(const std::string& reply, int n, bool truncated) {
  ParsedAnswer a;
  auto close_think = reply.rfind("</think>");
  a.think_present = close_think != std::string::npos;
  if (a.think_present) {
    auto open = reply.find("<think>");
    std::size_t from = open == std::string::npos || open > close_think ? 0 : open + 7;
    std::string t = reply.substr(from, close_think - from);
    if (!t.empty() && t.front() == '\n') t.erase(0, 1);
    if (!t.empty() && t.back() == '\n') t.pop_back();
    a.think = std::move(t);
  }
  if (truncated) return fail(a, "truncated", "the reply was cut off at max_tokens (finish_reason \"length\")");
  if (trim(reply).empty()) return fail(a, "empty_reply", "the reply is empty");
  const std::string tail = a.think_present ? reply.substr(close_think + 8) : reply;
  std::size_t opens = count_of(tail, "<answer>"), closes = count_of(tail, "</answer>");
  if (opens == 0 || closes == 0) return fail(a, "no_answer_block", "no <answer>...</answer> after the last </think>");
  if (opens > 1 || closes > 1)
    return fail(a, "multiple_answer_blocks", std::to_string(opens) + " <answer> and " + std::to_string(closes) + " </answer> tags");
  auto o = tail.find("<answer>"), c = tail.find("</answer>");
  if (c < o) return fail(a, "no_answer_block", "</answer> comes before <answer>");
  const std::string body = trim(tail.substr(o + 8, c - o - 8));

  // Duplicate keys are legal for some JSON readers but not unambiguous: refuse them (a per-object key set).
  std::vector<std::set<std::string>> keys;
  std::string dup;
  nlohmann::json::parser_callback_t cb = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    if (ev == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
    else if (ev == nlohmann::json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (ev == nlohmann::json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      dup = parsed.get<std::string>();
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body, cb, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range 406 for a number like 1e999
    return fail(a, "not_json", std::string(e.what()).substr(0, 200));
  }
  if (!dup.empty()) return fail(a, "duplicate_key", "key \"" + dup + "\" appears twice in one object");
  std::vector<const nlohmann::json*> objs;
  if (n <= 1) {
    if (!j.is_object()) return fail(a, "wrong_shape", std::string("expected one JSON object, got ") + j.type_name());
    objs.push_back(&j);
  } else {
    if (!j.is_array()) return fail(a, "wrong_shape", std::string("expected a JSON array of objects, got ") + j.type_name());
    if (j.empty()) return fail(a, "empty_array", "the answer array is empty");
    for (const auto& x : j) objs.push_back(&x);
  }
  for (std::size_t i = 0; i < objs.size(); ++i) {
    const auto& x = *objs[i];
    std::string where = n <= 1 ? "the answer object" : "answer " + std::to_string(i + 1);
    if (!x.is_object()) return fail(a, "wrong_shape", where + " is not an object");
    if (x.size() != 2 || !x.contains("applied_strategy") || !x.contains("transformed_IR")) {
      std::string got;
      for (auto it = x.begin(); it != x.end(); ++it) got += (got.empty() ? "" : ", ") + it.key();
      return fail(a, "wrong_keys", where + " must have exactly the keys applied_strategy and transformed_IR; has: " + got);
    }
    if (!x["applied_strategy"].is_string() || !x["transformed_IR"].is_string())
      return fail(a, "not_a_string", where + ": applied_strategy and transformed_IR must be strings");
    a.programs.push_back({x["applied_strategy"].get<std::string>(), x["transformed_IR"].get<std::string>()});
  }
  a.ok = true;
  return a;
}

}  // namespace steptp::core
