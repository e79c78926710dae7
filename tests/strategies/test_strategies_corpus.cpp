// Property test (STRATEGIES.md §2 rule 2): on every reference-corpus task that validates, re-emitted at the
// workload suite's small shapes, every candidate of every registered strategy applies and validates (apply runs
// the validator; a failure is StrategyError S003 = a strategy bug), lowers to C (lower::lower_c) and passes
// interp::check_equivalence (bit-exact for class E). Candidates per (strategy, task) are capped by a
// deterministic sample of at most 20 (sample_indices, seed 0). Counts per strategy are printed.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>

#include "frontend/workloads.hpp"
#include "interp/equivalence.hpp"
#include "lower/lower.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "strategies/registry.hpp"
#include "strategies/sample.hpp"

namespace st = steptp::strategy;

namespace {
std::vector<steptp::ir::Task> small_corpus() {
  std::vector<steptp::ir::Task> out;
  for (auto& te : steptp::ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl")) {
    if (!te.ok) continue;
    const auto* w = steptp::frontend::find_workload(te.task.workload);
    if (!w) continue;
    steptp::ir::Task t;
    try {
      t = steptp::frontend::emit(*w, steptp::frontend::small_params(*w), steptp::ir::DType::F32);
      if (!steptp::ir::analyze(t).ok()) continue;
    } catch (const std::exception&) {
      continue;
    }
    out.push_back(std::move(t));
  }
  return out;
}
}  // namespace

TEST(StrategyCorpusSlow, EveryCandidateAppliesAndValidates) {
  auto tasks = small_corpus();
  ASSERT_GE(tasks.size(), 60u);
  std::map<std::string, std::pair<std::size_t, std::size_t>> counts;  // strategy -> (enumerated, applied)
  for (const auto& s : st::registry()) {
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& t : tasks) {
      auto cands = st::enumerate_candidates(s, t);
      counts[std::string(s.name)].first += cands.size();
      for (std::size_t i : st::sample_indices(cands.size(), 20, 0)) {
        const auto& c = cands[i];
        try {
          st::Applied a = s.apply(t, c);
          EXPECT_EQ(a.facts["candidate"], c.id());
          EXPECT_FALSE(steptp::lower::lower_c(a.task).empty());
          steptp::interp::EquivOptions eo;
          eo.seeds = {0};
          eo.exact = a.cls == st::Exactness::Exact;
          auto r = steptp::interp::check_equivalence(t, a.task, eo);
          EXPECT_TRUE(r.equivalent) << t.workload << ": " << c.id() << " (class " << st::exactness_letter(a.cls)
                                    << "): " << r.code << " " << r.message;
          auto back = st::parse_candidate_id(c.id());
          ASSERT_TRUE(back.has_value()) << c.id();
          EXPECT_EQ(back->id(), c.id());
          ++counts[std::string(s.name)].second;
        } catch (const std::exception& e) {
          ADD_FAILURE() << t.workload << ": " << c.id() << ": " << e.what();
        }
      }
    }
    std::cout << "  " << s.name << ": "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
  }
  for (const auto& [name, c] : counts)
    std::cout << "  " << name << ": " << c.first << " candidates enumerated, " << c.second << " applied\n";
}
