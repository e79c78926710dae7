// A raw HTTP endpoint for the malformed-reply tests (issue #48 item 7): one thread with plain sockets listening on
// 127.0.0.1 (an ephemeral port), started by the test and stopped by its destructor. Each connection is served in
// turn: one request is read (headers up to 64 KiB, a Content-Length body up to 8 MiB, 5 s per read), the script
// gives the exact bytes to send back (no status line or header is added), and the connection is closed.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace steptp::evaltest {

class RawHttpServer {
 public:
  /// script(request body as JSON (discarded when not JSON), index of this request over all requests) -> bytes.
  using Script = std::function<std::string(const nlohmann::json& request, int call)>;
  explicit RawHttpServer(Script script);
  ~RawHttpServer();
  RawHttpServer(const RawHttpServer&) = delete;
  RawHttpServer& operator=(const RawHttpServer&) = delete;

  /// "http://127.0.0.1:<port>/v1".
  std::string base_url() const;
  int requests() const;
  /// Requests per prompt key (prompt_key in chat_server.hpp).
  std::map<std::string, int> per_prompt() const;

 private:
  void serve(int fd);

  Script script_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  int calls_ = 0;
  std::map<std::string, int> per_prompt_;
};

/// A well-formed HTTP/1.1 reply: the status line, Content-Type: application/json, Content-Length, Connection: close.
std::string http_reply(int status, const std::string& body);

}  // namespace steptp::evaltest
