// ONNX import over the 73 shared KernelBench models: import only (parse protobuf, fold, emit, print, re-parse,
// validate) and the full `import-onnx --check` work (import + reference interpreter on PyTorch's inputs + compare).
// With STEPTP_BENCH_MODELS=DIR (the output of tests/models/export_models.py DIR resnet18 gpt2_block ...): import +
// task extraction (import-onnx --partition's work, without writing files) per real model, and the extraction alone.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/onnx_check.hpp"
#include "frontend/onnx_import.hpp"
#include "frontend/partition.hpp"

namespace {
namespace fs = std::filesystem;

std::vector<std::string> model_dirs() {
  std::vector<std::string> out;
  const fs::path root = fs::path(STEPTP_SHARED_DIR) / "kernelbench-onnx";
  for (const char* level : {"level1", "level2"})
    for (const auto& e : fs::directory_iterator(root / level))
      if (fs::exists(e.path() / "model.onnx")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

void BM_ImportAllModels(benchmark::State& st) {
  auto dirs = model_dirs();
  std::size_t nests = 0;
  for (auto _ : st) {
    nests = 0;
    for (auto& d : dirs) nests += steptp::frontend::import_onnx(d + "/model.onnx").task.program.nests.size();
  }
  st.counters["models"] = static_cast<double>(dirs.size());
  st.counters["nests"] = static_cast<double>(nests);
}
BENCHMARK(BM_ImportAllModels)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_CheckAllModels(benchmark::State& st) {
  auto dirs = model_dirs();
  int matched = 0;
  double steps = 0;
  for (auto _ : st) {
    matched = 0;
    steps = 0;
    for (auto& d : dirs) {
      try {
        auto r = steptp::frontend::check_onnx_dir(d);
        matched += r.match;
        steps += static_cast<double>(r.steps);
      } catch (const std::exception&) {
      }
    }
  }
  st.counters["matched"] = matched;
  st.counters["stmt_execs"] = steps;
}
BENCHMARK(BM_CheckAllModels)->Unit(benchmark::kMillisecond)->Iterations(1);

std::string real_model(benchmark::State& st, const char* name) {
  const char* dir = std::getenv("STEPTP_BENCH_MODELS");
  const fs::path p = fs::path(dir ? dir : "") / name / "model.onnx";
  if (!dir || !fs::exists(p)) st.SkipWithError("set STEPTP_BENCH_MODELS to a directory from tests/models/export_models.py");
  return p.string();
}

void BM_ImportPartition(benchmark::State& st, const char* name) {
  const std::string path = real_model(st, name);
  std::size_t nests = 0, tasks = 0;
  for (auto _ : st) {
    if (path.empty() || !fs::exists(path)) break;
    auto imp = steptp::frontend::import_onnx(path);
    nests = imp.task.program.nests.size();
    tasks = steptp::frontend::partition_import(imp, name).tasks.size();
  }
  st.counters["nests"] = static_cast<double>(nests);
  st.counters["tasks"] = static_cast<double>(tasks);
}
void BM_PartitionOnly(benchmark::State& st, const char* name) {
  const std::string path = real_model(st, name);
  if (path.empty() || !fs::exists(path)) return;
  auto imp = steptp::frontend::import_onnx(path);
  for (auto _ : st) benchmark::DoNotOptimize(steptp::frontend::partition_import(imp, name).tasks.size());
}
BENCHMARK_CAPTURE(BM_ImportPartition, resnet18, "resnet18")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ImportPartition, gpt2_block, "gpt2_block")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PartitionOnly, resnet18, "resnet18")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PartitionOnly, gpt2_block, "gpt2_block")->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
