// Grading one model-written program against the program it was asked to transform (DATASET.md §8 gates, §9.4
// suspicious-speedup re-check). Gates, in sequence (a gate counts only when all earlier ones passed):
//   parsed      the strict parse of the reply succeeded (step/answer_parser.hpp; decided by the caller);
//   differs     the alpha-canonical after differs from the before (an unparseable text differs when its trimmed
//               text differs from the printed before);
//   valid       the LEIR parses, S5 static validation passes with the before's known list, the program runs at
//               most max_work_ratio times the before's statement instances (`over_budget`), the TVMScript and C
//               lowerings succeed and, when measuring, the C compiler accepts the kernel;
//   equivalent  the S5 protocol on the before's reference outputs, drawn from the fresh stream "eval-equiv"
//               (K normal draws + one uniform draw; tolerance of the output dtype, as the prompt promises), then
//               the strict stage (step/strict_equiv.hpp: wide and literal-directed draws, and for small
//               programs the draws of `steptp equiv`; reason `strict_not_equivalent`; skipped above its statement
//               budget or when off);
//   faster      S7 (paired, interleaved timing) gives speedup >= faster_threshold and the pair is not noisy; an
//               answer above `suspicious_speedup` on a compute-bound before (intensity >= compute_bound_intensity
//               flop/B), or above 10 on any, must also pass the re-check: `recheck_trials` draws of stream
//               "recheck" plus the uniform draw, then a cold-cache re-measurement in reversed order that must still
//               reach faster_threshold, not noisy.
// Informational: strategy_consistent (the after is alpha-equivalent to apply(claimed strategy, before, c) for one
// of its first `consistency_enum_limit` enumerated candidates c) and reasoning_verified (the think block equals,
// clause by clause, the reasoning the renderer writes for that candidate — the §6.3 checker with the answer taken
// as the record). Crashes and hangs of a compiled kernel happen in a sandboxed child and fail the gate they hit.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "step/equiv.hpp"
#include "step/strict_equiv.hpp"
#include "step/timing.hpp"
#include "step/answer_parser.hpp"
#include "ir/task.hpp"
#include "strategies/registry.hpp"

namespace steptp::eval {

using core::AnswerProgram;
using core::ojson;
using core::ParsedAnswer;
using core::parse_answer;

struct GradeConfig {
  std::uint64_t master_seed = 0;        // the dataset's master seed (streams derive from it)
  int equiv_draws = 3;                  // normal draws; one uniform draw is added
  std::int64_t interp_max_ops = 50000000;
  bool measure = true;                  // false: no compile, no S7 (faster is never reached)
  double faster_threshold = 1.05;
  double suspicious_speedup = 3.0;
  double compute_bound_intensity = 4.0;  // flop/B
  int recheck_trials = 10;
  int consistency_enum_limit = 256;     // candidates of the claimed strategy tried by strategy_consistent
  double max_work_ratio = 64;            // an answer running more than this many times the before's statement
                                         // instances fails `valid` as over_budget (it would only stall the eval)
  std::string equiv_stream = "eval-equiv";  // named stream of the equivalence draws ("search-equiv" in search)
  /// The strict stage of the equivalent gate (step/strict_equiv.hpp): after S5, the answer is compared with the
  /// root on wide and literal-directed draws (and, for small programs, the draws of `steptp equiv`);
  /// `--no-strict-equivalence` turns it off (DATASET.md §8's S5-only gate).
  dataset::StrictConfig strict;
  bool recheck_faster = true;           // re-check suspicious speedups inside grade(); search turns this off and
                                        // re-checks only the result it reports (DATASET.md §9.4), via recheck()
  bool pair_with_parent = false;        // search form: time the program paired with `parent` instead of `root`
                                        // (speedup and measurement are then relative to the parent; §9.1)
};

/// The program a prompt asks to transform, with its lazily computed reference outputs (thread-safe).
class TaskContext {
 public:
  /// `before` must validate (it comes from the dataset). Throws LeirError otherwise.
  explicit TaskContext(ir::Task before);
  const ir::Task& before() const { return before_; }
  const std::string& canonical() const { return canon_; }
  const std::string& printed() const { return printed_; }
  const std::string& task_key() const { return task_key_; }
  double intensity() const { return intensity_; }   // flops / minimum traffic of the before (flop/B)
  std::int64_t instances() const { return instances_; }  // statement instances of the before
  /// Reference outputs on the draws of `cfg.stream` ("eval-equiv", "eval-equiv-strict" or "recheck"); computed
  /// once per stream.
  const dataset::Reference& reference(const dataset::EquivConfig& cfg);

