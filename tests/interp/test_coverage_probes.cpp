// Coverage probes of the interpreter (RunOptions::coverage), which the equivalence check's guided draws read
// (equiv/guided.hpp; those tests are tests/equiv/test_guided.cpp). Suite name Guided kept from there.
#include <algorithm>
#include <vector>

#include "equiv/inputs.hpp"
#include "interp/interp_helpers.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::interp {
namespace {
using namespace testing;
using equiv::Distribution;
using equiv::make_inputs;
using ir::DType;

// The probe numbering is the compile order, children before parents; constants get no probe. For
// `if_then_else(A>0, A, 0.0)`: probe 0 the read of A in the condition, 1 the comparison, 2 the read of A in the
// taken branch (evaluated only where the condition holds), 3 the select.
TEST(Guided, ProbesCountValueClassesOfEachNode) {
  const std::vector<ir::KnownBuffer> k{in("A", {4}), out("C", {4})};
  auto t = make_task("B^{4}_{tx=0}[C^{f32,g}_{tx}=if_then_else(A^{f32,g}_{tx}>0,A^{f32,g}_{tx},0.0);];", k);
  const Interpreter interp(t);
  TensorMap x;
  x["A"] = Tensor{DType::F32, {4}, {-2.0, 0.5, 3.0, 0.0}};
  for (const bool typed : {false, true}) {
    Coverage got;
    RunOptions ro;
    ro.typed = typed;
    ro.coverage = &got;
    const TensorMap probed = interp.run(x, ro);
    ro.coverage = nullptr;
    EXPECT_EQ(probed.at("C").data, interp.run(x, ro).at("C").data);
    EXPECT_EQ(probed.at("C").data, (std::vector<double>{0.0, 0.5, 3.0, 0.0}));
    const std::vector<std::uint32_t>& cov = got.counts;
    ASSERT_EQ(cov.size(), 4u * 16u);
    std::vector<std::uint32_t> want(64, 0);
    // float classes: NaN, -inf, +inf, 0, then negative 4-9 and positive 10-15 by magnitude band: [0, 2^-10),
    // [2^-10, 2^-3), [2^-3, 1), [1, 8), [8, 1024), >= 1024; a comparison: false, true
    want[0 + 7] = 1;    // A = -2
    want[0 + 3] = 1;    // A = 0
    want[0 + 12] = 1;   // A = 0.5
    want[0 + 13] = 1;   // A = 3
    want[16 + 0] = 2;   // A>0 false twice
    want[16 + 1] = 2;   // and true twice
    want[32 + 12] = 1;  // the branch read: 0.5
    want[32 + 13] = 1;  // and 3
    want[48 + 3] = 2;   // the select: 0 twice
    want[48 + 12] = 1;
    want[48 + 13] = 1;
    EXPECT_EQ(cov, want) << (typed ? "typed" : "untyped");
    // The comparison's operands, the first two times each outcome was met: (-2, 0), (0.5, 0), (3, 0), (0, 0).
    using P = std::pair<double, double>;
    EXPECT_EQ(got.operands, (std::vector<P>{P{-2, 0}, P{0.5, 0}, P{3, 0}, P{0, 0}}));
  }
}

TEST(Guided, MaxProbeCountsTheOrderOfItsOperands) {
  const std::vector<ir::KnownBuffer> k{in("A", {3}), in("D", {3}), out("C", {3})};
  auto t = make_task("B^{3}_{tx=0}[C^{f32,g}_{tx}=max(A^{f32,g}_{tx},D^{f32,g}_{tx});];", k);
  TensorMap x;
  x["A"] = Tensor{DType::F32, {3}, {1.0, 2.0, 5.0}};
  x["D"] = Tensor{DType::F32, {3}, {2.0, 2.0, -1.0}};
  Coverage got;
  RunOptions ro;
  ro.coverage = &got;
  EXPECT_EQ(Interpreter(t).run(x, ro).at("C").data, (std::vector<double>{2.0, 2.0, 5.0}));
  const std::vector<std::uint32_t>& cov = got.counts;
  // probes: 0 read A, 1 read D, 2 the order (a<b, a==b, a>b, unordered), 3 the max's value
  ASSERT_EQ(cov.size(), 64u);
  EXPECT_EQ(cov[32 + 0], 1u);
  EXPECT_EQ(cov[32 + 1], 1u);
  EXPECT_EQ(cov[32 + 2], 1u);
  EXPECT_EQ(cov[32 + 3], 0u);
  EXPECT_EQ(cov[48 + 13], 3u);  // 2, 2, 5 all in [1, 8)
}

// Probed runs are batched like plain ones (interp/batch.cpp): the counts are those of the scalar path, lanes that
// a lazy if_then_else does not evaluate included, and the same operand pairs are logged.
TEST(Guided, BatchedProbedRunsCountAsTheScalarPath) {
  const std::vector<ir::KnownBuffer> k{in("A", {300}), in("D", {300}), out("C", {300})};
  auto t = make_task("L^{300}_{a=0}[C^{f32,g}_{a}=if_then_else(A^{f32,g}_{a}>D^{f32,g}_{a},max(A^{f32,g}_{a},0.5)*2.0,"
                     "exp(D^{f32,g}_{a}));];",
                     k);
  const Interpreter interp(t);
  for (const Distribution d : {Distribution::Normal, Distribution::Wide}) {
    const TensorMap x = make_inputs(interp, 4, d);
    Coverage scalar, batched;
    RunOptions ro;
    ro.batched = false;
    ro.coverage = &scalar;
    const TensorMap a = interp.run(x, ro);
    ro.batched = true;
    ro.coverage = &batched;
    const TensorMap b = interp.run(x, ro);
    EXPECT_GT(interp.last_batched_steps(), 0u);
    EXPECT_EQ(a.at("C").data, b.at("C").data);
    EXPECT_EQ(scalar.counts, batched.counts);
    std::sort(scalar.operands.begin(), scalar.operands.end());
    std::sort(batched.operands.begin(), batched.operands.end());
    EXPECT_EQ(scalar.operands, batched.operands);
    std::uint32_t evaluated = 0;  // the exp's probe: evaluated only where A <= D
    for (std::size_t c = 0; c < 16; ++c) evaluated += scalar.counts[scalar.counts.size() - 32 + c];
    EXPECT_GT(evaluated, 0u);
    EXPECT_LT(evaluated, 300u);
  }
}

}  // namespace
}  // namespace steptp::interp
