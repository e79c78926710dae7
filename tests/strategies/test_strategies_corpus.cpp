// Property test (STRATEGIES.md §2 rule 2) over every registered strategy:
//  - every reference-corpus task that validates, re-emitted at the workload suite's small shapes, and
//  - every built-in workload at its small shape.
// Each checked candidate applies and validates (apply runs the validator; a failure is StrategyError S003 = a
// strategy bug), lowers to C (lower::lower_c) and passes equiv::check_equivalence in its class (class E:
// bit-identical). Enumeration runs on every task. To keep the suite CI-sized the candidates checked per
// (strategy, task) are a deterministic sample (sample_indices, fixed seed): at most 20 per corpus task and 3 per
// workload. STEPTP_PROPERTY_ALL=1 (or STEPTP_CHECK_ALL=1, `make check-all`) checks every candidate (the exhaustive
// run recorded in bench/RESULTS.md);
// STEPTP_PROPERTY_STRATEGIES=name,name,... restricts the run to those strategies (e.g. to split the exhaustive run
// over processes).
// Counts per strategy are printed. The algebraic family runs twice: under the default domain policy (Prove) and
// under Guard (STRATEGIES.md §6), whose guarded candidates are checked the same way.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>

#include "frontend/workloads.hpp"
#include "equiv/equivalence.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "lower/lower.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/sample.hpp"
#include "test_scope.hpp"

namespace st = steptp::strategy;
namespace fe = steptp::frontend;

namespace {
std::vector<steptp::ir::Task> small_corpus() {
  std::vector<steptp::ir::Task> out;
  for (auto& te : steptp::ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl")) {
    if (!te.ok) continue;
    const auto* w = fe::find_workload(te.task.workload);
    if (!w) continue;
    steptp::ir::Task t;
    try {
      t = fe::emit(*w, fe::small_params(*w), steptp::ir::DType::F32);
      if (!steptp::ir::analyze(t).ok()) continue;
    } catch (const std::exception&) {
      continue;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<steptp::ir::Task> small_workloads() {
  std::vector<steptp::ir::Task> out;
  for (const auto& w : fe::workloads()) {
    try {
      out.push_back(fe::emit(w, fe::small_params(w), steptp::ir::DType::F32));
    } catch (const std::exception&) {
    }
  }
  return out;
}

bool selected(std::string_view name) {
  const char* e = std::getenv("STEPTP_PROPERTY_STRATEGIES");
  if (!e || !*e) return true;
  const std::string list = std::string(",") + e + ",";
  return list.find("," + std::string(name) + ",") != std::string::npos;
}

bool exhaustive() {
  const char* e = std::getenv("STEPTP_PROPERTY_ALL");
  return (e && *e && std::string(e) != "0") || steptp::testing::check_all();
}

// Enumerates every candidate of every strategy on every task, checks a sample of at most `cap` per (strategy,
// task) (all when STEPTP_PROPERTY_ALL is set), and prints the counts per strategy.
void check_tasks(const std::vector<steptp::ir::Task>& tasks, std::size_t cap) {
  if (exhaustive()) cap = SIZE_MAX;
  std::map<std::string, std::pair<std::size_t, std::size_t>> counts;  // strategy -> (enumerated, checked)
  std::map<std::string, double> seconds;
  std::vector<std::pair<const st::StrategyInfo*, bool>> runs;  // (strategy, under Guard)
  for (const auto& s : st::registry()) {
    if (!selected(s.name)) continue;
    runs.push_back({&s, false});
    if (s.family == st::Family::Algebraic) runs.push_back({&s, true});
  }
  std::vector<std::string> names;
  for (const auto& [sp, guard] : runs) {
    const auto& s = *sp;
    const std::string name = std::string(s.name) + (guard ? " (Guard)" : "");
    names.push_back(name);
    st::StrategyConfig cfg;
    cfg.domain_policy = guard ? st::DomainPolicy::Guard : st::DomainPolicy::Prove;
    st::ScopedConfig scoped(cfg);
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
      const auto& t = tasks[ti];
      auto cands = st::enumerate_candidates(s, t);
      counts[name].first += cands.size();
      for (std::size_t i : st::sample_indices(cands.size(), cap, ti)) {
        const auto& c = cands[i];
        try {
          st::Applied a = s.apply(t, c);
          EXPECT_EQ(a.facts["candidate"], c.id());
          auto back = st::parse_candidate_id(c.id());
          ASSERT_TRUE(back.has_value()) << c.id();
          EXPECT_EQ(back->id(), c.id());
          EXPECT_FALSE(steptp::lower::lower_c(a.task).empty()) << c.id();
          steptp::equiv::Options eo;
          eo.seeds = {0};
          eo.exact = a.cls == st::Exactness::Exact;
          auto r = steptp::equiv::check_equivalence(t, a.task, eo);
          EXPECT_TRUE(r.equivalent) << t.workload << ": " << c.id() << " (class " << st::exactness_letter(a.cls)
                                    << "): " << r.code << " " << r.message << "\n"
                                    << steptp::ir::print_program(a.task.program);
          ++counts[name].second;
        } catch (const std::exception& e) {
          ADD_FAILURE() << t.workload << ": " << c.id() << ": " << e.what();
        }
      }
    }
    seconds[name] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::size_t total = 0;
  for (const auto& name : names) {
    const auto& c = counts[name];
    std::cout << "  " << name << ": " << c.first << " candidates enumerated, " << c.second
              << " applied+lowered+equivalent, " << seconds[name] << " s\n";
    total += c.second;
  }
  std::cout << "  total checked: " << total << " over " << tasks.size() << " tasks, 0 failures expected\n";
}
}  // namespace

TEST(StrategyCorpusSlow, EveryCandidateAppliesValidatesLowersAndIsEquivalent) {
  auto tasks = small_corpus();
  ASSERT_GE(tasks.size(), 60u);
  check_tasks(tasks, 20);
}

TEST(StrategyWorkloadsSlow, EveryWorkloadAtSmallShape) {
  auto tasks = small_workloads();
  ASSERT_GE(tasks.size(), 290u);
  check_tasks(tasks, 3);
}
