// Lowering and measurement benchmarks (figures in bench/RESULTS.md, "Lowering and measurement"):
//  * BM_LowerC / BM_LowerTir: text generation time for a matmul task;
//  * BM_CompileKernel: compile time of one generated C kernel (cache miss; every iteration compiles new code);
//  * BM_CacheHit: compile_c on code already in the cache;
//  * BM_MeasureMatmul256: measurement noise, IQR/median of 20 repeats of a 256^3 matmul (counter iqr_over_median);
//  * BM_MatmulGflops512: naive-lowering GFLOP/s of a 512^3 matmul (1 thread and all threads).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "ir/parser.hpp"
#include "lower/lower.hpp"
#include "runtime/measure.hpp"

namespace {

using namespace steptp;

ir::Task matmul(std::int64_t n) {
  ir::Task t;
  t.workload = "matmul" + std::to_string(n);
  t.known = {{"A", ir::Role::Input, ir::DType::F32, {n, n}},
             {"C", ir::Role::Input, ir::DType::F32, {n, n}},
             {"D", ir::Role::Output, ir::DType::F32, {n, n}}};
  const std::string N = std::to_string(n);
  t.program = ir::parse_program("B^{" + N + "}_{tx=0}L^{" + N + "}_{a=0}L^{" + N +
                                "}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];");
  return t;
}

std::string bench_cache() { return "/tmp/steptp-bench-cache-" + std::to_string(getuid()); }

void BM_LowerC(benchmark::State& st) {
  const auto t = matmul(256);
  for (auto _ : st) benchmark::DoNotOptimize(lower::lower_c(t));
}
BENCHMARK(BM_LowerC)->Unit(benchmark::kMicrosecond);

void BM_LowerTir(benchmark::State& st) {
  const auto t = matmul(256);
  for (auto _ : st) benchmark::DoNotOptimize(lower::lower_tir(t));
}
BENCHMARK(BM_LowerTir)->Unit(benchmark::kMicrosecond);

void BM_CompileKernel(benchmark::State& st) {
  const std::string base = lower::lower_c(matmul(256));
  runtime::CompileOptions o;
  o.cache_dir = bench_cache() + "/miss-" + std::to_string(getpid());
  int k = 0;
  for (auto _ : st) {
    const auto c = runtime::compile_c(base + "// variant " + std::to_string(k++) + "\n", o);
    st.SetIterationTime(c.compile_seconds);
  }
  std::filesystem::remove_all(o.cache_dir);
}
BENCHMARK(BM_CompileKernel)->UseManualTime()->Iterations(5)->Repetitions(3)->Unit(benchmark::kMillisecond);

void BM_CacheHit(benchmark::State& st) {
  const std::string code = lower::lower_c(matmul(256));
  runtime::CompileOptions o;
  o.cache_dir = bench_cache();
  runtime::compile_c(code, o);
  for (auto _ : st) {
    const auto c = runtime::compile_c(code, o);
    if (!c.cache_hit) st.SkipWithError("expected a cache hit");
  }
}
BENCHMARK(BM_CacheHit)->Unit(benchmark::kMicrosecond);

void measure_matmul(benchmark::State& st, std::int64_t n, int repeats, int threads) {
  runtime::MeasureOptions o;
  o.repeats = repeats;
  o.warmup = 2;
  o.threads = threads;
  o.compile.cache_dir = bench_cache();
  o.limits.timeout_seconds = 300;
  const auto t = matmul(n);
  runtime::MeasureResult r;
  for (auto _ : st) {
    r = runtime::measure(t, o);
    if (!r.ok) {
      st.SkipWithError(r.error.c_str());
      return;
    }
    st.SetIterationTime(r.median);
  }
  st.counters["median_s"] = r.median;
  st.counters["iqr_s"] = r.iqr;
  st.counters["min_s"] = r.min;
  st.counters["iqr_over_median"] = r.iqr / r.median;
  st.counters["gflops_median"] = 2.0 * double(n * n * n) / r.median / 1e9;
}

void BM_MeasureMatmul256(benchmark::State& st) { measure_matmul(st, 256, 20, 1); }
BENCHMARK(BM_MeasureMatmul256)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_MatmulGflops512(benchmark::State& st) { measure_matmul(st, 512, 5, static_cast<int>(st.range(0))); }
BENCHMARK(BM_MatmulGflops512)->Arg(1)->Arg(2)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
