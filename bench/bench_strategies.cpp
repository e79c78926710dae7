// Strategy throughput: enumerate + apply (apply includes the site re-check and the validator) of every candidate
// (capped at 20 per strategy and task, deterministic sample) of each loop strategy over the reference corpus at
// the workload suite's small shapes. Items = applied candidates.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "frontend/workloads.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "strategies/registry.hpp"
#include "strategies/sample.hpp"

namespace {
const std::vector<steptp::ir::Task>& tasks() {
  static const std::vector<steptp::ir::Task> out = [] {
    std::vector<steptp::ir::Task> v;
    for (auto& te : steptp::ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl")) {
      if (!te.ok) continue;
      const auto* w = steptp::frontend::find_workload(te.task.workload);
      if (!w) continue;
      try {
        auto t = steptp::frontend::emit(*w, steptp::frontend::small_params(*w), steptp::ir::DType::F32);
        if (steptp::ir::analyze(t).ok()) v.push_back(std::move(t));
      } catch (const std::exception&) {
      }
    }
    return v;
  }();
  return out;
}

void BM_EnumerateApply(benchmark::State& st) {
  const auto& s = steptp::strategy::registry()[static_cast<std::size_t>(st.range(0))];
  st.SetLabel(std::string(s.name));
  std::int64_t applied = 0;
  for (auto _ : st)
    for (const auto& t : tasks()) {
      auto c = steptp::strategy::enumerate_candidates(s, t);
      for (std::size_t i : steptp::strategy::sample_indices(c.size(), 20, 0)) {
        benchmark::DoNotOptimize(s.apply(t, c[i]).facts.size());
        ++applied;
      }
    }
  st.SetItemsProcessed(applied);
}
BENCHMARK(BM_EnumerateApply)->DenseRange(0, static_cast<int>(steptp::strategy::registry().size()) - 1)
    ->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_EnumerateOnly(benchmark::State& st) {
  const auto& s = steptp::strategy::registry()[static_cast<std::size_t>(st.range(0))];
  st.SetLabel(std::string(s.name));
  std::int64_t n = 0;
  for (auto _ : st)
    for (const auto& t : tasks()) n += static_cast<std::int64_t>(s.enumerate(t).size());
  st.SetItemsProcessed(static_cast<std::int64_t>(tasks().size()) * st.iterations());
  benchmark::DoNotOptimize(n);
}
BENCHMARK(BM_EnumerateOnly)->DenseRange(0, static_cast<int>(steptp::strategy::registry().size()) - 1)
    ->Unit(benchmark::kMillisecond)->Iterations(1);
}  // namespace

BENCHMARK_MAIN();
