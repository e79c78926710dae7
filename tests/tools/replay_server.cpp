// steptp_replay_server: a local OpenAI-compatible chat-completions endpoint (the scripted server of the eval tests)
// that answers each prompt with the next reply of a replay file ({"prompt_sha256", "replies"} lines, e.g. from
// `steptp gold-replay`), the <think> block sent as `reasoning_content` the way vLLM's reasoning parsers do, with a
// `usage` object. For trying `steptp eval --policy llm` without a GPU, and for the README example.
//   steptp_replay_server --replay FILE [--port P] [--delay S]
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "../eval/chat_server.hpp"

using namespace steptp::evaltest;

int main(int argc, char** argv) {
  std::string replay;
  double delay = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--replay") replay = argv[i + 1];
    else if (a == "--delay") delay = std::stod(argv[i + 1]);
    else {
      std::cerr << "usage: steptp_replay_server --replay FILE [--delay SECONDS]\n";
      return 2;
    }
  }
  std::map<std::string, std::vector<std::string>> replies;
  std::ifstream in(replay);
  if (!in) {
    std::cerr << "steptp_replay_server: cannot read --replay " << replay << "\n";
    return 2;
  }
  for (std::string l; std::getline(in, l);) {
    auto j = nlohmann::json::parse(l);
    replies[j["prompt_sha256"]] = j["replies"].get<std::vector<std::string>>();
  }
  ChatServer srv([&](const nlohmann::json& req, int prompt_call, int) {
    auto it = replies.find(prompt_key(req));
    if (it == replies.end() || std::size_t(prompt_call) >= it->second.size())
      return ScriptedReply{400, R"({"error": {"message": "no reply recorded for this prompt"}})"};
    const std::string& a = it->second[std::size_t(prompt_call)];
    auto close = a.find("\n</think>\n");
    if (a.rfind("<think>\n", 0) != 0 || close == std::string::npos) return ScriptedReply{200, completion_body(a), delay};
    return ScriptedReply{200, completion_body(a.substr(close + 10), "stop", a.substr(8, close - 8)), delay};
  });
  std::cout << srv.base_url() << std::endl;  // the first line is the base URL (port chosen by the system)
  static std::atomic<bool> stop{false};
  std::signal(SIGINT, [](int) { stop = true; });
  std::signal(SIGTERM, [](int) { stop = true; });
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}
