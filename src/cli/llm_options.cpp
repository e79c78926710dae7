#include "cli/llm_options.hpp"

namespace steptp::cli {

void add_llm_options(CLI::App* c, policy::LlmConfig& llm) {
  c->add_option("--base-url", llm.base_url, "llm: endpoint base URL, e.g. http://127.0.0.1:8000/v1 "
                                               "(POST {base-url}/chat/completions)");
  c->add_option("--model", llm.model, "llm: model name sent in each request");
  c->add_option("--temperature", llm.temperature, "llm: sampling temperature")->capture_default_str();
  c->add_option("--max-tokens", llm.max_tokens, "llm: max_tokens per reply (a reply cut there fails as truncated)")
      ->capture_default_str();
  c->add_option("--timeout", llm.timeout_s, "llm: seconds per request, connection included")->capture_default_str();
  c->add_option("--retries", llm.retries, "llm: retries on timeouts, connection errors and HTTP 408/429/5xx, with "
                                             "exponential backoff and jitter; other errors fail at once as policy_error")
      ->capture_default_str();
  c->add_option("--backoff", llm.backoff_s, "llm: first retry delay in seconds (doubles per retry, x0.5-1.5 jitter, "
                                               "at most 60 s)")->capture_default_str();
  c->add_option("--api-key-env", llm.api_key_env, "llm: environment variable holding the API key (sent as a Bearer "
                                                     "token; never printed or logged)");
}

}  // namespace steptp::cli
