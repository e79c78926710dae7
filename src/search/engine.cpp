#include "search/engine.hpp"

#include <algorithm>

#include "step/answer_parser.hpp"
#include "base/hash.hpp"
#include "ir/canon.hpp"
#include "step/prompt.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "strategies/registry.hpp"

namespace steptp::search {

int SearchConfig::programs_per_request() const {
  if (k > 0) return k;
  if (algorithm == "chain") return 1;
  if (algorithm == "mcts") return 2;
  return 4;
}

ojson SearchConfig::to_json() const {
  return {{"algorithm", algorithm}, {"proposals", proposals}, {"measurements", measurements},
          {"k", programs_per_request()}, {"patience", patience}, {"epsilon", epsilon}, {"beam_width", beam_width},
          {"max_depth", max_depth}, {"c_uct", c_uct}, {"c_pw", c_pw}, {"alpha_pw", alpha_pw}, {"llm_mode", llm_mode},
          {"seed", core::hex16(seed)}, {"pair_with", pair_with}, {"confirm", confirm}};
}

const std::vector<std::string>& algorithm_names() {
  static const std::vector<std::string> v{"chain", "greedy", "beam", "dfs", "bfs", "mcts"};
  return v;
}

ojson Proposal::to_json() const {
  return {{"node", node}, {"ask", ask}, {"index", index}, {"strategy", strategy},
          {"reason", reason.empty() ? ojson("accepted") : ojson(reason)}, {"detail", detail},
          {"child", child < 0 ? ojson(nullptr) : ojson(child)}, {"speedup", speedup ? ojson(*speedup) : ojson(nullptr)}};
}

Search::Search(const SearchConfig& cfg, policy::Policy& pol, eval::Grader& grader,
               std::shared_ptr<eval::TaskContext> root, std::string workload)
    : cfg_(cfg), pol_(pol), grader_(grader), workload_(std::move(workload)), system_(core::render_system()),
      start_(std::chrono::steady_clock::now()) {
  Node r;
  r.ctx = std::move(root);
  table_[r.ctx->canonical()] = 0;
  nodes_.push_back(std::move(r));
}

bool Search::out_of_budget() {
  if (proposals_used_ >= cfg_.proposals) stop_reason_ = "proposals";
  else if (measurements_used_ >= cfg_.measurements) stop_reason_ = "measurements";
  else if (cfg_.time_limit_s > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > cfg_.time_limit_s)
    stop_reason_ = "time_limit";
  else return false;
  return true;
}

ojson Search::llm_usage() const {
  return {{"requests", requests_}, {"cached", cached_}, {"prompt_tokens", prompt_tokens_},
          {"completion_tokens", completion_tokens_}, {"no_proposal", no_proposal_}};
}

policy::Prompt Search::prompt_for(const Node& n, int programs) {
  policy::Prompt p;
  p.id = "node-" + std::to_string(n.id);
  p.system = system_;
  p.user = core::render_user(workload_, n.ctx->printed(), n.ctx->before().known, programs);
  p.n = programs;
  p.task = &n.ctx->before();
  p.seen = [this](const std::string& canon) { return table_.count(canon) > 0 || proposed_.count(canon) > 0; };
  p.measure = [this, id = n.id](const std::string& strategy, const std::string& leir, const std::string& candidate) {
    return measure_for_policy(id, strategy, leir, candidate);
  };
  return p;
}

double Search::vs_root(int node, double paired) const {
  return grader_.config().pair_with_parent ? nodes_[node].speedup * paired : paired;
}

void Search::confirm_if_leading(Node& c) {
  if (c.noisy || !(c.speedup > leader_)) return;
  if (c.paired_with > 0) {
    const auto o = grader_.measure_pair(root(), c.ctx->before());
    if (!o.error.empty()) return;  // keeps the parent-paired figure; the final confirmation decides
    c.adopt_root_measurement(o.measurement);
    if (c.noisy || !(c.speedup > leader_)) return;
  }
  leader_ = c.speedup;
}

eval::ProgramGrade Search::grade_at(int node, const std::string& strategy, const std::string& leir,
                                    const std::string& candidate) {
  return grader_.grade(*nodes_[node].ctx, root(), {strategy, leir},
                       candidate.empty() ? "" : "candidate " + candidate + "\n");
}

std::optional<double> Search::measure_for_policy(int node, const std::string& strategy, const std::string& leir,
                                                 const std::string& candidate) {
  ir::Task t = nodes_[node].ctx->before();
  std::string canon;
  try {
    t.program = ir::parse_program(leir);
    canon = core::alpha_canonical(t);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (table_.count(canon)) return std::nullopt;  // a node already: the policy should not propose it
  const auto key = std::make_pair(node, canon);
  auto it = pregraded_.find(key);
  if (it == pregraded_.end()) {
    if (measurements_used_ >= cfg_.measurements) return std::nullopt;
    eval::ProgramGrade g = grade_at(node, strategy, leir, candidate);
    if (g.equivalent) ++measurements_used_, ++policy_measurements_;
    it = pregraded_.emplace(key, std::move(g)).first;
  }
  const eval::ProgramGrade& g = it->second;
  if (!g.equivalent || !g.speedup) return std::nullopt;
  return vs_root(node, *g.speedup);
}

std::vector<std::pair<policy::Reply, std::string>> Search::request(const Node& n, int programs) {
  // multi: one request for `programs`; samples: `programs` requests for one, each with a sample index of its own.
  const bool samples = cfg_.llm_mode == "samples" && programs > 1;
  std::vector<std::pair<policy::Reply, std::string>> out;
  Node& node = nodes_[n.id];
  for (int i = 0; i < (samples ? programs : 1); ++i) {
    policy::Prompt p = prompt_for(node, samples ? 1 : programs);
    const int sample = node.samples++;
    policy::Reply r;
    std::string error;
    try {
      r = pol_.reply(p, sample);
    } catch (const policy::PolicyError& e) {
      if (e.fatal()) throw;
      error = e.code();
    }
    requests_ += r.attempts;
    cached_ += r.cached ? 1 : 0;
    if (r.prompt_tokens > 0) prompt_tokens_ += r.prompt_tokens;
    if (r.completion_tokens > 0) completion_tokens_ += r.completion_tokens;
    if (r.none) ++no_proposal_;
    transcripts_.push_back({{"node", n.id}, {"ask", node.asks}, {"sample", sample}, {"prompt_sha256", p.sha256()},
                            {"n", p.n}, {"content", r.content}, {"finish_reason", r.finish_reason},
                            {"prompt_tokens", r.prompt_tokens}, {"completion_tokens", r.completion_tokens},
                            {"cached", r.cached}, {"none", r.none}, {"error", error.empty() ? ojson(nullptr) : ojson(error)}});
    out.emplace_back(std::move(r), std::move(error));
  }
  return out;
}

void Search::fail_all(int node, int ask, int first, int count, const std::string& reason, const std::string& detail) {
  for (int i = 0; i < count; ++i) {
    Proposal p;
    p.node = node;
    p.ask = ask;
    p.index = first + i;
    p.reason = reason;
    p.detail = detail.substr(0, 300);
    log_.push_back(std::move(p));
  }
}

AskResult Search::ask(int node, int k) {
  AskResult res;
  if (out_of_budget()) return res;
  const int programs = std::min({k, cfg_.proposals - proposals_used_, cfg_.measurements - measurements_used_});
  if (programs <= 0) return res;
  res.requested = programs;
  proposals_used_ += programs;
  const int ask_no = nodes_[node].asks;
  const auto replies = request(nodes_[node], programs);
  ++nodes_[node].asks;
  const int per_reply = int(replies.size()) == programs && programs > 1 ? 1 : programs;
  int index = 0;
  for (const auto& [reply, error] : replies) {
    const int first = index;
    index += per_reply;
    if (!error.empty()) {
      fail_all(node, ask_no, first, per_reply, error, "the policy request failed");
      continue;
    }
    if (reply.none) {
      fail_all(node, ask_no, first, per_reply, "no_proposal", "the policy has no proposal for this program");
      continue;
    }
    const core::ParsedAnswer a = core::parse_answer(reply.content, per_reply, reply.truncated);
    if (!a.ok) {
      fail_all(node, ask_no, first, per_reply, a.reason, a.detail);
      continue;
    }
    for (int i = 0; i < per_reply; ++i) {
      if (i >= int(a.programs.size())) {
        fail_all(node, ask_no, first + i, per_reply - i, "missing_program",
                 "the answer holds " + std::to_string(a.programs.size()) + " of " + std::to_string(per_reply) + " programs");
        break;
      }
      const std::string cand = std::size_t(i) < reply.candidates.size() ? reply.candidates[i] : "";
      const int child = consider(node, ask_no, first + i, a.programs[i].strategy, a.programs[i].leir, cand);
      if (child >= 0) {
        res.accepted.push_back(child);
        nodes_[child].plan_continues = std::size_t(i) < reply.plan_continues.size() && reply.plan_continues[i];
      } else {
        ++res.failed;
      }
    }
  }
  res.failed = res.requested - int(res.accepted.size());
  Node& n = nodes_[node];
  n.fails = res.accepted.empty() ? n.fails + 1 : 0;
  if (n.fails >= cfg_.patience) n.exhausted = true;
  return res;
}

int Search::consider(int node, int ask, int index, const std::string& strategy, const std::string& leir,
                     const std::string& candidate) {
  Proposal p;
  p.node = node;
  p.ask = ask;
  p.index = index;
  p.strategy = strategy;
  auto reject = [&](std::string reason, const std::string& detail) {
    p.reason = std::move(reason);
    p.detail = detail.substr(0, 300);
    log_.push_back(std::move(p));
    return -1;
  };
  eval::TaskContext& parent = *nodes_[node].ctx;
  // revisit: a program already in the table (other than the parent itself, which the grader calls no_change)
  std::optional<eval::ProgramGrade> pre;  // graded when the policy measured it (measure_for_policy)
  try {
    ir::Task t = parent.before();
    t.program = ir::parse_program(leir);
    const std::string canon = core::alpha_canonical(t);
    ++proposed_[canon];
    if (canon != parent.canonical() && table_.count(canon))
      return reject("revisit", "the program is node " + std::to_string(table_.at(canon)) + " of the search");
    if (auto it = pregraded_.find({node, canon}); it != pregraded_.end()) pre = it->second;
  } catch (const std::exception&) {
    // the grader reports the parse error
  }
  if (!pre && measurements_used_ >= cfg_.measurements)
    return reject("budget_spent", "the policy's own measurements spent the measurement budget");
  eval::ProgramGrade g = pre ? *pre : grade_at(node, strategy, leir, candidate);
  if (!g.equivalent) return reject(g.reason, g.detail);
  if (!pre) ++measurements_used_;
  if (!g.speedup) return reject(g.reason.empty() ? "measure_error" : g.reason, g.detail);
  Node c;
  c.id = int(nodes_.size());
  c.parent = node;
  c.depth = nodes_[node].depth + 1;
  ir::Task t = parent.before();
  t.program = ir::parse_program(leir);
  c.ctx = std::make_shared<eval::TaskContext>(std::move(t));
  c.strategy = strategy;
  c.candidate = g.strategy_consistent ? g.candidate : "";
  if (auto cand = strategy::parse_candidate_id(c.candidate))
    for (const auto& prm : cand->params) c.params[prm.name] = prm.value;
  c.speedup = vs_root(node, *g.speedup);
  c.speedup_vs_parent = *g.speedup;
  c.check = g.check;
  c.paired_with = grader_.config().pair_with_parent ? node : 0;
  confirm_if_leading(c);
  c.noisy = g.noisy;
  c.measurement = g.measurement;
  table_[c.ctx->canonical()] = c.id;
  nodes_[node].children.push_back(c.id);
  p.child = c.id;
  p.speedup = c.speedup;
  log_.push_back(std::move(p));
  nodes_.push_back(std::move(c));
  return int(nodes_.size()) - 1;
}

void run_algorithm(Search& s) {
  const std::string& a = s.config().algorithm;
  if (a == "chain") run_chain(s);
  else if (a == "greedy") run_greedy(s);
  else if (a == "beam") run_beam(s);
  else if (a == "dfs") run_dfs(s);
  else if (a == "bfs") run_bfs(s);
  else if (a == "mcts") run_mcts(s);
  else throw std::invalid_argument("unknown search algorithm '" + a + "'");
  if (s.stop_reason().empty() && !s.out_of_budget()) s.set_stop_reason("terminated");
}

}  // namespace steptp::search
