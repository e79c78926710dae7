// The search core (DATASET.md §9, §12 "search" tests) with a scripted policy and the fixed timer: every algorithm
// stops exactly at P or M; MCTS grows a node with two children and expands an internal node more than once;
// failed proposals never become nodes; the same seed gives the same result; fast_p aggregates by hand.
#include <gtest/gtest.h>

#include <set>

#include "step/answer_parser.hpp"
#include "step/cache.hpp"
#include "ir/canon.hpp"
#include "base/json_text.hpp"
#include "step/prompt.hpp"
#include "step/config.hpp"
#include "step/timing.hpp"
#include "eval/grader.hpp"
#include "frontend/workloads.hpp"
#include "policy/cost_policy.hpp"
#include "policy/random_policy.hpp"
#include "search/engine.hpp"
#include "search/report.hpp"

namespace steptp::search {
namespace {

/// Random legal programs, with every third program replaced by LEIR that does not parse and every fifth by a
/// program that is not equivalent (its first '+' turned into '-'): a policy whose failures are known.
class ScriptedPolicy : public policy::Policy {
 public:
  std::string name() const override { return "scripted"; }
  policy::Reply reply(const policy::Prompt& p, int sample) override {
    policy::Reply r = inner_.reply(p, sample);
    if (r.none) return r;
    core::ParsedAnswer a = core::parse_answer(r.content, p.n);
    EXPECT_TRUE(a.ok) << r.content;
    core::ojson arr = core::ojson::array();
    for (auto& prog : a.programs) {
      ++count_;
      if (count_ % 3 == 0) prog.leir = "B^{8}_{tx=0}[oops";
      else if (count_ % 5 == 0) {
        auto plus = prog.leir.find('+');
        if (plus != std::string::npos) prog.leir[plus] = '-';
      }
      broken_.insert(prog.leir);
      arr.push_back(core::answer_object(prog.strategy, prog.leir));
    }
    r.candidates.clear();
    r.content = "<answer>" + core::dump_py(p.n <= 1 ? arr[0] : arr) + "</answer>";
    return r;
  }
  int count_ = 0;
  std::set<std::string> broken_;

