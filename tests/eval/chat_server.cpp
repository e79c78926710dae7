#include "chat_server.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "base/hash.hpp"

namespace steptp::evaltest {

std::string completion_body(const std::string& content, const std::string& finish_reason, const std::string& reasoning,
                            bool usage) {
  nlohmann::json msg{{"role", "assistant"}, {"content", content}};
  if (!reasoning.empty()) msg["reasoning_content"] = reasoning;
  nlohmann::json j{{"id", "chatcmpl-test"}, {"object", "chat.completion"}, {"created", 0}, {"model", "test-model"},
                   {"choices", nlohmann::json::array({{{"index", 0}, {"message", msg}, {"finish_reason", finish_reason}}})}};
  if (usage) j["usage"] = {{"prompt_tokens", 100}, {"completion_tokens", 20}, {"total_tokens", 120}};
  return j.dump();
}

std::string prompt_key(const nlohmann::json& request) {
  try {
    return core::H({request.at("messages").at(0).at("content").get<std::string>(),
                    request.at("messages").at(1).at("content").get<std::string>()});
  } catch (const std::exception&) {
    return "";
  }
}

ChatServer::ChatServer(Script script) : script_(std::move(script)), svr_(std::make_unique<httplib::Server>()) {
  svr_->Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    int prompt_call, call;
    {
      std::lock_guard<std::mutex> lock(mu_);
      call = calls_++;
      std::string k = prompt_key(body);
      prompt_call = per_prompt_[k]++;
      auth_.push_back(req.get_header_value("Authorization"));
      bodies_.push_back(body);
    }
    ScriptedReply r = script_(body, prompt_call, call);
    if (r.delay_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(r.delay_s));
    res.status = r.status;
    for (const auto& [k, v] : r.headers) res.set_header(k, v);
    res.set_content(r.body, "application/json");
  });
  port_ = svr_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { svr_->listen_after_bind(); });
  while (!svr_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ChatServer::~ChatServer() {
  svr_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string ChatServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

int ChatServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

std::map<std::string, int> ChatServer::per_prompt() const {
  std::lock_guard<std::mutex> lock(mu_);
  return per_prompt_;
}

std::vector<std::string> ChatServer::authorization_headers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return auth_;
}

std::vector<nlohmann::json> ChatServer::bodies() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bodies_;
}

int closed_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

}  // namespace steptp::evaltest
