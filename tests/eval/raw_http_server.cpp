#include "raw_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "chat_server.hpp"

namespace steptp::evaltest {
namespace {

constexpr std::size_t kRawMaxHead = 64 * 1024, kRawMaxBody = 8 * 1024 * 1024;

std::string raw_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

/// The Content-Length of a request head (0 when absent or unreadable).
std::size_t raw_content_length(const std::string& head) {
  const std::string lower = raw_lower(head);
  auto at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  try {
    return std::min<std::size_t>(std::stoull(lower.substr(at + 17)), kRawMaxBody);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

std::string http_reply(int status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

RawHttpServer::RawHttpServer(Script script) : script_(std::move(script)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("RawHttpServer: socket() failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("RawHttpServer: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept(listen_fd_, nullptr, nullptr);
      if (c < 0) continue;
      serve(c);
      ::close(c);
    }
  });
}

RawHttpServer::~RawHttpServer() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

void RawHttpServer::serve(int fd) {
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string in;
  char buf[16384];
  std::size_t head_end = std::string::npos;
  while (head_end == std::string::npos && in.size() < kRawMaxHead) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    in.append(buf, std::size_t(n));
    head_end = in.find("\r\n\r\n");
  }
  if (head_end == std::string::npos) return;
  if (raw_lower(in.substr(0, head_end + 2)).find("\r\nexpect: 100-continue\r\n") != std::string::npos)
    ::send(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
  const std::size_t want = head_end + 4 + raw_content_length(in.substr(0, head_end + 2));
  while (in.size() < want) {
    ssize_t n = ::recv(fd, buf, std::min(sizeof buf, want - in.size()), 0);
    if (n <= 0) return;
    in.append(buf, std::size_t(n));
  }
  const nlohmann::json body = nlohmann::json::parse(in.substr(head_end + 4), nullptr, false);
  int call;
  {
    std::lock_guard<std::mutex> lock(mu_);
    call = calls_++;
    ++per_prompt_[prompt_key(body)];
  }
  const std::string out = script_(body, call);
  for (std::size_t sent = 0; sent < out.size();) {
    ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the client gave up (a header over its limit): nothing more to send
    sent += std::size_t(n);
  }
  ::shutdown(fd, SHUT_WR);
  // Wait (briefly) for the client to close first, so that the close is a FIN and not a reset of unread bytes.
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 1000) > 0 && ::recv(fd, buf, sizeof buf, 0) > 0) {
  }
}

std::string RawHttpServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

int RawHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

std::map<std::string, int> RawHttpServer::per_prompt() const {
  std::lock_guard<std::mutex> lock(mu_);
  return per_prompt_;
}

}  // namespace steptp::evaltest