 private:
  policy::RandomPolicy inner_{7};
};

ir::Task matmul() {
  const auto* w = frontend::find_workload("Square_matrix_multiplication");
  return frontend::emit(*w, frontend::small_params(*w), ir::DType::F32);
}

struct Fixture {
  dataset::GenConfig gen;
  core::Cache cache{":memory:"};
  std::unique_ptr<dataset::Timer> timer;
  std::unique_ptr<eval::Grader> grader;
  explicit Fixture(bool pair_with_parent = false) {
    gen.timer = "fixed";
    timer = std::make_unique<dataset::Timer>(gen, &cache);
    eval::GradeConfig gc;
    gc.equiv_stream = "search-equiv";
    gc.recheck_faster = false;
    gc.pair_with_parent = pair_with_parent;
    gc.consistency_enum_limit = 0;
    grader = std::make_unique<eval::Grader>(gc, timer.get(), timer.get());
  }
};

SearchConfig config(const std::string& algorithm, int p, int m) {
  SearchConfig c;
  c.algorithm = algorithm;
  c.proposals = p;
  c.measurements = m;
  c.seed = 11;
  return c;
}

/// Checks the invariants every search keeps, and returns the number of accepted proposals.
int check_invariants(const Search& s) {
  int accepted = 0;
  for (const Proposal& p : s.proposals()) {
    if (p.reason.empty()) {
      ++accepted;
      EXPECT_GT(p.child, 0);
    } else {
      EXPECT_EQ(p.child, -1) << p.reason;
    }
  }
  EXPECT_EQ(int(s.nodes().size()), 1 + accepted);  // failed proposals never become nodes
  EXPECT_EQ(int(s.proposals().size()), s.proposals_used());
  std::set<std::string> canon;
  for (const Node& n : s.nodes()) {
    EXPECT_TRUE(canon.insert(n.ctx->canonical()).second) << "node " << n.id << " repeats a program";
    if (n.id > 0) {
      EXPECT_TRUE(n.measurement.is_object());
      EXPECT_EQ(s.nodes()[n.parent].depth + 1, n.depth);
    }
  }
  for (const auto& t : s.transcripts()) EXPECT_LT(t["node"].get<int>(), int(s.nodes().size()));
  return accepted;
}

TEST(SearchEngineSlow, EveryAlgorithmStopsExactlyAtItsBudget) {
  for (const auto& a : algorithm_names()) {
    SCOPED_TRACE(a);
    Fixture f;
    ScriptedPolicy pol;
    Search s(config(a, 12, 6), pol, *f.grader, std::make_shared<eval::TaskContext>(matmul()), "Square_matrix_multiplication");
    run_algorithm(s);
    EXPECT_TRUE((s.proposals_used() == 12 && s.stop_reason() == "proposals") ||
                (s.measurements_used() == 6 && s.stop_reason() == "measurements"))
        << "used " << s.proposals_used() << " proposals, " << s.measurements_used() << " measurements, stop "
        << s.stop_reason();
    EXPECT_LE(s.proposals_used(), 12);
    EXPECT_LE(s.measurements_used(), 6);
    const int accepted = check_invariants(s);
    EXPECT_EQ(accepted, s.measurements_used());  // the fixed timer never fails: one measurement per child
    // the scripted failures were logged with their reason and never expanded
    int parse = 0;
    for (const Proposal& p : s.proposals()) parse += p.reason == "parse_error";
    EXPECT_GE(parse, 1);
  }
}

TEST(SearchEngineSlow, MctsWidensAndExpandsInternalNodesAgain) {
  Fixture f;
  ScriptedPolicy pol;
  Search s(config("mcts", 40, 20), pol, *f.grader, std::make_shared<eval::TaskContext>(matmul()), "m");
  run_algorithm(s);
  check_invariants(s);
  bool two_children = false, internal_again = false, deep = false;
  for (const Node& n : s.nodes()) {
    two_children |= n.children.size() >= 2;
    internal_again |= !n.children.empty() && n.asks >= 2;
    deep |= n.depth >= 2;
  }
  EXPECT_TRUE(two_children);
  EXPECT_TRUE(internal_again);
  EXPECT_TRUE(deep);
  // N of the root counts its initial visit plus one per outcome (accepted or failed) backed up through it.
  EXPECT_GE(s.nodes()[0].visits, 1 + s.proposals_used() - 0.0);
}

/// Random legal programs; the first program of each of the first `plan` replies is marked as continuing a plan
/// (policy::Reply::plan_continues), as the cost policy marks the steps of its register-block sketch.
class PlanningPolicy : public policy::Policy {
 public:
  explicit PlanningPolicy(int plan) : plan_(plan) {}
  std::string name() const override { return "planning"; }
  policy::Reply reply(const policy::Prompt& p, int sample) override {
    policy::Reply r = inner_.reply(p, sample);
    if (!r.none) r.plan_continues.assign(std::size_t(p.n), false);
    if (!r.none && marked_ < plan_) {
      r.plan_continues[0] = true;
      ++marked_;
    }
    return r;
  }

