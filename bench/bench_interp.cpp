// Interpreter and equivalence-check throughput (issue #2 items 6-7).
//  * BM_Matmul256: the 256^3 matmul task, one run (16.7M statement executions); goal >= 30M statements/s; typed and
//    untyped, batched (the default) and one iteration at a time (RunOptions::batched = false, the anchor).
//  * BM_GuardedCumsum: a reduction under an if_then_else guard, batched and not.
//  * BM_EquivSoftmax64: check_equivalence of a 64x64 softmax against a reassociated candidate (3 seeds x {N,U},
//    both tasks compiled and run); goal <= 5 ms.
#include <benchmark/benchmark.h>

#include "equiv/equivalence.hpp"
#include "interp/interpreter.hpp"
#include "ir/parser.hpp"

namespace {
using namespace steptp;

ir::KnownBuffer kb(const char* n, ir::Role r, std::vector<std::int64_t> s) {
  ir::KnownBuffer k;
  k.name = n;
  k.role = r;
  k.dtype = ir::DType::F32;
  k.shape = std::move(s);
  return k;
}

ir::Task task(const char* leir, std::vector<ir::KnownBuffer> known) {
  ir::Task t;
  t.known = std::move(known);
  t.program = ir::parse_program(leir);
  return t;
}

void BM_Matmul256(benchmark::State& st) {
  const auto t = task(
      "B^{256}_{tx=0}L^{256}_{a=0}L^{256}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];",
      {kb("A", ir::Role::Input, {256, 256}), kb("C", ir::Role::Input, {256, 256}),
       kb("D", ir::Role::Output, {256, 256})});
  interp::Interpreter in(t);
  const auto inputs = equiv::make_inputs(in, 0, equiv::Distribution::Normal);
  const bool typed = st.range(0) != 0;
  interp::RunOptions ro;
  ro.typed = typed;
  ro.batched = st.range(1) != 0;
  for (auto _ : st) benchmark::DoNotOptimize(in.run(inputs, ro));
  st.counters["stmts/s"] = benchmark::Counter(static_cast<double>(in.last_steps()) * st.iterations(),
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Matmul256)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"typed", "batched"})
    ->Unit(benchmark::kMillisecond);

/// A guarded reduction (the shape of the default dataset's cumsum workloads, the eval's largest interpreter cost):
/// H[tx,a] = Σ_{c<=a} G[tx,c], 64 × 512 × 512 = 16.8M statement executions, scalar (the anchor) and batched.
void BM_GuardedCumsum(benchmark::State& st) {
  const auto t = task("B^{64}_{tx=0}L^{512}_{a=0}L^{512}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+"
                      "if_then_else(c<=a,A^{f32,g}_{tx,c},0);];",
                      {kb("A", ir::Role::Input, {64, 512}), kb("D", ir::Role::Output, {64, 512})});
  interp::Interpreter in(t);
  const auto inputs = equiv::make_inputs(in, 0, equiv::Distribution::Normal);
  interp::RunOptions ro;
  ro.batched = st.range(0) != 0;
  for (auto _ : st) benchmark::DoNotOptimize(in.run(inputs, ro));
  st.counters["stmts/s"] = benchmark::Counter(static_cast<double>(in.last_steps()) * st.iterations(),
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GuardedCumsum)->Arg(0)->Arg(1)->ArgName("batched")->Unit(benchmark::kMillisecond);

const char* kSoftmax =
    "B^{64}_{tx=0}L^{64}_{a=0}[M^{f32,g}_{tx}=max(M^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
    "B^{64}_{tx=0}L^{64}_{a=0}[S^{f32,g}_{tx}=S^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx});];"
    "B^{64}_{tx=0}L^{64}_{a=0}[D^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx})/S^{f32,g}_{tx};];";
const char* kSoftmaxSplit =
    "B^{64}_{tx=0}L^{64}_{a=0}[M^{f32,g}_{tx}=max(M^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
    "B^{64}_{tx=0}L^{64}_{a=0}[E^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx});];"
    "B^{64}_{tx=0}L^{8}_{a=0}L^{8}_{c=0}[S^{f32,g}_{tx}=S^{f32,g}_{tx}+E^{f32,g}_{tx,a*8+c};];"
    "B^{64}_{tx=0}L^{64}_{a=0}[D^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}/S^{f32,g}_{tx};];";

void BM_EquivSoftmax64(benchmark::State& st) {
  const std::vector<ir::KnownBuffer> k{kb("A", ir::Role::Input, {64, 64}), kb("D", ir::Role::Output, {64, 64})};
  const auto a = task(kSoftmax, k), b = task(kSoftmaxSplit, k);
  for (auto _ : st) {
    auto r = equiv::check_equivalence(a, b);
    if (!r.equivalent) st.SkipWithError(r.message.c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_EquivSoftmax64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
