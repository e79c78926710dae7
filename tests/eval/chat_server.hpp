// A scripted OpenAI-compatible chat-completions server for the eval tests: cpp-httplib listening on 127.0.0.1 (a
// free port), started by the test and stopped by its destructor. Each POST {base}/chat/completions is answered by
// the test's script; the server records every request (body, Authorization header) and counts requests per prompt
// (SHA-256 of system 0x1F user, the replay key).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace httplib {
class Server;
}

namespace steptp::evaltest {

struct ScriptedReply {
  ScriptedReply() = default;
  ScriptedReply(int st, std::string b, double delay = 0, std::map<std::string, std::string> h = {})
      : status(st), body(std::move(b)), delay_s(delay), headers(std::move(h)) {}
  int status = 200;
  std::string body;
  double delay_s = 0;                            // sleep before answering
  std::map<std::string, std::string> headers;    // e.g. Retry-After
};

/// Body of a successful chat completion. `usage` false leaves the usage object out; `reasoning` non-empty adds
/// message.reasoning_content.
std::string completion_body(const std::string& content, const std::string& finish_reason = "stop",
                            const std::string& reasoning = "", bool usage = true);

class ChatServer {
 public:
  /// script(request JSON, index of this request for the same prompt (0, 1, ...), index over all requests).
  using Script = std::function<ScriptedReply(const nlohmann::json& request, int prompt_call, int call)>;
  explicit ChatServer(Script script);
  ~ChatServer();
  ChatServer(const ChatServer&) = delete;
  ChatServer& operator=(const ChatServer&) = delete;

  /// "http://127.0.0.1:<port>/v1".
  std::string base_url() const;
  int requests() const;
  /// Requests per prompt key (SHA-256 hex of system, 0x1F, user).
  std::map<std::string, int> per_prompt() const;
  std::vector<std::string> authorization_headers() const;
  std::vector<nlohmann::json> bodies() const;

 private:
  Script script_;
  std::unique_ptr<httplib::Server> svr_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  int calls_ = 0;
  std::map<std::string, int> per_prompt_;
  std::vector<std::string> auth_;
  std::vector<nlohmann::json> bodies_;
};

/// The prompt key of a request body (messages[0].content, messages[1].content).
std::string prompt_key(const nlohmann::json& request);

/// A port on 127.0.0.1 where nothing listens (bound, then closed).
int closed_port();

}  // namespace steptp::evaltest
