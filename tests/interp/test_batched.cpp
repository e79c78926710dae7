// Batched execution of innermost loops (interp/batch.cpp) against the one-iteration-at-a-time reference path
// (RunOptions::batched = false): the same output bits, the same error at the same iteration, the same step counts.
#include <cstring>
#include <limits>

#include "equiv/inputs.hpp"
#include "fuzz/program_gen.hpp"
#include "interp_helpers.hpp"
#include "test_scope.hpp"

namespace steptp::interp {
namespace {
using namespace testing;
using equiv::Distribution;
using equiv::distribution_name;
using equiv::make_inputs;
using ir::DType;

struct Outcome {
  TensorMap out;
  std::string error;  // code and message, empty when the run succeeds
  std::uint64_t steps = 0, batched_steps = 0;
};

Outcome run_mode(const Interpreter& ip, const TensorMap& in, RunOptions opt, bool batched) {
  opt.batched = batched;
  Outcome o;
  try {
    o.out = ip.run(in, opt);
  } catch (const ir::LeirError& e) {
    o.error = e.code() + " " + e.what();
  }
  o.steps = ip.last_steps();
  o.batched_steps = ip.last_batched_steps();
  return o;
}

/// Bitwise equality of two output maps (NaN payloads and signed zeros included).
void expect_same_bits(const TensorMap& a, const TensorMap& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (const auto& [name, x] : a) {
    const auto& y = b.at(name);
    ASSERT_EQ(x.data.size(), y.data.size()) << where << " " << name;
    for (std::size_t k = 0; k < x.data.size(); ++k) {
      std::uint64_t bx = 0, by = 0;
      std::memcpy(&bx, &x.data[k], sizeof bx);
      std::memcpy(&by, &y.data[k], sizeof by);
      ASSERT_EQ(bx, by) << where << " " << name << "[" << k << "]: " << x.data[k] << " vs " << y.data[k];
    }
  }
}

/// Both modes on the same inputs; returns the batched run's count of batched steps.
std::uint64_t expect_modes_agree(const ir::Task& t, const TensorMap& in, const RunOptions& opt, const std::string& where) {
  Interpreter ip(t);
  Outcome s = run_mode(ip, in, opt, false), b = run_mode(ip, in, opt, true);
  EXPECT_EQ(s.batched_steps, 0u) << where;
  EXPECT_EQ(b.error, s.error) << where;
  EXPECT_EQ(b.steps, s.steps) << where;
  if (s.error.empty() && b.error.empty()) expect_same_bits(b.out, s.out, where);
  return b.batched_steps;
}

TEST(BatchedInterpreter, GeneratedProgramsGiveTheScalarBitsOnEveryDistribution) {
  // the fuzzer's generator covers every construct (gathers, guarded reads, chains, &, |, integer division, every
  // dtype, reductions with each initialiser); larger extents than the fuzzer's default so that batches fill up
  fuzz::GenOptions g;
  g.max_extent = 9;
  g.max_reduce = 64;
  std::uint64_t batched = 0, total = 0;
  int programs = 0;
  const std::uint64_t seeds = steptp::testing::check_all() ? 1000 : 200;  // make check-all: 1000
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    const ir::Task t = fuzz::generate_task(seed, g);
    for (Distribution d : {Distribution::Normal, Distribution::Uniform, Distribution::Wide, Distribution::Literal}) {
      const TensorMap in = make_inputs(t, 1000 + seed, d);
      for (bool typed : {false, true}) {
        RunOptions opt;
        opt.typed = typed;
        const std::string where = "seed " + std::to_string(seed) + " dist " + distribution_name(d) +
                                  (typed ? " typed" : " untyped");
        batched += expect_modes_agree(t, in, opt, where);
        Interpreter ip(t);
        ip.run(in, opt);
        total += ip.last_steps();
      }
    }
    ++programs;
  }
  // the comparison means something only if the batched path ran for a good share of the work
  EXPECT_GT(batched, total / 3) << batched << " of " << total << " statement executions batched";
  std::printf("%d programs: %llu of %llu statement executions batched\n", programs,
              static_cast<unsigned long long>(batched), static_cast<unsigned long long>(total));
}

TEST(BatchedInterpreter, ErrorsAreRaisedAtTheScalarIteration) {
  // E302: a gather out of range at iteration 37 of a loop the planner batches (Map)
  auto gather = make_task("L^{100}_{a=0}[C^{f32,g}_{a}=A^{f32,g}_{I^{i64,g}_{a}};];",
                          {in("A", {100}), in("I", {100}, DType::I64), out("C", {100})});
  std::vector<double> idx(100);
  for (int k = 0; k < 100; ++k) idx[k] = 99 - k;
  idx[37] = 100;
  TensorMap in_g{{"A", tensor({100}, std::vector<double>(100, 1.0))}, {"I", tensor({100}, idx, DType::I64)}};
  expect_modes_agree(gather, in_g, {}, "gather");
  std::string msg;
  EXPECT_EQ(run_error(gather, in_g, {}, &msg), "E302");
  EXPECT_NE(msg.find("a=37"), std::string::npos) << msg;
  idx[37] = 5;
  in_g["I"] = tensor({100}, idx, DType::I64);
  Interpreter ip(gather);
  const auto gathered = ip.run(in_g);
  EXPECT_EQ(ip.last_batched_steps(), 100u);  // the valid gather runs batched
  EXPECT_EQ(gathered.at("C").data[37], 1.0);

  // E303 only where the scalar path divides: a guard keeps the zero divisors out (lazy if_then_else lanes)
  auto div = make_task("L^{64}_{a=0}[C^{i64,g}_{a}=if_then_else(D^{i64,g}_{a}!=0,60//D^{i64,g}_{a},-1);];",
                       {in("D", {64}, DType::I64), out("C", {64}, DType::I64)});
  std::vector<double> dv(64);
  for (int k = 0; k < 64; ++k) dv[k] = k % 3;
  TensorMap in_d{{"D", tensor({64}, dv, DType::I64)}};
  expect_modes_agree(div, in_d, {}, "guarded division");
  std::vector<double> want(64);
  for (int k = 0; k < 64; ++k) want[k] = k % 3 == 0 ? -1 : 60 / (k % 3);
  expect_data(run(div, in_d).at("C"), want);

  // E301: a batched copy meets an element of M that was never written (odd positions) at a=1
  auto uninit = make_task("L^{4}_{a=0}[M^{f32,g}_{a*2}=A^{f32,g}_{a};];L^{7}_{a=0}[C^{f32,g}_{a}=M^{f32,g}_{a};];",
                          {in("A", {4}), out("C", {7})});
  TensorMap in_u{{"A", tensor({4}, {1, 2, 3, 4})}};
  expect_modes_agree(uninit, in_u, {}, "uninitialised");
  EXPECT_EQ(run_error(uninit, in_u, {}, &msg), "E301");
  EXPECT_NE(msg.find("M[1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a=1"), std::string::npos) << msg;
  // E301 in a fold: a continuing update (no initialiser, §8.4 rule 2) of an element that was never written
  auto cont = make_task("L^{4}_{a=0}[M^{f32,g}_{a*2}=A^{f32,g}_{a};];L^{7}_{a=0}L^{8}_{c=0}[M^{f32,g}_{a}=M^{f32,g}_{a}"
                        "+E^{f32,g}_{c};];L^{7}_{a=0}[C^{f32,g}_{a}=M^{f32,g}_{a};];",
                        {in("A", {4}), in("E", {8}), out("C", {7})});
  TensorMap in_c{{"A", tensor({4}, {1, 2, 3, 4})}, {"E", tensor({8}, std::vector<double>(8, 0.25))}};
  expect_modes_agree(cont, in_c, {}, "continuing fold");
  for (bool batched : {false, true}) {
    RunOptions o;
    o.batched = batched;
    EXPECT_EQ(run_error(cont, in_c, o, &msg), "E301") << "batched " << batched;
    EXPECT_NE(msg.find("M[1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a=1, c=0"), std::string::npos) << msg;
  }
}

TEST(BatchedInterpreter, StepLimitAndProgressCallsHappenAtTheSameSteps) {
  auto t = make_task("L^{10}_{a=0}L^{100}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+A^{f32,g}_{a,c};];",
                     {in("A", {10, 100}), out("C", {10})});
  TensorMap in_a{{"A", tensor({10, 100}, std::vector<double>(1000, 0.5))}};
  for (bool batched : {false, true}) {
    std::vector<std::uint64_t> calls;
    RunOptions opt;
    opt.batched = batched;
    opt.progress_every = 250;
    opt.progress = [&](std::uint64_t s) { calls.push_back(s); };
    Interpreter ip(t);
    const auto sums = ip.run(in_a, opt);
    EXPECT_EQ(calls, (std::vector<std::uint64_t>{251, 501, 751})) << "batched " << batched;
    expect_data(sums.at("C"), std::vector<double>(10, 50.0));
    opt.max_steps = 777;
    opt.progress = nullptr;
    std::string msg;
    EXPECT_EQ(run_error(t, in_a, opt, &msg), "E308") << "batched " << batched;
    EXPECT_NE(msg.find("a=7, c=77"), std::string::npos) << msg;
  }
}

TEST(BatchedInterpreter, FoldsOverSeveralLoopsAndMapsOverTransposedTargets) {
  // a max over three reduction loops of 3 (27 lanes per output element, one batch) with the -inf initialiser,
  // and a transposed copy whose lanes span two loops (the target offset j*4+i is injective over both)
  auto pool = make_task("L^{2}_{a=0}L^{3}_{g=0}L^{3}_{h=0}L^{3}_{i=0}[C^{f32,g}_{a}=max(C^{f32,g}_{a},"
                        "A^{f32,g}_{a,g*9+h*3+i});];L^{4}_{i=0}L^{3}_{j=0}[F^{f32,g}_{j,i}=D^{f32,g}_{i,j};];",
                        {in("A", {2, 27}), in("D", {4, 3}), out("C", {2}), out("F", {3, 4})});
  std::vector<double> a(54), b(12);
  for (int k = 0; k < 54; ++k) a[k] = (k * 37) % 54 - 20.5;
  for (int k = 0; k < 12; ++k) b[k] = k;
  TensorMap in_p{{"A", tensor({2, 27}, a)}, {"D", tensor({4, 3}, b)}};
  EXPECT_EQ(expect_modes_agree(pool, in_p, {}, "pool"), 54u + 12u);
  const auto pooled = run(pool, in_p);
  double m0 = -1e9, m1 = -1e9;
  for (int k = 0; k < 27; ++k) m0 = std::max(m0, a[k]), m1 = std::max(m1, a[27 + k]);
  expect_data(pooled.at("C"), {m0, m1});
  expect_data(pooled.at("F"), {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
}

}  // namespace
}  // namespace steptp::interp
