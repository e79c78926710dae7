// The policy layer (DATASET.md §9.3): one interface, "given a prompt, give a reply", shared by `steptp eval` (§8)
// and `steptp search` (§9). A prompt is the system + user pair of the one renderer (step/prompt.hpp); a reply is
// the assistant text the strict answer parser (step/answer_parser.hpp) reads. Implementations:
//   llm     an OpenAI-compatible chat-completions endpoint (policy/llm_client.hpp),
//   replay  recorded replies from a JSONL file (policy/replay.hpp),
//   random  a uniformly drawn legal strategy application (policy/random_policy.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::policy {

/// One prompt as the model sees it. `task` (the current program with its known list, named after the workload)
/// lets policies that do not read text (random, cost) act on the program; the llm and replay policies only use
/// the messages.
struct Prompt {
  std::string id;        // eval prompt id ("test-<task_id>-n1") or search node id; for logs and transcripts
  std::string system;    // system message, verbatim
  std::string user;      // user message, verbatim
  int n = 1;             // programs the user message asks for (the §5.2 task line)
  const ir::Task* task = nullptr;
  /// Search only: true for an alpha-canonical program the search has already seen (a node of its transposition
  /// table or an earlier proposal); the cost policy proposes only unseen programs. Empty = nothing seen.
  std::function<bool(const std::string& canonical)> seen;
  /// Search only (DATASET.md §9.3 `--measure-guided`): grades `leir`, a program of this prompt's task made by
  /// `strategy` (printed candidate id `candidate`, or ""), as the search grades a proposal at this node:
  /// equivalence to the root, then a measurement paired with it. Returns its speedup over the root, or nullopt when
  /// it is not equivalent, cannot be measured, or the search's measurement budget is spent. Each equivalent program
  /// counts once against that budget: proposing it afterwards reuses the grade. Empty outside a search.
  std::function<std::optional<double>(const std::string& strategy, const std::string& leir,
                                      const std::string& candidate)>
      measure;

  /// DATASET.md §9.3 replay key: SHA-256 hex of system, the byte 0x1F, user (= core::H({system, user})).
  std::string sha256() const;
};

/// One reply. `content` is the assistant text; a separate `reasoning_content` field of the server is re-wrapped as
/// "<think>\n" + reasoning + "\n</think>\n" in front of it, so the parser sees one format from every server.
struct Reply {
  std::string content;
  std::string finish_reason;          // as the server sent it ("stop", "length", ...); "" when absent
  bool truncated = false;             // finish_reason == "length": cut off at max_tokens
  std::int64_t prompt_tokens = -1;    // usage.prompt_tokens, -1 when the server sent no usage
  std::int64_t completion_tokens = -1;
  double latency_s = 0;               // wall time of the successful request (0 when cached or not an llm)
  int attempts = 0;                   // HTTP requests made for this reply (0 when cached or not an llm)
  bool cached = false;                // replayed from the llm_calls cache without asking the endpoint
  bool none = false;                  // the policy has no proposal (a replay file without this prompt)
  std::string raw;                    // the endpoint's response body (llm only), for transcripts
  std::vector<std::string> retried;   // why each failed attempt before the successful one failed ("http_429", ...)
  /// Printed candidate ids ("loop_split@0/l1{outer=6}") behind each program, in answer order, when the policy built
  /// the programs itself (random, cost); empty for text policies (llm, replay).
  std::vector<std::string> candidates;
  /// For each program in answer order: true when the policy has planned a further step from that program (a
  /// multi-step plan such as the cost policy's register-block sketch, whose middle steps gain little on their own).
  /// The search's mcts follows such a plan within one expansion (DATASET.md §9.2). Empty: no plan.
  std::vector<bool> plan_continues;
};

/// A failed request. `code`: "policy_error" (HTTP 4xx other than 408/429, a malformed response: not retried),
/// "timeout" / "bad_reply" (a malformed HTTP reply) / "connection_error" / "http_5xx" / "http_429" / "http_408"
/// (retryable, raised once --retries are spent). `fatal` is true when no later prompt can succeed either
/// (connection refused, bad URL, HTTP 401, 403, 404): callers stop the run; otherwise only this prompt fails.
/// An uncoded steptp::Error (bad input when it reaches a command's top level); what() is "CODE: MSG".
class PolicyError : public Error {
 public:
  PolicyError(std::string code, const std::string& msg, bool fatal)
      : Error(Code::UncodedInput, msg, {}, code + ": " + msg), code_(std::move(code)), fatal_(fatal) {}
  const std::string& code() const { return code_; }
  bool fatal() const { return fatal_; }

 private:
  std::string code_;
  bool fatal_;
};

/// The policy interface. Implementations are thread-safe: `reply` may run concurrently for different prompts.
class Policy {
 public:
  virtual ~Policy() = default;
  /// "llm", "replay" or "random".
  virtual std::string name() const = 0;
  /// The reply to `p` with sample index `sample` (0, 1, ...: pass@k samples, or a search node's later asks).
  /// Deterministic policies return the same reply for the same (prompt, sample). Throws PolicyError.
  virtual Reply reply(const Prompt& p, int sample) = 0;
  /// What the policy runs with, for a run's summary (the cost policy: its model and why), or null.
  virtual core::ojson describe() const { return nullptr; }
};

}  // namespace steptp::policy
