// `steptp eval` (DATASET.md §8): sends a split's evaluation prompts (OUT/eval/{val,test}.prompts.jsonl) to a
// policy, grades every reply with eval/grader.hpp and writes EVAL_OUT/{results.jsonl, summary.json, summary.md,
// transcripts.jsonl, run.json}, each atomically (temporary file, fsync, rename).
//
// Resumption: every exchange with an llm endpoint is committed to the `llm_calls` table of EVAL_OUT/cache.sqlite
// (or --cache) as soon as it returns, and every graded answer to `eval_grades`; a rerun after kill -9 answers
// those prompts from the cache (no request is repeated) and re-grades nothing it has stored. results.jsonl and
// transcripts.jsonl are rewritten every few seconds with the answers finished so far, so what is on disk is always
// complete JSON lines. summary.json depends only on the graded answers (no latencies or cache counters: those go to
// run.json), so an interrupted and resumed run gives the same summary.json as an uninterrupted one (with
// --timer fixed, or from the measurement cache).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "base/json_text.hpp"
#include "eval/grader.hpp"
#include "policy/llm_client.hpp"

namespace steptp::eval {

/// Bad input of an eval (unknown split, a malformed prompt line, unknown policy, bad option values): the CLI prints
/// the message as one line and exits 2. A dataset directory that is not one (no manifest, missing or empty split
/// file, a line that is not JSON) is a dataset::DatasetDirError (D001-D003) instead.
class EvalInputError : public Error {
 public:
  explicit EvalInputError(const std::string& msg, Code c = Code::UncodedInput) : Error(c, msg) {}
};

/// The EvalInputErrors that are command-line usage errors (a flag value or combination eval refuses: --samples 0,
/// an unknown split or timer, --policy replay without --replay): the CLI prints them with code U001.
class EvalUsageError : public EvalInputError {
 public:
  explicit EvalUsageError(const std::string& msg) : EvalInputError(msg, Code::U001) {}
};

struct EvalOptions {
  std::string data_dir;               // a dataset written by `steptp generate` / `export`
  std::string split = "test";         // val | test
  std::string out_dir;                // EVAL_OUT
  std::string policy = "llm";         // llm | replay | random
  policy::LlmConfig llm;              // --policy llm
  std::string replay_file;            // --policy replay
  std::uint64_t policy_seed = 0;      // --policy random (0 = the dataset's master seed)
  int samples = 1;                    // answers per prompt (pass@k)
  std::string llm_mode = "multi";     // multi: send n >= 2 prompts as they are; samples: n requests with n = 1
  int concurrency = 4;                // prompts in flight (requests and grading)
  bool measure = true;                // false: stop at the equivalent gate, no compilation
  std::string timer = "real";         // real | fixed (deterministic latency model, for tests)
  int repeats = 0;                    // timing repeats; 0 = the dataset's
  std::string cache_path;             // "" = EVAL_OUT/cache.sqlite
  int limit = 0;                      // evaluate only the first `limit` prompts (0 = all)
  int only_n = 0;                     // evaluate only the prompts asking for this many programs (0 = all)
  bool progress = true;               // progress line on stderr
  GradeConfig grade;                  // master_seed is taken from the dataset's manifest
};

struct EvalResult {
  ojson summary;                      // summary.json
  ojson run;                          // run.json: wall time, requests, cache hits, latencies
};

/// Runs the evaluation. Throws EvalInputError on bad input, policy::PolicyError when the endpoint fails in a way
/// no later prompt can survive (the partial results.jsonl and transcripts.jsonl are written first), and
/// std::runtime_error on I/O failures.
EvalResult run_eval(const EvalOptions& opt);

/// The gold replay file of a split (DATASET.md §8 self-check): for each evaluation prompt, the split's own assistant
/// messages with that user message (chat/<split>.jsonl, in file order); for an n >= 2 prompt, one multi-answer
/// reply built from the first n records of distinct strategies of its task (archive order), rendered as the
/// exporter renders multi-N samples. Lines {"prompt_sha256", "replies"}, in prompt order. Throws EvalInputError.
std::vector<ojson> gold_replay(const std::string& data_dir, const std::string& split);

}  // namespace steptp::eval