 private:
  int plan_, marked_ = 0;
  policy::RandomPolicy inner_{7};
};

TEST(SearchEngineSlow, MctsFollowsAPolicyPlanWithinOneExpansion) {
  Fixture f;
  PlanningPolicy pol(4);
  Search s(config("mcts", 40, 20), pol, *f.grader, std::make_shared<eval::TaskContext>(matmul()), "m");
  run_algorithm(s);
  check_invariants(s);
  // the root's first expansion (two programs), then one request at each planned program in a row: the four marked
  // programs, and the program after the last of them, which ends the plan
  const auto& log = s.proposals();
  ASSERT_GE(log.size(), 6u);
  EXPECT_EQ(log[0].node, 0);
  EXPECT_EQ(log[1].node, 0);
  ASSERT_GT(log[0].child, 0);
  int at = log[0].child;
  for (std::size_t i = 2; i < 6; ++i) {
    EXPECT_EQ(log[i].node, at) << "proposal " << i;
    EXPECT_EQ(log[i].ask, 0);
    ASSERT_GT(log[i].child, 0) << log[i].reason;
    EXPECT_EQ(s.nodes()[log[i].child].depth, int(i));
    at = log[i].child;
  }
  EXPECT_FALSE(s.nodes()[at].plan_continues);
  // every outcome was backed up: N of the root is its initial visit plus one per proposal outcome
  EXPECT_GE(s.nodes()[0].visits, 1.0 + double(s.proposals_used()));
  // without plans the widening goes back up: the third request of the search is at the root or one of its children
  Fixture g;
  ScriptedPolicy plain;
  Search t(config("mcts", 40, 20), plain, *g.grader, std::make_shared<eval::TaskContext>(matmul()), "m");
  run_algorithm(t);
  ASSERT_GE(t.proposals().size(), 6u);
  EXPECT_LE(t.nodes()[t.proposals()[4].node].depth, 1);
}

TEST(SearchEngineSlow, SameSeedSameResultBytes) {
  std::string first;
  for (int run = 0; run < 2; ++run) {
    Fixture f;
    ScriptedPolicy pol;
    Search s(config("mcts", 16, 8), pol, *f.grader, std::make_shared<eval::TaskContext>(matmul()), "m");
    run_algorithm(s);
    const std::string bytes = core::dump_py(task_result(s, "t", "m", "scripted", *f.timer, nullptr));
    if (run == 0) first = bytes;
    else EXPECT_EQ(bytes, first);
  }
}

TEST(SearchEngineSlow, FailuresAreCountedAndTheResultIsTheFastestNode) {
  Fixture f;
  ScriptedPolicy pol;
  Search s(config("bfs", 20, 20), pol, *f.grader, std::make_shared<eval::TaskContext>(matmul()), "m");
  run_algorithm(s);
  ojson r = task_result(s, "t", "m", "scripted", *f.timer, nullptr);
  int total = 0;
  for (const auto& [k, v] : r["outcomes"].items()) total += v.get<int>();
  EXPECT_EQ(total, s.proposals_used());
  EXPECT_GE(r["outcomes"].value("parse_error", 0), 1);
  double best = 1.0;  // the root's
  for (const Node& n : s.nodes())
    if (n.id > 0) best = std::max(best, n.speedup);
  ASSERT_TRUE(r["result"].is_object());
  EXPECT_DOUBLE_EQ(r["result"]["speedup"].get<double>(), best);
  EXPECT_EQ(r["result"]["path"].size(), std::size_t(s.nodes()[r["result"]["node"].get<int>()].depth));
  if (best > 1.0) {  // the path ends at the result and its last step carries the result's speedup
    EXPECT_TRUE(r["result"]["improved"].get<bool>());
    EXPECT_DOUBLE_EQ(r["result"]["path"].back()["speedup"].get<double>(), best);
  } else {
    EXPECT_EQ(r["result"]["node"].get<int>(), 0);
    EXPECT_FALSE(r["result"]["improved"].get<bool>());
  }
  EXPECT_EQ(r["budget"]["proposals"]["used"].get<int>() + r["budget"]["proposals"]["unused"].get<int>(), 20);
}

ojson fake_result(std::optional<double> speedup, std::optional<double> vs_base, bool baseline) {
  ojson r{{"status", speedup ? "ok" : "error"}, {"outcomes", ojson::object()},
          {"budget", {{"proposals", {{"used", 10}}}, {"measurements", {{"used", 5}}}}}};
  r["result"] = speedup ? ojson{{"speedup", *speedup}, {"improved", *speedup > 1.0},
                                {"speedup_vs_baseline", vs_base ? ojson(*vs_base) : ojson(nullptr)}}
                        : ojson(nullptr);
  r["baseline"] = baseline ? ojson{{"median_ns", 100.0}} : ojson(nullptr);
  return r;
}

TEST(SearchEngineSlow, PairedWithTheParentASpeedupIsTheProductAlongThePathAndTheLeadersAreConfirmed) {
  // The fixed timer's latencies are exact, so the product of the parent-paired ratios along a path equals the
  // root-paired ratio of a search that pairs with the root: the same policy and seed grow the same tree. (Gemm_Add_ReLU:
  // the fixed model's latencies change along its paths and a depth-2 node leads; a matmul's reorders change none.)
  const auto* w = frontend::find_workload("Gemm_Add_ReLU");
  const ir::Task root_task = frontend::emit(*w, frontend::small_params(*w), ir::DType::F32);
  Fixture by_root(false), by_parent(true);
  auto pol_a = policy::make_cost_policy("analytical", 64, 1, "none", "none", false);
  auto pol_b = policy::make_cost_policy("analytical", 64, 1, "none", "none", false);
  SearchConfig c = config("bfs", 12, 8);  // bfs: the tree does not depend on the speedups' last bits
  c.confirm = 2;
  Search a(c, *pol_a, *by_root.grader, std::make_shared<eval::TaskContext>(root_task), "Gemm_Add_ReLU");
  Search b(c, *pol_b, *by_parent.grader, std::make_shared<eval::TaskContext>(root_task), "Gemm_Add_ReLU");
  run_algorithm(a);
  run_algorithm(b);
  ASSERT_EQ(a.nodes().size(), b.nodes().size());
  ASSERT_GE(b.nodes().size(), 4u);
  bool deep = false;
  int rooted = 0;  // deeper nodes re-timed with the root when they led
  for (std::size_t i = 1; i < b.nodes().size(); ++i) {
    const Node& n = b.nodes()[i];
    EXPECT_EQ(n.ctx->canonical(), a.nodes()[i].ctx->canonical());
    EXPECT_NEAR(n.speedup, a.nodes()[i].speedup, 1e-9 * a.nodes()[i].speedup) << "node " << i;
    EXPECT_NEAR(n.speedup, b.nodes()[n.parent].speedup * n.speedup_vs_parent, 1e-12 * n.speedup);
    deep = deep || n.parent > 0;
    // the measurement pairs the parent with the node, or the root once the node led the search
    if (n.paired_with == 0) {
      EXPECT_DOUBLE_EQ(n.measurement["speedup"].get<double>(), n.speedup);
      rooted += n.parent > 0 ? 1 : 0;
    } else {
      EXPECT_EQ(n.paired_with, n.parent);
      EXPECT_DOUBLE_EQ(n.measurement["speedup"].get<double>(), n.speedup_vs_parent);
    }
  }
  EXPECT_TRUE(deep) << "no node below depth 1: the product is never exercised";
  EXPECT_GE(rooted, 1) << "no deeper node led the search: the re-timing with the root is never exercised";
  ojson r = task_result(b, "t", "m", "cost", *by_parent.timer, nullptr);
  double lead = 0;
  std::size_t faster = 0;
  for (const Node& n : b.nodes())
    if (n.id > 0) {
      lead = std::max(lead, n.speedup);
      faster += !n.noisy && n.speedup > 1.0 ? 1 : 0;
    }
  ASSERT_GE(faster, 1u);
  ASSERT_EQ(r["confirmed"].size(), std::min<std::size_t>(2, faster));
  EXPECT_DOUBLE_EQ(r["confirmed"][0]["speedup_search"].get<double>(), lead);
  for (const auto& line : r["confirmed"])
    EXPECT_NEAR(line["speedup"].get<double>(), line["speedup_search"].get<double>(), 1e-9 * lead);
  // the result is a confirmed node, with the root-paired measurement's latency
  EXPECT_EQ(r["result"]["node"], r["confirmed"][0]["node"]);
  const Node& best = b.nodes()[r["result"]["node"].get<int>()];
  EXPECT_DOUBLE_EQ(r["root"]["latency"]["median_ns"].get<double>(),
                   best.measurement["before"]["median_ns"].get<double>());
  EXPECT_NEAR(r["root"]["latency"]["median_ns"].get<double>() / r["result"]["latency_ns"].get<double>(),
              r["result"]["speedup"].get<double>(), 1e-9 * lead);
}

TEST(SearchEngineSlow, MeasureGuidedCostPolicyCountsEachOfItsMeasurementsOnce) {
  // chain asks for one program; the measure-guided policy measures its two best candidates (two measurements) and
  // proposes the faster one, whose grade the search reuses: 4 measurements = 2 requests, 2 children
  Fixture f;
  auto pol = policy::make_cost_policy("analytical", 64, 1, "none", "none", true);
  Search s(config("chain", 10, 4), *pol, *f.grader, std::make_shared<eval::TaskContext>(matmul()),
           "Square_matrix_multiplication");
  run_algorithm(s);
  EXPECT_EQ(s.stop_reason(), "measurements");
  EXPECT_EQ(s.measurements_used(), 4);
  EXPECT_EQ(s.policy_measurements(), 4);
  EXPECT_EQ(s.proposals_used(), 2);
  EXPECT_EQ(check_invariants(s), 2);
  EXPECT_EQ(s.nodes().size(), 3u);
  // the same policy without the flag: one measurement per child
  Fixture g;
  auto plain = policy::make_cost_policy("analytical", 64, 1, "none", "none", false);
  Search t(config("chain", 10, 4), *plain, *g.grader, std::make_shared<eval::TaskContext>(matmul()),
           "Square_matrix_multiplication");
  run_algorithm(t);
  EXPECT_EQ(t.policy_measurements(), 0);
  EXPECT_EQ(t.measurements_used(), 4);
  EXPECT_EQ(t.nodes().size(), 5u);
}

TEST(SearchSummary, FastPOverAllTasksByHand) {
  // four tasks: 4x (baseline 0.5x), 1.2x, an error, the root kept (1x; baseline 2x)
  std::vector<ojson> rs{fake_result(4.0, 0.5, true), fake_result(1.2, {}, false), fake_result({}, {}, false),
                        fake_result(1.0, 2.0, true)};
  SearchConfig c = config("mcts", 20, 10);
  ojson s = summarize(rs, c, "cost");
  EXPECT_EQ(s["tasks"].get<int>(), 4);
  EXPECT_EQ(s["improved"].get<int>(), 2);
  EXPECT_EQ(s["errors"].get<int>(), 1);
  EXPECT_DOUBLE_EQ(s["fast_p"]["naive"]["0"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(s["fast_p"]["naive"]["1.0"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["fast_p"]["naive"]["2.0"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(s["fast_p"]["naive"]["3.0"].get<double>(), 0.25);
  EXPECT_EQ(s["fast_p"]["baseline"]["tasks"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(s["fast_p"]["baseline"]["1.0"].get<double>(), 0.5);
  // geomean of 4, 1.2, 1 (no result), 1 = (4.8)^(1/4)
  EXPECT_NEAR(s["geomean_speedup"].get<double>(), std::pow(4.8, 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(s["median_speedup"].get<double>(), 1.1);
  EXPECT_NEAR(s["geomean_speedup_vs_baseline"].get<double>(), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(s["mean_budget_use"]["proposals"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["mean_budget_use"]["measurements"].get<double>(), 0.5);
  EXPECT_TRUE(summarize({}, c, "cost")["geomean_speedup"].is_null());
}

}  // namespace
}  // namespace steptp::search
