// The search core of `steptp search` (DATASET.md §9.1): a tree of programs keyed by alpha-canonical form in a
// transposition table, grown one policy request at a time under equal budgets.
//
// A proposal becomes a child only if, in this order, it parses (`parse_error`, ...: the strict answer parser),
// differs from its parent (`no_change`), is not in the table yet (`revisit`), validates (`invalid_program`,
// `over_budget`, `lower_c_error`, `compile_error`, ...), is equivalent to the ROOT on the draws of stream
// "search-equiv" (`not_equivalent`, `nan_mismatch`, ...) and can be measured (`measure_error`); every child is
// measured paired (S7) with its parent (eval::GradeConfig::pair_with_parent, the default of `steptp search`) or
// with the root, and its speedup_vs_root is the product of the paired ratios along its path, or the root-paired
// ratio. Failed proposals are logged with their
// reason and never become nodes.
//
// Budgets (§9.1): every program requested from the policy counts against `proposals` (returned or not, valid or
// not); every newly measured program against `measurements`. A request never asks for more programs than both
// budgets have left, so a search stops exactly when either is spent. A program counts once per search: the
// transposition table makes a second measurement of a program impossible. Measurements answered from the SQLite
// measurement cache of an earlier run still count, so that the search — and its output — does not depend on what
// the cache holds (§11: the same seed gives byte-identical results); they only cost no time. A measure-guided policy
// (§9.3) measures programs itself through Prompt::measure: each equivalent one counts once (policy_measurements());
// proposing it afterwards reuses its grade, and a proposal that would need a measurement after the policy spent the
// budget fails as `budget_spent`.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/json_text.hpp"
#include "eval/grader.hpp"
#include "policy/policy.hpp"

namespace steptp::search {

using core::ojson;

/// The algorithm constants of DATASET.md §9.2 and the budgets of §9.1 (defaults as written there).
struct SearchConfig {
  std::string algorithm = "mcts";   // chain | greedy | beam | dfs | bfs | mcts
  int proposals = 40;               // P
  int measurements = 20;            // M
  double time_limit_s = 3600;       // safety net per task (0 = none)
  int k = 0;                        // programs per request; 0 = the algorithm's default (chain 1, greedy/dfs/bfs 4,
                                    // beam top_k 4, mcts 2)
  int patience = 5;                 // chain: consecutive failures; greedy: stalls; mcts: failures of one node
  double epsilon = 0.02;            // greedy: relative improvement needed to move
  int beam_width = 3;
  int max_depth = 6;                // dfs / bfs
  double c_uct = 1.4, c_pw = 1.0, alpha_pw = 0.5;  // mcts
  std::string llm_mode = "multi";   // multi: one request for k programs; samples: k requests for one
  std::uint64_t seed = 0;           // master seed of the streams "search-equiv", "mcts" (and "policy")
  std::string pair_with = "parent";  // parent | root: what each new program is timed paired with
  int confirm = 3;                  // leading nodes re-measured paired with the root before the result is chosen

  /// Programs per request for this algorithm.
  int programs_per_request() const;
  /// The configuration as JSON (part of the resume key and of summary.json).
  ojson to_json() const;
};

/// The algorithms §9.2 defines, in documentation order.
const std::vector<std::string>& algorithm_names();

/// One program of the search.
struct Node {
  int id = 0;                       // creation order; the root is 0
  int parent = -1;
  int depth = 0;
  std::shared_ptr<eval::TaskContext> ctx;  // the program (and its canonical form)
  std::string strategy;             // the step that made it ("" for the root)
  std::string candidate;            // printed candidate id when known (policy-built, or strategy_consistent)
  ojson params = ojson::object();   // the candidate's named parameter values ({} when unknown)
  double speedup = 1.0;             // speedup_vs_root (1 for the root): the paired measurement with the root, or,
                                    // paired with the parent, the parent's speedup x speedup_vs_parent
  double speedup_vs_parent = 1.0;   // the paired ratio parent / this (equal to speedup for a child of the root)
  bool noisy = false;
  ojson measurement;                // the §4 measurement object of (paired_with, this); null for the root
  std::string check;                // how its equivalence to the root was checked (ProgramGrade::check)
  int paired_with = -1;             // the node timed as the measurement's before (the parent or the root); a
                                    // node paired with its parent that would lead the search is re-timed with the
                                    // root at once (Search::consider), so a compounded error never leads it
  /// Takes `m`, a measurement paired with the root, as this node's figure (speedup, noisy, paired_with 0).
  void adopt_root_measurement(const ojson& m) {
    measurement = m;
    paired_with = 0;
    speedup = m["speedup"].get<double>();
    noisy = m["noisy"].get<bool>();
  }
  std::vector<int> children;
  bool plan_continues = false;      // the policy planned a further step from this program (policy::Reply)
  // algorithm state
  int asks = 0;                     // policy requests made at this node
  int samples = 0;                  // sample indices used at this node (llm-mode samples)
  int fails = 0;                    // consecutive requests without an accepted child
  bool exhausted = false;
  double visits = 0, value = 0;     // MCTS N and W
};

/// One proposal and what became of it.
struct Proposal {
  int node = 0, ask = 0, index = 0;  // parent node, its request number, program index in the request
  std::string strategy;              // as the policy claimed it
  std::string reason;                // "" accepted; else the failure code
  std::string detail;
  int child = -1;                    // the new node when accepted
  std::optional<double> speedup;
  ojson to_json() const;
};

/// What one request at a node produced.
struct AskResult {
  std::vector<int> accepted;         // new children, in proposal order
  int failed = 0;                    // proposals that did not become children
  int requested = 0;                 // programs requested (0: no budget left, nothing asked)
};

/// Thrown out of an algorithm when a policy fails in a way no later request can survive (PolicyError::fatal).
using policy::PolicyError;

class Search {
 public:
  /// `root` must validate (callers check it first: TaskContext throws LeirError otherwise). `grader` is configured
  /// for search (equiv_stream "search-equiv", recheck_faster false) and owns the timer.
  Search(const SearchConfig& cfg, policy::Policy& pol, eval::Grader& grader, std::shared_ptr<eval::TaskContext> root,
         std::string workload);

