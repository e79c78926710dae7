// Built-in workloads under the reference interpreter: every workload runs at its small shapes without error and
// within the small-shape budget; one hand-checked numeric case per family.
#include <gtest/gtest.h>

#include <cmath>

#include "equiv/inputs.hpp"
#include "frontend/workloads.hpp"
#include "interp/interpreter.hpp"

using namespace steptp;

namespace {
interp::Tensor tensor(ir::DType dt, std::vector<std::int64_t> shape, std::vector<double> data) {
  interp::Tensor t;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}
// Runs workload `name` at `params` (f64) with inputs given in known order; returns the single output.
interp::Tensor run_wl(const std::string& name, const frontend::Params& params, const std::vector<std::vector<double>>& ins) {
  const frontend::Workload* w = frontend::find_workload(name);
  EXPECT_NE(w, nullptr) << name;
  ir::DType dt = ir::DType::F64;
  bool has_f64 = false;
  for (auto d : w->dtypes) has_f64 = has_f64 || d == ir::DType::F64;
  if (!has_f64) dt = ir::DType::F32;
  ir::Task t = frontend::emit(*w, params, dt);
  interp::Interpreter it(t);
  interp::TensorMap in;
  std::size_t i = 0;
  interp::Tensor out;
  for (const auto& k : t.known) {
    if (k.role == ir::Role::Output) continue;
    EXPECT_LT(i, ins.size()) << name << ": missing input " << k.name;
    in[k.name] = tensor(k.dtype, k.shape, ins.at(i++));
  }
  EXPECT_EQ(i, ins.size()) << name;
  interp::RunOptions typed;
  typed.typed = true;
  auto res = it.run(in, typed);
  for (const auto& k : t.known)
    if (k.role == ir::Role::Output) out = res.at(k.name);
  return out;
}
void expect_near(const interp::Tensor& t, const std::vector<double>& want, double tol = 1e-9) {
  ASSERT_EQ(t.data.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.data[i], want[i], tol) << "element " << i;
}
}  // namespace

TEST(WorkloadsInterp, EverySmallWorkloadRuns) {
  for (const auto& w : frontend::workloads()) {
    SCOPED_TRACE(w.name);
    ir::Task t = frontend::emit(w, frontend::small_params(w), ir::DType::F32);
    interp::Interpreter it(t);
    // Finite somewhere under U or N inputs: U keeps log/sqrt in their domain; N keeps the reference tanh form
    // exp(x)-exp(-x) from overflowing after the attention Gemm chains (outputs in the hundreds under U).
    bool finite = false;
    for (auto dist : {equiv::Distribution::Uniform, equiv::Distribution::Normal}) {
      interp::TensorMap out;
      interp::RunOptions ro;
      ro.max_steps = 4000000;
      EXPECT_NO_THROW(out = it.run(equiv::make_inputs(t, 0, dist), ro));
      EXPECT_LE(it.last_steps(), 2000000u);
      for (const auto& [n, v] : out)
        for (double x : v.data) finite = finite || std::isfinite(x);
    }
    EXPECT_TRUE(finite);
  }
}

TEST(WorkloadsInterp, Matmul) {
  expect_near(run_wl("Standard_matrix_multiplication", {{"m", 2}, {"n", 2}, {"k", 2}}, {{1, 2, 3, 4}, {5, 6, 7, 8}}),
              {19, 22, 43, 50});
  // diag([2,3]) @ [[1,2],[3,4]] = [[2,4],[9,12]]
  expect_near(run_wl("Matmul_with_diagonal_mat", {{"n", 2}, {"m", 2}}, {{2, 3}, {1, 2, 3, 4}}), {2, 4, 9, 12});
}

TEST(WorkloadsInterp, Elementwise) {
  expect_near(run_wl("ReLU", {{"batch", 1}, {"dim", 3}}, {{-1, 0, 2}}), {0, 0, 2});
  expect_near(run_wl("LeakyReLU", {{"batch", 1}, {"dim", 2}}, {{-2, 3}}), {-0.02, 3});
  expect_near(run_wl("HardTanh", {{"batch", 1}, {"dim", 3}}, {{-5, 0.25, 7}}), {-1, 0.25, 1});
  // tanh(0.5) = 0.46211715726000974
  expect_near(run_wl("Tanh", {{"batch", 1}, {"dim", 1}}, {{0.5}}), {0.46211715726000974}, 1e-12);
}

TEST(WorkloadsInterp, Reduction) {
  // A[0,:,:] = [[1,7],[5,2],[3,4]]: argmax over dim 1 = [1,0], sum = [9,13]
  std::vector<double> a{1, 7, 5, 2, 3, 4};
  frontend::Params p{{"batch", 1}, {"dim1", 3}, {"dim2", 2}};
  expect_near(run_wl("Argmax_over_a_dimension", p, {a}), {1, 0});
  expect_near(run_wl("Argmin_over_a_dimension", p, {a}), {0, 1});
  expect_near(run_wl("Sum_reduction_over_a_dimension", p, {a}), {9, 13});
  expect_near(run_wl("Product_reduction_over_a_dimension", p, {a}), {15, 56});
  expect_near(run_wl("Mean_reduction_over_a_dimension", p, {a}), {3, 13.0 / 3});
}

