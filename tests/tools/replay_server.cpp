// steptp_replay_server: a local OpenAI-compatible chat-completions endpoint (the scripted server of the eval tests)
// that answers each prompt from a replay file ({"prompt_sha256", "replies"} lines, e.g. from `steptp gold-replay`),
// the <think> block sent as `reasoning_content` the way vLLM's reasoning parsers do, with a `usage` object.
// For trying `steptp eval --policy llm` without a GPU, and for the README example.
//   steptp_replay_server --replay FILE [--delay SECONDS] [--cycle]
// By default every request for a prompt gets its first reply (a deterministic "model", so a resumed eval sees what
// the interrupted one saw); --cycle gives the 1st, 2nd, ... reply to successive requests for the same prompt.
// Prints the base URL (http://127.0.0.1:<free port>/v1) on its first line; stops on SIGINT/SIGTERM.
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "../eval/chat_server.hpp"

using namespace steptp::evaltest;

namespace {
int usage(const std::string& why) {
  if (!why.empty()) std::cerr << "steptp_replay_server: " << why << "\n";
  std::cerr << "usage: steptp_replay_server --replay FILE [--delay SECONDS] [--cycle]\n";
  return why.empty() ? 0 : 2;
}
}  // namespace

int main(int argc, char** argv) {
  std::string replay;
  double delay = 0;
  bool cycle = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") return usage("");
    if (a == "--cycle") cycle = true;
    else if (a == "--replay" && i + 1 < argc) replay = argv[++i];
    else if (a == "--delay" && i + 1 < argc) {
      try {
        delay = std::stod(argv[++i]);
      } catch (const std::exception&) {
        return usage("--delay needs a number of seconds");
      }
    } else return usage("unknown argument " + a);
  }
  if (replay.empty()) return usage("--replay FILE is required");
  std::map<std::string, std::vector<std::string>> replies;
  std::ifstream in(replay);
  if (!in) return usage("cannot read " + replay);
  int no = 0;
  for (std::string l; std::getline(in, l);) {
    ++no;
    try {
      auto j = nlohmann::json::parse(l);
      replies[j.at("prompt_sha256").get<std::string>()] = j.at("replies").get<std::vector<std::string>>();
    } catch (const std::exception&) {
      return usage(replay + ":" + std::to_string(no) + ": not a {\"prompt_sha256\", \"replies\"} line");
    }
  }
  ChatServer srv([&](const nlohmann::json& req, int prompt_call, int) {
    auto it = replies.find(prompt_key(req));
    std::size_t k = cycle ? std::size_t(prompt_call) : 0;
    if (it == replies.end() || k >= it->second.size())
      return ScriptedReply{400, R"({"error": {"message": "no reply recorded for this prompt"}})"};
    const std::string& a = it->second[k];
    auto close = a.find("\n</think>\n");
    if (a.rfind("<think>\n", 0) != 0 || close == std::string::npos) return ScriptedReply{200, completion_body(a), delay};
    return ScriptedReply{200, completion_body(a.substr(close + 10), "stop", a.substr(8, close - 8)), delay};
  });
  std::cout << srv.base_url() << std::endl;
  static std::atomic<bool> stop{false};
  std::signal(SIGINT, [](int) { stop = true; });
  std::signal(SIGTERM, [](int) { stop = true; });
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}
