// Cost models of the `cost` policy (DATASET.md §9.3, src/policy/cost/): the analytical model's rankings on
// matmul variants with hand-computed terms, the features of tiny programs, and the learned model end to end
// (train on a small fixed-timer dataset, deterministic bytes, load, score, corrupt files).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../dataset/dataset_test_util.hpp"
#include "../strategies/strategy_test_util.hpp"
#include "policy/cost/analytical.hpp"
#include "policy/cost/features.hpp"
#include "policy/cost/model.hpp"
#include "policy/cost_policy.hpp"

namespace steptp::policy::cost {
namespace {

namespace fs = std::filesystem;
using strategy::testing::make_task;
using R = ir::Role;

/// A fixed machine, so that the expected numbers below can be worked out by hand.
MachineModel test_machine(int threads = 1) {
  MachineModel m;
  m.flops_per_cycle_scalar = 2;
  m.ghz = 2;  // 4e9 scalar flop/s
  m.vector_lanes_f32 = 8;
  m.l1_bytes = 32768;
  m.l2_bytes = 1048576;
  m.llc_bytes = 16777216;
  m.dram_bytes_per_s = 10e9;
  m.llc_bytes_per_s = 50e9;
  m.l2_bytes_per_s = 100e9;
  m.mem_ops_per_cycle = 2;  // 4e9 vector loads/stores per second
  m.threads = threads;
  return m;
}

ir::Task matmul(const std::string& leir, std::int64_t n) {
  return make_task(leir, {{"A", R::Input, {n, n}}, {"E", R::Input, {n, n}}, {"C", R::Output, {n, n}}});
}

const char* kIjk = "L^{256}_{i=0}L^{256}_{j=0}L^{256}_{k=0}[C_{i,j}=C_{i,j}+A_{i,k}*E_{k,j};];";
const char* kIkj = "L^{256}_{i=0}L^{256}_{k=0}L^{256}_{j=0}[C_{i,j}=C_{i,j}+A_{i,k}*E_{k,j};];";

TEST(CostAnalytical, MatmulIkjBeatsIjkWithHandComputedTerms) {
  const MachineModel m = test_machine();
  const Estimate ijk = analytical_estimate(matmul(kIjk, 256), m), ikj = analytical_estimate(matmul(kIkj, 256), m);
  // compute: 2^24 instances * 2 flops / (4e9 * 8 lanes) in both: ikj's innermost j has strides C 1, A 0, B 1;
  // ijk's innermost k is C's reduction (stride 0), and GCC vectorises the j loop outside it instead (C 1, A 0, B 1:
  // outer_vector_width)
  EXPECT_NEAR(ijk.compute_s, 1.048576e-3, 1e-12);
  EXPECT_NEAR(ikj.compute_s, 1.048576e-3, 1e-12);
  // L1 (32 KiB): the first loop from inside whose working set overflows is the middle one in both orders (ikj:
  // k-level W = C row 1 KiB + A row 1 KiB + all of B 256 KiB); traffic = 264192 B * 256 runs
  EXPECT_DOUBLE_EQ(ikj.traffic_l1, 264192.0 * 256);
  EXPECT_DOUBLE_EQ(ijk.traffic_l1, 264192.0 * 256);
  // L2 and LLC hold all three matrices (768 KiB): compulsory traffic only
  EXPECT_DOUBLE_EQ(ikj.traffic_l2, 786432.0);
  EXPECT_DOUBLE_EQ(ikj.traffic_llc, 786432.0);
  const double mem = 264192.0 * 256 / 100e9 + 786432.0 / 50e9 + 786432.0 / 10e9;
  EXPECT_NEAR(ikj.memory_s, mem, 1e-12);
  // issue: ikj loads and stores the accumulator C (2) and loads B (1) per instance, A is invariant along j:
  // 2^24 * 3 / (4e9 * 8 lanes); ijk loads A and B (C is invariant along k), 8 lanes: 2^24 * 2 / (4e9 * 8)
  EXPECT_NEAR(ikj.issue_s, 1.572864e-3, 1e-12);
  EXPECT_NEAR(ijk.issue_s, 1.048576e-3, 1e-12);
  // chain: ijk's accumulators stay in a vector register, 8 chains (the lanes) of one 4-cycle add per instance,
  // 2^24 * 4 / 8 / 2e9; ikj's accumulator goes through memory (4 + 6 cycles) but 256 chains (j) run side by side
  EXPECT_NEAR(ijk.chain_s, 4.194304e-3, 1e-12);
  EXPECT_NEAR(ikj.chain_s, 16777216.0 * 10 / 256 / 2e9, 1e-12);
  EXPECT_NEAR(ikj.seconds, 1.572864e-3, 1e-12);  // issue-bound
  EXPECT_NEAR(ijk.seconds, 4.194304e-3 + 0.25 * 1.048576e-3, 1e-12);  // chain-bound: chain + 0.25 x the rest
  EXPECT_LT(ikj.seconds, ijk.seconds);
  // with the j loop unrolled GCC vectorises neither loop: scalar, one chain
  const Estimate unrolled =
      analytical_estimate(matmul("L^{256}_{i=0}U^{256}_{j=0}L^{256}_{k=0}[C_{i,j}=C_{i,j}+A_{i,k}*E_{k,j};];", 256), m);
  EXPECT_NEAR(unrolled.compute_s, 8.388608e-3, 1e-12);
  EXPECT_NEAR(unrolled.chain_s, 3.3554432e-2, 1e-12);
  const auto model = make_analytical_model(m);
  EXPECT_EQ(model->name(), "analytical");
  EXPECT_NEAR(model->score(matmul(kIkj, 256)), std::log2(1.572864e-3), 1e-9);
  EXPECT_LT(model->score(matmul(kIkj, 256)), model->score(matmul(kIjk, 256)));
}

TEST(CostAnalytical, TiledMatmulIsFasterAt512) {
  const MachineModel m = test_machine();
  const ir::Task plain = matmul("L^{512}_{i=0}L^{512}_{k=0}L^{512}_{j=0}[C_{i,j}=C_{i,j}+A_{i,k}*E_{k,j};];", 512);
  const ir::Task tiled = matmul(
      "L^{8}_{d=0}L^{8}_{f=0}L^{512}_{i=0}L^{64}_{k=0}L^{64}_{j=0}"
      "[C_{i,d*64+j}=C_{i,d*64+j}+A_{i,f*64+k}*E_{f*64+k,d*64+j};];",
      512);
  const Estimate p = analytical_estimate(plain, m), t = analytical_estimate(tiled, m);
  EXPECT_NEAR(p.compute_s, 8.388608e-3, 1e-12);  // both vectorised, 2^28 flops / (4e9 * 8)
  EXPECT_NEAR(t.compute_s, 8.388608e-3, 1e-12);
  // untiled: all of B (1 MiB) plus two rows overflow L1 and L2 at the k loop: (2 + 2 + 1024) KiB per i
  EXPECT_DOUBLE_EQ(p.traffic_l1, (2048.0 + 2048 + 1048576) * 512);
  EXPECT_DOUBLE_EQ(p.traffic_l2, (2048.0 + 2048 + 1048576) * 512);
  EXPECT_DOUBLE_EQ(p.traffic_llc, 3.0 * 1048576);
  // tiled: a 64x64 tile of B (16 KiB) and two 64-element rows fit L1; the i loop (C and A panels of 128 KiB each
  // plus the B tile) does not, once per (d, f); L2 overflows at f: C panel + all of A + a B column panel, per d
  EXPECT_DOUBLE_EQ(t.traffic_l1, (131072.0 + 131072 + 16384) * 64);
  EXPECT_DOUBLE_EQ(t.traffic_l2, (131072.0 + 1048576 + 131072) * 8);
  EXPECT_DOUBLE_EQ(t.traffic_llc, 3.0 * 1048576);
  EXPECT_NEAR(p.seconds, p.traffic_l1 / 100e9 + p.traffic_l2 / 50e9 + p.traffic_llc / 10e9, 1e-12);  // memory-bound
  EXPECT_NEAR(t.seconds, 2.0 * 2.0 * 2.0 * 1.572864e-3, 1e-12);  // issue-bound: 8x the 256^3 ikj's 3 ops/instance
  EXPECT_LE(t.seconds, p.seconds);
  EXPECT_LT(t.seconds, p.seconds);
}

// The register block of bench/cache_block_path.py scaled to 64^3: an `l` accumulator whose rows loop is unrolled
// (U) and whose columns are the innermost loop stays in registers across the reduction loop c, so only E is loaded
// per instance; the same cache with an L rows loop, and the global accumulator, are loaded and stored each time.
TEST(CostAnalytical, UnrolledLocalAccumulatorIsARegisterBlock) {
  const MachineModel m = test_machine();
  auto gemm = [&](const std::string& rows) {
    return matmul("L^{16}_{i=0}L^{8}_{f=0}[L^{64}_{c=0}" + rows + "^{4}_{d=0}L^{8}_{a=0}[G^{f32,l}_{d*16+i,f*8+a}=G^{"
                  "f32,l}_{d*16+i,f*8+a}+A_{d*16+i,c}*E_{c,f*8+a};];L^{4}_{d=0}L^{8}_{a=0}[C_{d*16+i,f*8+a}=G^{f32,"
                  "l}_{d*16+i,f*8+a};];];",
                  64);
  };
  const ir::Task global = matmul("L^{16}_{i=0}L^{8}_{f=0}L^{64}_{c=0}L^{4}_{d=0}L^{8}_{a=0}[C_{d*16+i,f*8+a}=C_{d*16+"
                                 "i,f*8+a}+A_{d*16+i,c}*E_{c,f*8+a};];",
                                 64);
  const Estimate u = analytical_estimate(gemm("U"), m), l = analytical_estimate(gemm("L"), m),
                 g = analytical_estimate(global, m);
  // 2^18 instances in vectors of 8: 2^15 vector instances at 4e9 loads+stores per second. The 4 x 8 float block
  // (128 B) is within half of the 16 x 32 B register file; A is invariant along a; E is loaded once for the 4
  // unrolled rows (the band U d: 4 iterations x 1 vector of a fit in 16 registers), 1/4 per instance. The
  // write-back adds 4096 / 8 vector instances of one load and one store.
  const double back = 4096.0 / 8 * 2 / 4e9;
  EXPECT_NEAR(u.issue_s, 32768.0 * 0.25 / 4e9 + back, 1e-15);
  EXPECT_NEAR(l.issue_s, 32768.0 * 3 / 4e9 + back, 1e-15);
  EXPECT_NEAR(g.issue_s, 32768.0 * 3 / 4e9, 1e-15);
  EXPECT_LT(u.seconds, l.seconds);
  // a block wider than half the register file (4 x 32 floats, 512 B) is not kept in registers
  const ir::Task wide = matmul("L^{16}_{i=0}L^{2}_{f=0}[L^{64}_{c=0}U^{4}_{d=0}L^{32}_{a=0}[G^{f32,l}_{d*16+i,f*32+a}=G^{"
                               "f32,l}_{d*16+i,f*32+a}+A_{d*16+i,c}*E_{c,f*32+a};];L^{4}_{d=0}L^{32}_{a=0}[C_{d*16+i,f*"
                               "32+a}=G^{f32,l}_{d*16+i,f*32+a};];];",
                               64);
  // (G costs 2 per instance), but E is still loaded once for the 4 unrolled rows: 4 rows x 4 vectors of a fit in 16
  // registers
  EXPECT_NEAR(analytical_estimate(wide, m).issue_s, 32768.0 * 2.25 / 4e9 + back, 1e-15);
  // eight rows do not (32 vectors): E costs 1 again
  const ir::Task eight = matmul("L^{8}_{i=0}L^{2}_{f=0}[L^{64}_{c=0}U^{8}_{d=0}L^{32}_{a=0}[G^{f32,l}_{d*8+i,f*32+a}=G^{"
                                "f32,l}_{d*8+i,f*32+a}+A_{d*8+i,c}*E_{c,f*32+a};];L^{8}_{d=0}L^{32}_{a=0}[C_{d*8+i,f*32+a}"
                                "=G^{f32,l}_{d*8+i,f*32+a};];];",
                                64);
  EXPECT_NEAR(analytical_estimate(eight, m).issue_s, 32768.0 * 3 / 4e9 + back, 1e-15);
}

TEST(CostAnalytical, RegisterBlockAccumulatorsAreLatencyBoundWhenFew) {
  // analytical.hpp latency_s: instances * add_latency_cycles / (ghz * 1e9 * chains); chains = the block's elements.
  const MachineModel m = test_machine();  // 4 cycles, 2 GHz
  const ir::Task row = matmul("L^{64}_{i=0}L^{8}_{f=0}[L^{64}_{c=0}L^{8}_{a=0}[G^{f32,l}_{i,f*8+a}=G^{f32,l}_{i,f*8+a}+A_{i,"
                              "c}*E_{c,f*8+a};];L^{8}_{a=0}[C_{i,f*8+a}=G^{f32,l}_{i,f*8+a};];];",
                              64);
  const ir::Task block = matmul("L^{16}_{i=0}L^{8}_{f=0}[L^{64}_{c=0}U^{4}_{d=0}L^{8}_{a=0}[G^{f32,l}_{d*16+i,f*8+a}=G^{"
                                "f32,l}_{d*16+i,f*8+a}+A_{d*16+i,c}*E_{c,f*8+a};];L^{4}_{d=0}L^{8}_{a=0}[C_{d*16+i,f*8+a}"
                                "=G^{f32,l}_{d*16+i,f*8+a};];];",
                                64);
  const Estimate r = analytical_estimate(row, m), b = analytical_estimate(block, m);
  // 2^18 instances each; 8 accumulators (one vector) against 32 (four vectors)
  EXPECT_NEAR(r.latency_s, 262144.0 * 4 / (2e9 * 8), 1e-15);
  EXPECT_NEAR(b.latency_s, 262144.0 * 4 / (2e9 * 32), 1e-15);
  // compute: 2 operations per instance at 4e9 x 8 lanes, the same for both, and the 4096 copies of the write-back
  EXPECT_NEAR(r.compute_s, (262144.0 * 2 + 4096) / 32e9, 1e-15);
  EXPECT_NEAR(b.compute_s, r.compute_s, 1e-15);
  EXPECT_DOUBLE_EQ(r.seconds, std::max({r.compute_s, r.memory_s, r.issue_s, r.latency_s}));
  EXPECT_NEAR(r.seconds, r.latency_s, 1e-15);
  EXPECT_LT(b.seconds, r.seconds);
  // the same accumulation into global memory has no latency term (its chain goes through the store buffer)
  EXPECT_EQ(analytical_estimate(matmul(kIkj, 256), m).latency_s, 0.0);
}

TEST(CostAnalytical, LanePartialSumsShortenTheReductionChain) {
  // Matrix-vector, 64 rows of 4096: the naive sum is one scalar chain per row (2^18 instances x 4 cycles at 2 GHz);
  // reduction_factorization's lanes variant gives w independent sums per row kept in memory (4 + 6 cycles each).
  const MachineModel m = test_machine();
  auto mv = [](const std::string& leir) {
    return make_task(leir, {{"A", R::Input, {64, 4096}}, {"X", R::Input, {4096}}, {"Y", R::Output, {64}}});
  };
  const ir::Task naive = mv("L^{64}_{i=0}L^{4096}_{k=0}[Y_{i}=Y_{i}+A_{i,k}*X_{k};];");
  auto lanes = [&](int w) {
    const std::string n = std::to_string(4096 / w), ws = std::to_string(w);
    return mv("L^{64}_{i=0}L^{" + n + "}_{k=0}L^{" + ws + "}_{a=0}[F_{i,a}=F_{i,a}+A_{i,k*" + ws + "+a}*X_{k*" + ws +
              "+a};];L^{64}_{i=0}L^{" + ws + "}_{a=0}[Y_{i}=Y_{i}+F_{i,a};];");
  };
  const Estimate e = analytical_estimate(naive, m), l8 = analytical_estimate(lanes(8), m),
                 l32 = analytical_estimate(lanes(32), m);
  EXPECT_NEAR(e.chain_s, 262144.0 * 4 / 2e9, 1e-15);
  // the partial nest: 2^18 x 10 cycles / 8 or 32 chains; the combine nest: a scalar chain over a per row
  EXPECT_NEAR(l8.chain_s, 262144.0 * 10 / 8 / 2e9 + 64.0 * 8 * 4 / 2e9, 1e-15);
  EXPECT_NEAR(l32.chain_s, 262144.0 * 10 / 32 / 2e9 + 64.0 * 32 * 4 / 2e9, 1e-15);
  EXPECT_LT(l8.seconds, e.seconds);
  EXPECT_LT(l32.seconds, l8.seconds);
  EXPECT_EQ(e.latency_s, 0.0);  // no register block
}

TEST(CostAnalytical, MachineModelJsonRoundTripsAndKeepsDefaultsOfLaterMembers) {
  MachineModel m = test_machine(2);
  m.add_latency_cycles = 3;
  const MachineModel back = MachineModel::from_json(m.to_json());
  EXPECT_EQ(back.to_json(), m.to_json());
  auto old = m.to_json();
  old.erase("add_latency_cycles");
  old.erase("mem_ops_per_cycle");
  const MachineModel o = MachineModel::from_json(old);
  EXPECT_EQ(o.add_latency_cycles, 4.0);
  EXPECT_EQ(o.mem_ops_per_cycle, 2.0);
  old["add_latency_cycles"] = -1;
  EXPECT_THROW(MachineModel::from_json(old), std::runtime_error);
}

TEST(CostAnalytical, StridedOuterEntryTouchesSeparateRowsNotTheirSpan) {
  // GEMM 512^3 tiled 8 x 16 in the block order tx f c d a. A_{d*64+tx,c} over c and d: 8 whole rows 64 apart, 8 x 32
  // lines (16 KiB), not the 449-row span between them. L1 (32 KiB) overflows at c: per (tx, f) run D 8 rows x 2 lines
  // (1 KiB) + A 16 KiB + C 512 rows x 2 lines (64 KiB), 1024 runs. L2 (1 MiB) overflows at f: D 8 x 32 lines
  // (16 KiB) + A 16 KiB + C whole (1 MiB), 64 runs.
  const ir::Task t = matmul("B^{64}_{tx=0}L^{16}_{f=0}L^{512}_{c=0}L^{8}_{d=0}L^{32}_{a=0}[C_{d*64+tx,f*32+a}=C_{d*64+tx,"
                            "f*32+a}+A_{d*64+tx,c}*E_{c,f*32+a};];",
                            512);
  const Estimate e = analytical_estimate(t, test_machine());
  EXPECT_EQ(e.traffic_l1, (1024.0 + 16384 + 65536) * 1024);
  EXPECT_EQ(e.traffic_l2, (16384.0 + 16384 + 1048576) * 64);
}

TEST(CostAnalytical, SmallReductionLoopsInsideAreUnrolledAndTheLoopOutsideVectorised) {
  // a 3x3 stencil: GCC unrolls the 9 (g, h) iterations completely and vectorises d (C 1, W 0, A 1 along d)
  const MachineModel m = test_machine();
  const Estimate small = analytical_estimate(
      make_task("L^{62}_{d=0}L^{3}_{g=0}L^{3}_{h=0}[C_{d}=C_{d}+W_{g,h}*A_{g,d+h};];",
                {{"A", R::Input, {3, 64}}, {"W", R::Input, {3, 3}}, {"C", R::Output, {62}}}),
      m);
  EXPECT_NEAR(small.compute_s, 62.0 * 9 * 2 / (4e9 * 8), 1e-18);
  EXPECT_NEAR(small.chain_s, 62.0 * 9 * 4 / (8 * 2e9), 1e-18);  // 8 chains: the lanes
  // 3 x 8 = 24 iterations inside d: not unrolled, so d is not vectorised and each output sums in one chain
  const Estimate large = analytical_estimate(
      make_task("L^{62}_{d=0}L^{3}_{g=0}L^{8}_{h=0}[C_{d}=C_{d}+W_{g,h}*A_{g,d+h};];",
                {{"A", R::Input, {3, 69}}, {"W", R::Input, {3, 8}}, {"C", R::Output, {62}}}),
      m);
  EXPECT_NEAR(large.compute_s, 62.0 * 24 * 2 / 4e9, 1e-18);
  EXPECT_NEAR(large.chain_s, 62.0 * 24 * 4 / 2e9, 1e-18);
}

TEST(CostAnalytical, ABufferAnEarlierNestLeftInTheCacheIsNotLoadedAgain) {
  // two nests read A (64 KiB): at L1 (32 KiB) neither fits, each loads A and its output (64 KiB each); at L2 and
  // the LLC the first loads A and C, the second finds A still there (A + C = 128 KiB fit) and loads only E
  const ir::Task t = make_task("L^{16384}_{i=0}[C_{i}=A_{i}*2.0;];L^{16384}_{i=0}[E_{i}=A_{i}+1.0;];",
                               {{"A", R::Input, {16384}}, {"C", R::Output, {16384}}, {"E", R::Output, {16384}}});
  const Estimate e = analytical_estimate(t, test_machine());
  ASSERT_EQ(e.nests.size(), 2u);
  EXPECT_DOUBLE_EQ(e.nests[0].traffic_l1, 131072.0);
  EXPECT_DOUBLE_EQ(e.nests[1].traffic_l1, 131072.0);
  EXPECT_DOUBLE_EQ(e.nests[0].traffic_l2, 131072.0);
  EXPECT_DOUBLE_EQ(e.nests[1].traffic_l2, 65536.0);
  EXPECT_DOUBLE_EQ(e.nests[1].traffic_llc, 65536.0);
}

TEST(CostAnalytical, ParallelOuterLoopIsFasterWithThreads) {
  const ir::Task par =
      matmul("P^{256}_{i=0}L^{256}_{k=0}L^{256}_{j=0}[C_{i,j}=C_{i,j}+A_{i,k}*E_{k,j};];", 256);
  const ir::Task ser = matmul(kIkj, 256);
  const Estimate p4 = analytical_estimate(par, test_machine(4)), s4 = analytical_estimate(ser, test_machine(4));
  EXPECT_EQ(p4.nests.at(0).parallelism, 4);
  EXPECT_NEAR(p4.compute_s, 1.048576e-3 / 4, 1e-12);
  EXPECT_NEAR(p4.seconds, 1.572864e-3 / 4, 1e-12);
  EXPECT_NEAR(s4.seconds, 1.572864e-3, 1e-12);
  EXPECT_LT(p4.seconds, s4.seconds);
  // one thread: the P loop changes nothing
  EXPECT_DOUBLE_EQ(analytical_estimate(par, test_machine(1)).seconds, analytical_estimate(ser, test_machine(1)).seconds);
  // a reducing P loop is not parallelised by the C lowering
  const ir::Task red = matmul("L^{256}_{i=0}P^{256}_{k=0}L^{256}_{j=0}[C_{i,j}=C_{i,j}+A_{i,k}*E_{k,j};];", 256);
  EXPECT_EQ(analytical_estimate(red, test_machine(4)).nests.at(0).parallelism, 1);
}

TEST(CostAnalytical, InvalidTaskThrowsLeirError) {
  ir::Task t = matmul(kIkj, 256);
  t.known[2].shape = {256, 255};  // C written out of its declared shape
  EXPECT_THROW(analytical_estimate(t, test_machine()), ir::LeirError);
  EXPECT_THROW(make_analytical_model(test_machine())->score(t), ir::LeirError);
}

std::map<std::string, double> named(const std::vector<double>& f) {
  std::map<std::string, double> m;
  const auto& names = feature_names();
  EXPECT_EQ(f.size(), names.size());
  for (std::size_t i = 0; i < f.size() && i < names.size(); ++i) m[names[i]] = f[i];
  return m;
}

TEST(CostFeatures, TinyProgramHandComputed) {
  // C[i,j] = A[i,j]*2 + E[j] over 4 x 8, the i loop parallel, the j loop unrolled
  const ir::Task t = make_task("P^{4}_{i=0}U^{8}_{j=0}[C_{i,j}=A_{i,j}*2.0+E_{j};];",
                               {{"A", R::Input, {4, 8}}, {"E", R::Input, {8}}, {"C", R::Output, {4, 8}}});
  auto f = named(program_features(t, test_machine()));
  const std::map<std::string, double> want = {
      {"flops", 64}, {"iterations", 32}, {"min_traffic_bytes", 288}, {"footprint_bytes", 288},
      {"parallel_iterations", 4}, {"stmt_instances", 32}, {"work", 64}, {"expensive_op_instances", 0},
      {"intensity", 64.0 / 288}, {"nests", 1}, {"statements", 1}, {"intermediates", 0}, {"intermediate_bytes", 0},
      {"max_depth", 2}, {"mean_depth", 2}, {"heavy_inner_extent", 8}, {"frac_inner_unit", 1},
      {"frac_vectorised", 1}, {"mean_vector_width", 8}, {"nonunit_inner_accesses", 0},
      {"nonunit_inner_instances", 0}, {"frac_inner_reduction", 0}, {"gather_accesses", 0}, {"loops_P", 1},
      {"loops_V", 0}, {"loops_U", 1}, {"loops_B", 0}, {"frac_parallel", 1}, {"frac_inner_V", 0},
      {"frac_inner_U", 1}, {"max_unroll_extent", 8},
      // everything fits every cache: C and A 128 B (2 lines) each, B 32 B (1 line)
      {"traffic_l1_bytes", 320}, {"traffic_l2_bytes", 320}, {"traffic_llc_bytes", 320},
      {"analytical_compute_s", 32 * 2 / (4e9 * 8)},
      {"analytical_memory_s", 320 / 100e9 + 320 / 50e9 + 320 / 10e9},
      {"analytical_s", 320 / 100e9 + 320 / 50e9 + 320 / 10e9}, {"heavy_nest_share", 1},
      // ideal: max(64 flops / (4e9 * 8 lanes), 288 B / 10e9 B/s); issue: 3 accesses (C, A, E) per instance, 8 lanes
      {"ideal_s", 2.88e-8}, {"analytical_issue_s", 32 * 3 / (4e9 * 8)}, {"analytical_latency_s", 0},
      {"analytical_chain_s", 0}, {"rel_analytical_s", 4.16e-8 / 2.88e-8}, {"rel_compute_s", 2e-9 / 2.88e-8},
      {"rel_memory_s", 4.16e-8 / 2.88e-8}, {"rel_issue_s", 3e-9 / 2.88e-8}, {"rel_latency_s", 0}, {"rel_chain_s", 0},
      {"rel_traffic_l1", 320.0 / 288}, {"rel_traffic_l2", 320.0 / 288}, {"rel_traffic_llc", 320.0 / 288},
      {"rel_instances", 0.5}, {"rel_work", 1}, {"inner_invariant_accesses", 0}, {"inner_unit_accesses", 3},
      {"inner_partial_line_accesses", 0}, {"inner_line_accesses", 0}, {"inner_unknown_accesses", 0},
      {"inner_entries_per_instance", 1.0 / 8}, {"heavy_vector_width", 8}, {"heavy_depth", 2}};
  ASSERT_EQ(want.size(), feature_names().size());
  for (const auto& [k, v] : want) EXPECT_NEAR(f.at(k), v, 1e-12 + 1e-12 * std::abs(v)) << k;
}

TEST(CostFeatures, TransposedWalkHasNonUnitInnerAccesses) {
  // the same computation with i innermost: C and A move by 8 elements, B is invariant; not vectorised
  const ir::Task t = make_task("L^{8}_{j=0}L^{4}_{i=0}[C_{i,j}=A_{i,j}*2.0+E_{j};];",
                               {{"A", R::Input, {4, 8}}, {"E", R::Input, {8}}, {"C", R::Output, {4, 8}}});
  auto f = named(program_features(t, test_machine()));
  EXPECT_EQ(f.at("nonunit_inner_accesses"), 2);
  EXPECT_EQ(f.at("nonunit_inner_instances"), 64);
  EXPECT_EQ(f.at("frac_inner_unit"), 0);
  EXPECT_EQ(f.at("frac_vectorised"), 0);
  EXPECT_EQ(f.at("mean_vector_width"), 1);
  EXPECT_EQ(f.at("heavy_inner_extent"), 4);
  EXPECT_EQ(f.at("parallel_iterations"), 0);
  EXPECT_NEAR(f.at("analytical_compute_s"), 32 * 2 / 4e9, 1e-18);
  // along i, C and A move 8 floats (32 B: within a line), E stays
  EXPECT_EQ(f.at("inner_partial_line_accesses"), 2);
  EXPECT_EQ(f.at("inner_invariant_accesses"), 1);
  EXPECT_EQ(f.at("inner_unit_accesses"), 0);
  EXPECT_EQ(f.at("inner_entries_per_instance"), 0.25);
}

// ---- the learned model ----

using dataset::dstest::run_cli;
using dataset::dstest::temp_dir;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class CostLearnedSlow : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = temp_dir("cost-model");
    const std::string tasks = dataset::dstest::write_tiny_tasks(dir_);
    ASSERT_EQ(run_cli({"generate", "--tasks", tasks, "--out", dir_ + "/ds", "--timer", "fixed", "--no-progress",
                       "--min-per-strategy", "2"},
                      dir_),
              0)
        << slurp(dir_ + "/log.txt");
    for (const char* d : {"/ta", "/sa", "/sb", "/e1"}) fs::create_directories(dir_ + d);  // run_cli log dirs
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string dir_;
};
std::string CostLearnedSlow::dir_;

TEST_F(CostLearnedSlow, TrainsDeterministicallyLoadsAndScores) {
  const std::string a = dir_ + "/a.json", b = dir_ + "/b.json";
  ASSERT_EQ(run_cli({"cost-model", "train", dir_ + "/ds", "-o", a, "--rounds", "20", "--seed", "3"}, dir_ + "/ta"), 0);
  ASSERT_EQ(run_cli({"cost-model", "train", dir_ + "/ds", "-o", b, "--rounds", "20", "--seed", "3"}, dir_), 0);
  ASSERT_FALSE(slurp(a).empty());
  EXPECT_EQ(slurp(a), slurp(b));  // nthread = 1, fixed seed: identical bytes
  const std::string report = slurp(dir_ + "/ta/log.txt");
  EXPECT_NE(report.find("held-out pairwise accuracy"), std::string::npos) << report;

  const auto j = core::ojson::parse(slurp(a));
  EXPECT_EQ(j["format"], "steptp.cost-model/2");
  EXPECT_EQ(j["target"]["objective"], "rank");
  EXPECT_LT(j["target"]["scale"].get<double>(), 0);  // higher ranking score = faster = fewer log2 seconds
  EXPECT_EQ(j["features"].size(), feature_names().size());
  EXPECT_TRUE(j["booster"].is_object());
  EXPECT_GT(j["train"]["measured_records"].get<int>(), 0);
  EXPECT_GE(j["train"]["heldout_workloads"].size(), 1u);

  const auto model = load_cost_model(a);
  EXPECT_EQ(model->name(), "xgboost:" + a);
  const ir::Task small = make_task("L^{4}_{i=0}L^{8}_{j=0}[C_{i,j}=A_{i,j}*2.0;];",
                                   {{"A", R::Input, {4, 8}}, {"C", R::Output, {4, 8}}});
  const double s = model->score(small);
  EXPECT_TRUE(std::isfinite(s));
  EXPECT_LT(s, 0);  // log2 of well under a second
  EXPECT_EQ(s, load_cost_model(b)->score(small));

  // the CLI prints one score per task
  const std::string tasks = dir_ + "/tiny.jsonl";
  ASSERT_EQ(run_cli({"cost-model", "score", a, tasks}, dir_ + "/sa"), 0);
  ASSERT_EQ(run_cli({"cost-model", "score", "analytical", tasks}, dir_ + "/sb"), 0);
  std::istringstream lines(slurp(dir_ + "/sa/log.txt"));
  int n = 0;
  for (std::string l; std::getline(lines, l); ++n) EXPECT_NE(l.find('\t'), std::string::npos) << l;
  EXPECT_EQ(n, 6);
  // --terms: the analytical model's three terms between the score and the workload; refused for a learned model
  for (const char* d : {"/st", "/se"}) fs::create_directories(dir_ + d);
  ASSERT_EQ(run_cli({"cost-model", "score", "analytical", tasks, "--terms"}, dir_ + "/st"), 0);
  const std::string first = slurp(dir_ + "/st/log.txt").substr(0, slurp(dir_ + "/st/log.txt").find('\n'));
  EXPECT_NE(first.find("\tcompute_s="), std::string::npos) << first;
  EXPECT_NE(first.find("\tmemory_s="), std::string::npos) << first;
  EXPECT_NE(first.find("\tissue_s="), std::string::npos) << first;
  EXPECT_EQ(run_cli({"cost-model", "score", a, tasks, "--terms"}, dir_ + "/se"), 2);
  EXPECT_NE(slurp(dir_ + "/se/log.txt").find("U001 at `steptp cost-model score`: --terms needs the analytical model"),
            std::string::npos)
      << slurp(dir_ + "/se/log.txt");
}

TEST_F(CostLearnedSlow, AModelFileRunsItsLearnedModelOnlyWhenItRanksHeldOutClearPairsAsWell) {
  const std::string a = dir_ + "/choice.json";
  ASSERT_EQ(run_cli({"cost-model", "train", dir_ + "/ds", "-o", a, "--rounds", "5", "--holdout-frac", "0.5"}, dir_), 0);
  auto j = core::ojson::parse(slurp(a));
  const auto& clear = j["train"]["pairwise_clear"];
  ASSERT_TRUE(clear["learned"].is_object() && clear["analytical"].is_object()) << j["train"].dump();
  // the clear pairs are a subset of all held-out pairs
  EXPECT_LE(clear["learned"]["pairs"].get<int>(), j["train"]["pairwise"]["learned"]["pairs"].get<int>());
  auto with = [&](double learned, double analytical, int pairs) {
    j["train"]["pairwise_clear"]["learned"]["accuracy"] = learned;
    j["train"]["pairwise_clear"]["analytical"]["accuracy"] = analytical;
    j["train"]["pairwise_clear"]["learned"]["pairs"] = pairs;
    j["train"]["pairwise_clear"]["analytical"]["pairs"] = pairs;
    const std::string path = dir_ + "/choice-edit.json";
    std::ofstream(path) << j.dump();
    return choose_model(path);
  };
  const ModelChoice worse = with(0.55, 0.7, 40);
  EXPECT_FALSE(worse.learned);
  EXPECT_EQ(worse.why, "held-out clear-pair accuracy: learned 55.0%, analytical 70.0% (40 pairs)");
  EXPECT_TRUE(with(0.9, 0.7, 40).learned);
  EXPECT_TRUE(with(0.7, 0.7, 40).learned);  // a tie keeps the file's model
  const ModelChoice none = with(0.0, 0.9, 0);
  EXPECT_TRUE(none.learned);
  EXPECT_EQ(none.why, "the model file reports no held-out clear pair");
  // the cost policy says which model it runs, and why
  with(0.55, 0.7, 40);
  auto pol = policy::make_cost_policy(dir_ + "/choice-edit.json", 16, 1, "none", "none");
  EXPECT_EQ(pol->describe()["model"], "analytical");
  EXPECT_EQ(pol->describe()["chosen_by"], worse.why);
  with(0.9, 0.7, 40);
  pol = policy::make_cost_policy(dir_ + "/choice-edit.json", 16, 1, "none", "none");
  EXPECT_EQ(pol->describe()["model"], "xgboost:" + dir_ + "/choice-edit.json");
}

TEST_F(CostLearnedSlow, CorruptModelFilesGiveClearErrors) {
  const std::string good = dir_ + "/good.json";
  ASSERT_EQ(run_cli({"cost-model", "train", dir_ + "/ds", "-o", good, "--rounds", "5"}, dir_), 0);
  auto expect_error = [](const std::string& path, const std::string& what) {
    try {
      load_cost_model(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  const std::string text = slurp(good);
  std::ofstream(dir_ + "/trunc.json") << text.substr(0, text.size() / 2);
  expect_error(dir_ + "/trunc.json", "invalid JSON");
  std::ofstream(dir_ + "/fmt.json") << R"({"format": "other"})";
  expect_error(dir_ + "/fmt.json", "format");
  auto j = core::ojson::parse(text);
  j["features"].erase(0);
  std::ofstream(dir_ + "/feat.json") << j.dump();
  expect_error(dir_ + "/feat.json", "features differ");
  j = core::ojson::parse(text);
  j["booster"] = core::ojson{{"learner", 3}};
  std::ofstream(dir_ + "/boost.json") << j.dump();
  expect_error(dir_ + "/boost.json", "booster");
  j = core::ojson::parse(text);
  j.erase("target");
  std::ofstream(dir_ + "/target.json") << j.dump();
  expect_error(dir_ + "/target.json", "no target object");
  expect_error(dir_ + "/missing.json", "missing.json");
  // the CLI: one error line, exit 2
  EXPECT_EQ(run_cli({"cost-model", "score", dir_ + "/fmt.json", dir_ + "/tiny.jsonl"}, dir_ + "/e1"), 2);
  const std::string err = slurp(dir_ + "/e1/log.txt");
  EXPECT_EQ(err.rfind("steptp: error: ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(run_cli({"cost-model", "train", dir_ + "/nothing", "-o", dir_ + "/x.json"}, dir_), 2);
  // a records file whose second line is not JSON: D003 at FILE:LINE, exit 2
  fs::create_directories(dir_ + "/e2");
  std::ofstream(dir_ + "/torn.jsonl") << "{}\n{\"bad\n";
  EXPECT_EQ(run_cli({"cost-model", "train", dir_ + "/torn.jsonl", "-o", dir_ + "/x.json"}, dir_ + "/e2"), 2);
  EXPECT_NE(slurp(dir_ + "/e2/log.txt").find("D003 at " + dir_ + "/torn.jsonl:2: not a JSON line"), std::string::npos)
      << slurp(dir_ + "/e2/log.txt");
}

}  // namespace
}  // namespace steptp::policy::cost