TEST(WorkloadsInterp, Norm) {
  expect_near(run_wl("L1Norm", {{"batch", 1}, {"dim", 2}}, {{1, -3}}), {0.25, -0.75});
  // BatchNorm1d over the batch: column [1,3] -> mean 2, var 1 -> [-1, 1]/sqrt(1+1e-5); w=2, b=1
  double s = 1 / std::sqrt(1 + 1e-5);
  expect_near(run_wl("BatchNorm1d", {{"batch", 2}, {"features", 1}}, {{1, 3}, {2}, {1}}), {1 - 2 * s, 1 + 2 * s},
              1e-12);
}

TEST(WorkloadsInterp, Softmax) {
  expect_near(run_wl("softmax", {{"batch", 1}, {"dim", 2}}, {{0, std::log(3.0)}}), {0.25, 0.75}, 1e-12);
  expect_near(run_wl("LogSoftmax", {{"batch", 1}, {"dim", 2}}, {{0, std::log(3.0)}}),
              {std::log(0.25), std::log(0.75)}, 1e-12);
}

TEST(WorkloadsInterp, Conv) {
  // x=[1,2,3,4], w=[1,-1] -> [-1,-1,-1]
  frontend::Params p{{"batch", 1}, {"in_ch", 1}, {"out_ch", 1}, {"in_w", 4}, {"k_w", 2}};
  expect_near(run_wl("conv_standard_1D", p, {{1, 2, 3, 4}, {1, -1}}), {-1, -1, -1});
  // transposed: x=[1,2], w=[1,10] -> [1, 12, 20]
  frontend::Params q{{"batch", 1}, {"in_ch", 1}, {"out_ch", 1}, {"in_w", 2}, {"k_w", 2}};
  expect_near(run_wl("conv_transposed_1D", q, {{1, 2}, {1, 10}}), {1, 12, 20});
}

TEST(WorkloadsInterp, Pool) {
  frontend::Params p{{"batch", 1}, {"channels", 1}, {"in_w", 4}, {"kernel", 2}, {"stride", 2}, {"padding", 0},
                     {"dilation", 1}};
  expect_near(run_wl("Max_Pooling_1D", p, {{1, 5, 2, 3}}), {5, 3});
  frontend::Params a{{"batch", 1}, {"channels", 1}, {"in_w", 4}, {"kernel", 2}, {"stride", 2}, {"padding", 0}};
  expect_near(run_wl("Average_Pooling_1D", a, {{1, 5, 2, 3}}), {3, 2.5});
}

TEST(WorkloadsInterp, Scan) {
  expect_near(run_wl("cumsum", {{"batch", 1}, {"n", 3}}, {{1, 2, 3}}), {1, 3, 6});
  expect_near(run_wl("cumsum_reverse", {{"batch", 1}, {"n", 3}}, {{1, 2, 3}}), {6, 5, 3});
  expect_near(run_wl("cumprod", {{"batch", 1}, {"n", 3}}, {{2, 3, 4}}), {2, 6, 24});
  // exclusive (KernelBench drops the last row): x=[[1,2],[3,4]] -> [[0,1,3]]
  expect_near(run_wl("cumsum_exclusive", {{"batch", 2}, {"n", 2}}, {{1, 2, 3, 4}}), {0, 1, 3});
}

TEST(WorkloadsInterp, Loss) {
  expect_near(run_wl("MSELoss", {{"batch", 1}, {"dim", 2}}, {{1, 2}, {0, 4}}), {2.5});
  expect_near(run_wl("CrossEntropyLoss", {{"batch", 1}, {"classes", 2}}, {{0, std::log(3.0)}, {1}}),
              {-std::log(0.75)}, 1e-12);
  // hinge: mean(max(1 - p*t, 0)) over [0.5*1, -1*1] = (0.5 + 2)/2
  expect_near(run_wl("Hingeloss", {{"batch", 2}}, {{0.5, -1}, {1, 1}}), {1.25});
}

TEST(WorkloadsInterp, Fused) {
  // x=[1,2], W=[[1,1],[1,-1]], b=[0,0], divisor 2: relu([3,-1])/2 = [1.5, 0]
  expect_near(run_wl("Gemm_ReLU_Divide", {{"batch", 1}, {"in", 2}, {"out", 2}}, {{1, 2}, {2}, {1, 1, 1, -1}, {0, 0}}),
              {1.5, 0});
}

TEST(WorkloadsInterp, Attention) {
  // MHA, one head, identity projections, zero biases, no mask: x = I (seq 2, d 2), scale 1/sqrt(2).
  // Row 0 attends with p = e^{1/√2}/(e^{1/√2}+1) to itself: out = [[p, 1-p], [1-p, p]].
  std::vector<double> eye{1, 0, 0, 1}, zero2{0, 0}, mask(4, 0);
  double e = std::exp(1 / std::sqrt(2.0)), pr = e / (e + 1);
  expect_near(run_wl("MHA", {{"batch", 1}, {"seq", 2}, {"d_model", 2}, {"heads", 1}},
                     {eye, mask, eye, zero2, eye, zero2, eye, zero2, eye, zero2}),
              {pr, 1 - pr, 1 - pr, pr}, 1e-12);
}
