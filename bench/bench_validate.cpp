// Validator throughput: analyze() over the 89 reference tasks (valid tasks, and the 8 MQA tasks whose E203 makes
// analyze print and re-parse the canonical text once for the offsets), plus a non-affine range enumeration.
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "ir/parser.hpp"
#include "ir/ranges.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace {
std::vector<steptp::ir::Task> corpus(bool want_valid) {
  std::vector<steptp::ir::Task> out;
  for (auto& te : steptp::ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl")) {
    steptp::ir::Task t = te.task;
    if (steptp::ir::analyze(t).ok() == want_valid) out.push_back(std::move(te.task));
  }
  return out;
}

void BM_AnalyzeValidCorpus(benchmark::State& st) {
  auto tasks = corpus(true);
  for (auto _ : st)
    for (auto& t : tasks) benchmark::DoNotOptimize(steptp::ir::analyze(t).diags.size());
  st.SetItemsProcessed(static_cast<std::int64_t>(tasks.size()) * st.iterations());
}
BENCHMARK(BM_AnalyzeValidCorpus)->Unit(benchmark::kMillisecond);

void BM_AnalyzeFailingMqa(benchmark::State& st) {
  auto tasks = corpus(false);
  for (auto _ : st)
    for (auto& t : tasks) benchmark::DoNotOptimize(steptp::ir::analyze(t).diags.size());
  st.SetItemsProcessed(static_cast<std::int64_t>(tasks.size()) * st.iterations());
}
BENCHMARK(BM_AnalyzeFailingMqa)->Unit(benchmark::kMillisecond);

// Worst case of the exact range analysis: an entry no interval rule covers, enumerated over 2^20 points.
void BM_RangeEnumeration(benchmark::State& st) {
  steptp::ir::Expr e = steptp::ir::parse_expr("(a*c+d)%7");
  std::vector<steptp::ir::Loop> ls = {{steptp::ir::LoopKind::L, 64, "a", 0},
                                      {steptp::ir::LoopKind::L, 128, "c", 0},
                                      {steptp::ir::LoopKind::L, 128, "d", 0}};
  std::vector<const steptp::ir::Loop*> p;
  for (auto& l : ls) p.push_back(&l);
  auto box = steptp::ir::make_loop_box(p);
  for (auto _ : st) benchmark::DoNotOptimize(steptp::ir::index_range(e, box).hi);
  st.SetItemsProcessed((std::int64_t{1} << 20) * st.iterations());
}
BENCHMARK(BM_RangeEnumeration)->Unit(benchmark::kMillisecond);
}  // namespace

BENCHMARK_MAIN();
