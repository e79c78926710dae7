#include "policy/llm_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "base/hash.hpp"
#include "base/json_text.hpp"

namespace steptp::policy {
namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

/// Largest response body kept (a chat completion is a few KiB): a longer one stops the transfer (libcurl's write
/// error after the headers), which malformed_reply() makes that prompt's bad_reply.
constexpr std::size_t kMaxResponseBytes = std::size_t{64} << 20;

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (size * n > kMaxResponseBytes - std::min(body->size(), kMaxResponseBytes)) return 0;
  body->append(data, size * n);
  return size * n;
}

/// What the header callback keeps of a response: its Retry-After seconds and how many header lines arrived.
struct HeaderInfo {
  double retry_after = 0;
  std::size_t lines = 0;
};

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* info = static_cast<HeaderInfo*>(user);
  ++info->lines;
  std::string h(data, size * n);
  auto colon = h.find(':');
  if (colon != std::string::npos) {
    std::string key = h.substr(0, colon);
    for (auto& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (key == "retry-after") {
      try {
        info->retry_after = std::stod(h.substr(colon + 1));
      } catch (const std::exception&) {  // an HTTP date instead of seconds: use our own backoff
      }
    }
  }
  return size * n;
}

/// True when the endpoint was asked and answered, but not with a well-formed HTTP reply: a body shorter than its
/// Content-Length, an HTTP/0.9 reply without a status line (the URL's scheme is checked up front, so this is the
/// only unsupported protocol left once the request is sent), a header line over libcurl's 100 KB (reported as
/// out of memory), a broken compressed body, or any failure after the first header line (headers over libcurl's
/// 300 KB in all). A malformed reply fails that prompt, not the run.
bool malformed_reply(CURLcode rc, bool request_sent, std::size_t header_lines) {
  if (!request_sent) return false;
  switch (rc) {
    case CURLE_PARTIAL_FILE: case CURLE_WEIRD_SERVER_REPLY: case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_OUT_OF_MEMORY: case CURLE_BAD_CONTENT_ENCODING:
#if LIBCURL_VERSION_NUM >= 0x080600
    case CURLE_TOO_LARGE:
#endif
      return true;
    default:
      return header_lines > 0;
  }
}

/// Strips "user:password@" from a URL so it can appear in messages.
std::string strip_userinfo(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto host = scheme + 3;
  auto slash = url.find('/', host);
  auto at = url.rfind('@', slash == std::string::npos ? url.size() : slash);
  if (at == std::string::npos || at < host) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

std::string str_or_empty(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t int_or(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

/// Retry delay in seconds (header comment of llm_client.hpp).
double backoff_delay(double base, int attempt, double retry_after) {
  thread_local std::mt19937_64 g{std::random_device{}()};
  double jitter = 0.5 + double(g() >> 11) * 0x1.0p-53;
  double d = std::min(60.0, base * std::ldexp(1.0, attempt)) * jitter;
  if (retry_after > 0) d = std::max(d, std::min(60.0, retry_after));
  return d;
}

}  // namespace

Reply parse_chat_response(const std::string& body) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const std::exception&) {
    throw PolicyError("policy_error", "malformed JSON in the response (" + std::to_string(body.size()) + " bytes)", false);
  }
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
      !j["choices"][0].is_object() || !j["choices"][0].contains("message") || !j["choices"][0]["message"].is_object())
    throw PolicyError("policy_error", "response has no choices[0].message", false);
  const auto& choice = j["choices"][0];
  const auto& msg = choice["message"];
  Reply r;
  std::string reasoning = str_or_empty(msg, "reasoning_content");
  if (reasoning.empty()) reasoning = str_or_empty(msg, "reasoning");
  r.content = str_or_empty(msg, "content");
  if (!reasoning.empty()) r.content = "<think>\n" + reasoning + "\n</think>\n" + r.content;
  r.finish_reason = str_or_empty(choice, "finish_reason");
  r.truncated = r.finish_reason == "length";
  if (j.contains("usage") && j["usage"].is_object()) {
    r.prompt_tokens = int_or(j["usage"], "prompt_tokens");
    r.completion_tokens = int_or(j["usage"], "completion_tokens");
  }
  return r;
}

LlmPolicy::LlmPolicy(LlmConfig cfg, core::Cache* cache) : cfg_(std::move(cfg)), cache_(cache) {
  global_init();
  const std::string& u = cfg_.base_url;
  bool scheme_ok = u.rfind("http://", 0) == 0 || u.rfind("https://", 0) == 0;
  std::string rest = scheme_ok ? u.substr(u.find("://") + 3) : "";
  if (!scheme_ok || rest.empty() || rest[0] == '/' || rest[0] == ':' || rest.find(' ') != std::string::npos)
    throw PolicyError("policy_error", "--base-url '" + strip_userinfo(u) + "' is not an http:// or https:// URL with a host", true);
  if (cfg_.model.empty()) throw PolicyError("policy_error", "--model is required with --policy llm", true);
  if (cfg_.max_tokens <= 0 || cfg_.timeout_s <= 0 || cfg_.retries < 0 || cfg_.backoff_s < 0)
    throw PolicyError("policy_error", "--max-tokens and --timeout must be positive, --retries and --backoff non-negative", true);
  if (!cfg_.api_key_env.empty()) {
    const char* k = std::getenv(cfg_.api_key_env.c_str());
    if (!k || !*k) throw PolicyError("policy_error", "--api-key-env names " + cfg_.api_key_env + ", which is not set", true);
    api_key_ = k;
  }
  std::string base = u;
  while (!base.empty() && base.back() == '/') base.pop_back();
  endpoint_ = base + "/chat/completions";
  shown_endpoint_ = strip_userinfo(endpoint_);
}

