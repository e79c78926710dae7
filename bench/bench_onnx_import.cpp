// ONNX import over the 73 shared KernelBench models: import only (parse protobuf, fold, emit, print, re-parse,
// validate) and the full `import-onnx --check` work (import + reference interpreter on PyTorch's inputs + compare).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/onnx_check.hpp"
#include "frontend/onnx_import.hpp"

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

}  // namespace
BENCHMARK_MAIN();
