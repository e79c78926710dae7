// The `llm` policy (DATASET.md §9.3): an OpenAI-compatible chat-completions client on libcurl (TLS via OpenSSL).
// `POST {base_url}/chat/completions` with {model, messages: [system, user], temperature, max_tokens, n: 1,
// stream: false[, seed]}. It reads choices[0].message.content, a separate `reasoning_content` (vLLM, SGLang,
// DeepSeek) or `reasoning` (newer vLLM) field, re-wrapped in <think>, choices[0].finish_reason ("length" =
// truncated) and `usage` when present — the shape vLLM, SGLang, llama.cpp's server, Ollama's /v1 and hosted APIs
// return.
//
// Retries: timeouts, connection errors, malformed HTTP replies (`bad_reply`: a body shorter than its
// Content-Length, an HTTP/0.9 reply, oversized headers) and HTTP 408/429/5xx are retried up to `retries` times after
// a delay of min(60 s, backoff_s · 2^attempt) · U[0.5, 1.5) (a 429's Retry-After seconds are honoured up to 60 s);
// once spent, a timeout or bad_reply fails that prompt only. Other errors fail at once as `policy_error`. The API
// key is read from the environment variable named by `api_key_env`, sent only in the Authorization header, and never written to an error message, log line,
// transcript or cache row (any echo of it in a response body is replaced by "***").
//
// Every successful exchange is stored in the `llm_calls` table of the cache under DATASET.md §3's key
// H(endpoint, model, messages, temperature, max_tokens, sample index); a later call with the same key is answered
// from the cache (Reply::cached) without a request, so a rerun after a crash asks nothing twice.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "step/cache.hpp"
#include "policy/policy.hpp"

namespace steptp::policy {

struct LlmConfig {
  std::string base_url;             // "http://127.0.0.1:8000/v1"; "/chat/completions" is appended
  std::string model;
  double temperature = 0.0;
  int max_tokens = 8192;
  double timeout_s = 600;           // per request, connection included
  int retries = 3;                  // extra attempts after the first, for retryable failures only
  double backoff_s = 1.0;           // first retry delay before jitter (seconds)
  std::string api_key_env;          // environment variable holding the key; "" = no Authorization header
  std::optional<std::uint64_t> seed;  // sent as "seed" when set (vLLM, SGLang, llama.cpp and OpenAI accept it)
};

class LlmPolicy : public Policy {
 public:
  /// Checks the configuration: an http:// or https:// URL with a host, a model name, positive limits, and the key
  /// variable set when named. Throws PolicyError("policy_error", ..., fatal = true) naming the bad field.
  /// `cache` may be null (no llm_calls lookups or stores).
  LlmPolicy(LlmConfig cfg, core::Cache* cache);
  std::string name() const override { return "llm"; }
  Reply reply(const Prompt& p, int sample) override;

  /// "{base_url}/chat/completions" with any user:password@ removed (the form used in messages and transcripts).
  const std::string& endpoint() const { return shown_endpoint_; }
  /// HTTP requests sent so far (each retry counts).
  std::int64_t requests() const { return requests_.load(); }
  /// The llm_calls key of (prompt, sample) under this configuration.
  std::string call_key(const Prompt& p, int sample) const;

 private:
  Reply request(const Prompt& p, int sample);
  std::string redact(std::string s) const;

  LlmConfig cfg_;
  core::Cache* cache_;
  std::string endpoint_, shown_endpoint_, api_key_;
  std::atomic<std::int64_t> requests_{0};
};

/// Parses a chat-completions response body into a Reply (content, reasoning re-wrapped in <think>, finish_reason,
/// usage). Throws PolicyError("policy_error", ...) when the body is not JSON or has no choices[0].message.
Reply parse_chat_response(const std::string& body);

}  // namespace steptp::policy
