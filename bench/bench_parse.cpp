// Parse + canonical print throughput over the reference corpus (goal: >= 50 MB/s of LEIR text).
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"

namespace {
std::vector<std::string> corpus_texts() {
  std::ifstream in(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl");
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(steptp::ir::print_program(steptp::ir::parse_task(l).program));
  return out;
}

void BM_ParsePrintCorpus(benchmark::State& st) {
  auto texts = corpus_texts();
  std::size_t bytes = 0;
  for (auto& t : texts) bytes += t.size();
  for (auto _ : st) {
    for (auto& t : texts) {
      auto p = steptp::ir::parse_program(t);
      auto s = steptp::ir::print_program(p);
      benchmark::DoNotOptimize(s.data());
    }
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
}
BENCHMARK(BM_ParsePrintCorpus)->Unit(benchmark::kMillisecond);

void BM_ParseOnlyCorpus(benchmark::State& st) {
  auto texts = corpus_texts();
  std::size_t bytes = 0;
  for (auto& t : texts) bytes += t.size();
  for (auto _ : st)
    for (auto& t : texts) benchmark::DoNotOptimize(steptp::ir::parse_program(t).nests.data());
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
}
BENCHMARK(BM_ParseOnlyCorpus)->Unit(benchmark::kMillisecond);

void BM_TaskJsonRoundTrip(benchmark::State& st) {
  std::ifstream in(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl");
  std::vector<std::string> lines;
  std::size_t bytes = 0;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) { bytes += l.size(); lines.push_back(l); }
  for (auto _ : st)
    for (auto& l : lines) benchmark::DoNotOptimize(steptp::ir::task_to_json(steptp::ir::parse_task(l)).size());
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
}
BENCHMARK(BM_TaskJsonRoundTrip)->Unit(benchmark::kMillisecond);
}  // namespace

BENCHMARK_MAIN();