std::string LlmPolicy::redact(std::string s) const {
  if (api_key_.empty()) return s;
  for (auto p = s.find(api_key_); p != std::string::npos; p = s.find(api_key_, p + 3)) s.replace(p, api_key_.size(), "***");
  return s;
}

std::string LlmPolicy::call_key(const Prompt& p, int sample) const {
  nlohmann::json messages = nlohmann::json::array({{{"role", "system"}, {"content", p.system}},
                                                   {{"role", "user"}, {"content", p.user}}});
  char temp[32];
  std::snprintf(temp, sizeof temp, "%.17g", cfg_.temperature);
  return core::H({shown_endpoint_, cfg_.model, messages.dump(), temp, std::to_string(cfg_.max_tokens),
                  std::to_string(sample)});
}

Reply LlmPolicy::reply(const Prompt& p, int sample) {
  const std::string key = call_key(p, sample);
  if (cache_) {
    if (auto hit = cache_->get("llm_calls", key)) {
      auto j = nlohmann::json::parse(*hit);
      Reply r;
      r.content = j.at("content");
      r.finish_reason = j.at("finish_reason");
      r.truncated = j.at("truncated");
      r.prompt_tokens = j.at("prompt_tokens");
      r.completion_tokens = j.at("completion_tokens");
      r.raw = j.at("raw");
      r.cached = true;
      return r;
    }
  }
  Reply r = request(p, sample);
  if (cache_) {
    nlohmann::json j{{"content", r.content}, {"finish_reason", r.finish_reason}, {"truncated", r.truncated},
                     {"prompt_tokens", r.prompt_tokens}, {"completion_tokens", r.completion_tokens},
                     {"raw", r.raw}, {"latency_s", r.latency_s}, {"attempts", r.attempts}};
    cache_->put("llm_calls", key, j.dump());
  }
  return r;
}

Reply LlmPolicy::request(const Prompt& p, int sample) {
  nlohmann::json body{{"model", cfg_.model},
                      {"messages", nlohmann::json::array({{{"role", "system"}, {"content", p.system}},
                                                          {{"role", "user"}, {"content", p.user}}})},
                      {"temperature", cfg_.temperature},
                      {"max_tokens", cfg_.max_tokens},
                      {"n", 1},
                      {"stream", false}};
  if (cfg_.seed) body["seed"] = *cfg_.seed + std::uint64_t(sample);
  const std::string payload = body.dump();
  std::vector<std::string> retried;
  for (int attempt = 0;; ++attempt) {
    CURL* h = curl_easy_init();
    if (!h) throw PolicyError("policy_error", "curl_easy_init failed", true);
    std::string resp;
    HeaderInfo hinfo;
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    std::string auth;
    if (!api_key_.empty()) {
      auth = "Authorization: Bearer " + api_key_;
      headers = curl_slist_append(headers, auth.c_str());
    }
    curl_easy_setopt(h, CURLOPT_URL, endpoint_.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.size()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &hinfo);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, long(cfg_.timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, long(std::min(cfg_.timeout_s, 30.0) * 1000));
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // gzip/deflate/br when the server offers them
    curl_easy_setopt(h, CURLOPT_USERAGENT, "steptp/0.1.0");
    auto t0 = std::chrono::steady_clock::now();
    ++requests_;
    CURLcode rc = curl_easy_perform(h);
    double latency = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    long status = 0, request_size = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &request_size);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
    auto where = " from " + shown_endpoint_ + " (prompt " + p.id + ")";

    std::string code, msg;
    bool retryable = false, fatal_when_spent = false;
    if (rc != CURLE_OK) {
      std::string what = errbuf[0] ? errbuf : curl_easy_strerror(rc);
      if (rc == CURLE_OPERATION_TIMEDOUT) {
        code = "timeout", retryable = true;
      } else if (malformed_reply(rc, request_size > 0, hinfo.lines)) {  // this prompt's failure once retries are spent
        code = "bad_reply", retryable = true, what = "malformed HTTP reply: " + what;
      } else {
        switch (rc) {
          case CURLE_COULDNT_CONNECT: case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY:
          case CURLE_SEND_ERROR: case CURLE_RECV_ERROR: case CURLE_GOT_NOTHING:
            code = "connection_error", retryable = true, fatal_when_spent = true;
            break;
          default:  // malformed URL, unsupported protocol, TLS failures: nothing later can succeed
            throw PolicyError("policy_error", redact(what) + where, true);
        }
      }
      msg = redact(what) + where;
    } else if (status == 408 || status == 429 || status >= 500) {
      code = "http_" + std::to_string(status), retryable = true, fatal_when_spent = true;
      msg = "HTTP " + std::to_string(status) + where + ": " + redact(resp.substr(0, 200));
    } else if (status < 200 || status >= 300) {
      bool fatal = status == 401 || status == 403 || status == 404;
      throw PolicyError("policy_error", "HTTP " + std::to_string(status) + where + ": " + redact(resp.substr(0, 200)), fatal);
    } else {
      Reply r = parse_chat_response(resp);  // throws policy_error on a malformed body (not retried)
      r.raw = redact(resp);
      r.content = redact(r.content);
      r.latency_s = latency;
      r.attempts = attempt + 1;
      r.retried = std::move(retried);
      return r;
    }
    if (!retryable || attempt >= cfg_.retries)
      throw PolicyError(code, msg + " (after " + std::to_string(attempt + 1) + " attempts)", fatal_when_spent);
    retried.push_back(code);
    std::this_thread::sleep_for(
        std::chrono::duration<double>(backoff_delay(cfg_.backoff_s, attempt, hinfo.retry_after)));
  }
}

}  // namespace steptp::policy