  /// Asks the policy at `node` for min(k, proposals left, measurements left) programs and grades them; returns
  /// the accepted children. Throws PolicyError when the policy fails fatally.
  AskResult ask(int node, int k);
  /// True when a budget is spent or the time limit passed; `stop_reason()` says which.
  bool out_of_budget();

  const SearchConfig& config() const { return cfg_; }
  std::vector<Node>& nodes() { return nodes_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Proposal>& proposals() const { return log_; }
  const std::vector<ojson>& transcripts() const { return transcripts_; }
  int proposals_used() const { return proposals_used_; }
  int measurements_used() const { return measurements_used_; }
  /// Measurements the policy asked for itself (Prompt::measure, `--measure-guided`); part of measurements_used().
  int policy_measurements() const { return policy_measurements_; }
  /// "proposals", "measurements", "time_limit", or "" (the algorithm terminated with budget left: set by the
  /// caller to "terminated").
  const std::string& stop_reason() const { return stop_reason_; }
  void set_stop_reason(std::string r) { stop_reason_ = std::move(r); }
  /// LLM usage: {requests, cached, prompt_tokens, completion_tokens, no_proposal}.
  ojson llm_usage() const;
  eval::TaskContext& root() { return *nodes_[0].ctx; }
  eval::Grader& grader() { return grader_; }

 private:
  policy::Prompt prompt_for(const Node& n, int programs);
  /// Grades one program proposed at `node`; records it in the log; returns the child or -1.
  int consider(int node, int ask, int index, const std::string& strategy, const std::string& leir,
               const std::string& candidate);
  void fail_all(int node, int ask, int first, int count, const std::string& reason, const std::string& detail);
  /// The grader's verdict on `leir` proposed at `node` (equivalence to the root, paired measurement).
  eval::ProgramGrade grade_at(int node, const std::string& strategy, const std::string& leir,
                              const std::string& candidate);
  /// Prompt::measure at `node`: grades the program once (memoised per node and alpha-canonical program).
  std::optional<double> measure_for_policy(int node, const std::string& strategy, const std::string& leir,
                                           const std::string& candidate);
  std::vector<std::pair<policy::Reply, std::string>> request(const Node& n, int programs);
  /// speedup_vs_root of a child of `node` whose paired measurement gave `paired` (relative to the parent or root).
  double vs_root(int node, double paired) const;
  /// Paired with its parent, `c` beats every node so far: its measurement is replaced by one paired with the root
  /// (not counted against M), so that the search follows root-paired leaders only.
  void confirm_if_leading(Node& c);

  SearchConfig cfg_;
  policy::Policy& pol_;
  eval::Grader& grader_;
  std::string workload_, system_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> table_;   // alpha-canonical -> node
  std::unordered_map<std::string, int> proposed_;  // alpha-canonical of every parsed proposal -> count
  std::vector<Proposal> log_;
  std::vector<ojson> transcripts_;
  /// Grades made for the policy (Prompt::measure), by (node, alpha-canonical program); consider() reuses them.
  std::map<std::pair<int, std::string>, eval::ProgramGrade> pregraded_;
  int proposals_used_ = 0, measurements_used_ = 0, policy_measurements_ = 0;
  double leader_ = 1.0;  // the best speedup of a non-noisy node so far
  std::string stop_reason_;
  std::chrono::steady_clock::time_point start_;
  std::int64_t requests_ = 0, cached_ = 0, prompt_tokens_ = 0, completion_tokens_ = 0, no_proposal_ = 0;
};

/// Runs cfg.algorithm on `s` until it terminates or a budget is spent (DATASET.md §9.2). Sets s.stop_reason().
/// Throws PolicyError on a fatal policy failure.
void run_algorithm(Search& s);

/// The individual algorithms (algorithms.cpp, mcts.cpp).
void run_chain(Search& s);
void run_greedy(Search& s);
void run_beam(Search& s);
void run_dfs(Search& s);
void run_bfs(Search& s);
void run_mcts(Search& s);

}  // namespace steptp::search