 private:
  ir::Task before_;
  std::string canon_, printed_, task_key_;
  double intensity_ = 0;
  std::int64_t instances_ = 0;
  std::mutex mu_;
  std::vector<std::pair<std::string, std::shared_ptr<dataset::Reference>>> refs_;
};

/// Outcome of one program.
struct ProgramGrade {
  std::string strategy, leir;            // as the model wrote them
  bool differs = false, valid = false, equivalent = false, faster = false;
  std::string failed_gate;               // first gate that failed: "differs", "valid", "equivalent", "faster"; "" if all passed
  std::string reason, detail;            // why it failed (parse_error, E2xx validation code, not_equivalent, ...)
  std::optional<double> speedup;         // measured before/after latency ratio (equivalent programs, when measuring)
  bool noisy = false;
  ojson measurement;                     // the §4 measurement object, or null
  ojson recheck;                         // null, or {trigger, equivalent, speedup, noisy, passed, detail}
  ojson strict;                          // null (S5 failed or not reached), or StrictOutcome::to_json()
  std::string check;                     // how S5 ran: "interpreter", "compiled_c" (programs over interp_max_ops)
                                         // or "interpreter_vs_compiled_c"; "" when S5 did not pass
  bool strategy_consistent = false;
  std::string candidate;                 // the first matching candidate id when consistent
  std::string canonical;                 // alpha-canonical after (trimmed text when it does not parse); not serialised
  /// The first matching (candidate, apply result); not serialised.
  std::shared_ptr<std::vector<std::pair<strategy::Candidate, strategy::Applied>>> matches;
  ojson to_json() const;
};

class Grader {
 public:
  /// `timer` may be null when cfg.measure is false. `recheck_timer` measures with a cold cache (§9.4); it may be
  /// null, in which case the re-measurement uses `timer`.
  Grader(GradeConfig cfg, dataset::Timer* timer, dataset::Timer* recheck_timer);
  /// Runs the gates on one program. `think`: the answer's reasoning; a candidate id it names ("candidate
  /// loop_split@0/l1{outer=6}") is tried first by strategy_consistent. Never throws for defects of the program.
  ProgramGrade grade(TaskContext& ctx, const AnswerProgram& p, const std::string& think = "") {
    return grade(ctx, ctx, p, think);
  }
  /// The search form (DATASET.md §9.1): `differs`, the known list and strategy_consistent are judged against
  /// `parent` (the program the policy was asked to transform); over_budget and equivalence against `root` (the
  /// search's starting program), so every node stays equivalent to the root; the paired measurement against
  /// `root`, or against `parent` with GradeConfig::pair_with_parent.
  ProgramGrade grade(TaskContext& parent, TaskContext& root, const AnswerProgram& p, const std::string& think = "");
  /// The §9.4 trigger for a speedup over `root`: "speedup above 10", "speedup above S on a compute-bound task"
  /// (root intensity >= compute_bound_intensity flop/B), or "" when no re-check is due.
  std::string recheck_trigger(const TaskContext& root, double speedup) const;
  /// The §9.4 re-check of `after` (a program equivalent to root.before()): recheck_trials fresh draws of stream
  /// "recheck", then a cold-cache re-measurement in reversed order that must still reach faster_threshold and not
  /// be noisy. Returns {trigger, equivalent, speedup, noisy, passed, detail}. Never throws.
  ojson recheck(TaskContext& root, const ir::Task& after, const std::string& trigger);
  /// reasoning_verified for an answer whose every program was graded: the think text equals the single-answer
  /// reasoning (one program) or the multi-answer reasoning (§6.2 "Option i of n") of the matched candidates.
  /// Returns {verified, failing clause or reason}.
  std::pair<bool, std::string> verify_reasoning(TaskContext& ctx, const ParsedAnswer& a,
                                                const std::vector<ProgramGrade>& grades);
  const GradeConfig& config() const { return cfg_; }
  /// A paired measurement of (`before`, `after`) with this grader's timer: the §4 measurement object, or the
  /// error text of a failed one. Gates nothing (`after` has passed them).
  dataset::Timer::Outcome measure_pair(TaskContext& before, const ir::Task& after);

 private:
  dataset::EquivConfig equiv_config(const std::string& stream, int draws) const;
  /// The strict stage of the equivalent gate for `after` (step/strict_equiv.hpp), with `root`'s outputs on the
  /// strict draws computed once per root.
  dataset::StrictOutcome strict_stage(TaskContext& root, const ir::Task& after) const;
  void consistency(TaskContext& ctx, const ir::Task& after, ProgramGrade& g, const std::string& think);
  void measure(TaskContext& root, const ir::Task& after, ProgramGrade& g);

  GradeConfig cfg_;
  dataset::Timer* timer_;
  dataset::Timer* recheck_timer_;
};

}  // namespace steptp::eval
