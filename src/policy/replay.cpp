#include "policy/replay.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/file_io.hpp"

namespace steptp::policy {

ReplayPolicy::ReplayPolicy(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("replay file " + path + ": cannot open");
  std::string line;
  for (int no = 1; ir::getline_bounded(in, line, path); ++no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&] { return "replay file " + path + ":" + std::to_string(no) + ": "; };
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      throw std::runtime_error(where() + "not a JSON line");
    }
    if (!j.is_object() || !j.contains("prompt_sha256") || !j["prompt_sha256"].is_string() ||
        j["prompt_sha256"].get<std::string>().size() != 64 || !j.contains("replies") || !j["replies"].is_array())
      throw std::runtime_error(where() + R"(expected {"prompt_sha256": "<64 hex digits>", "replies": [...]})");
    std::vector<std::string> rs;
    for (const auto& r : j["replies"]) {
      if (!r.is_string()) throw std::runtime_error(where() + "every reply must be a string");
      rs.push_back(r.get<std::string>());
    }
    if (!replies_.emplace(j["prompt_sha256"].get<std::string>(), std::move(rs)).second)
      throw std::runtime_error(where() + "prompt_sha256 repeats an earlier line");
  }
}

Reply ReplayPolicy::reply(const Prompt& p, int sample) {
  Reply r;
  auto it = replies_.find(p.sha256());
  if (it == replies_.end() || sample < 0 || std::size_t(sample) >= it->second.size()) {
    r.none = true;
    return r;
  }
  r.content = it->second[std::size_t(sample)];
  r.finish_reason = "stop";
  return r;
}

}  // namespace steptp::policy
