// Task extraction (frontend/partition.hpp) on small hand-built ONNX models: fusion of elementwise consumers into
// their anchor, dedup with a weight, known-buffer roles and weight values, families, attention and prologue merges.
// Every extracted task validates (partition_import checks) and is run here in the interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/onnx_import.hpp"
#include "frontend/partition.hpp"
#include "interp/interpreter.hpp"
#include "onnx_test_util.hpp"
#include "partition_test_util.hpp"

using namespace steptp;
using steptp::test::add_float_init;
using steptp::test::add_node;
using steptp::test::bytes_of;
using steptp::test::make_model;
using steptp::test::run_extracted;

namespace {

frontend::Partition partition(const onnx::ModelProto& m, frontend::OnnxImport* whole = nullptr) {
  frontend::OnnxImport imp = frontend::import_onnx_bytes(bytes_of(m), "test model", "net", "custom");
  frontend::Partition p = frontend::partition_import(imp, "net");
  if (whole) *whole = std::move(imp);
  return p;
}

std::vector<ir::Role> roles(const ir::Task& t) {
  std::vector<ir::Role> r;
  for (const auto& k : t.known) r.push_back(k.role);
  return r;
}

/// x[0,c,h,w] = c for a [1,4,h,w] image.
std::vector<double> channel_index_image(std::int64_t hw) {
  std::vector<double> x;
  for (int c = 0; c < 4; ++c)
    for (std::int64_t k = 0; k < hw; ++k) x.push_back(c);
  return x;
}

/// 1x1 conv weight [4,4,1,1]: out[o] = in[o] - s * in[(o+1)%4].
std::vector<float> diff_weight(float s) {
  std::vector<float> w(16, 0.0f);
  for (int o = 0; o < 4; ++o) {
    w[o * 4 + o] = 1.0f;
    w[o * 4 + (o + 1) % 4] = -s;
  }
  return w;
}

using Shape = std::vector<std::int64_t>;

TEST(Partition, ProvenanceCoversEveryNest) {
  auto m = make_model({{"x", {2, 3}}}, {{"y", {2, 3}}, {"x_again", {2, 3}}});
  add_node(m, "Relu", {"x"}, {"r"}, "relu");
  add_node(m, "Neg", {"r"}, {"y"}, "neg");
  add_node(m, "Identity", {"x"}, {"x_again"}, "id");
  frontend::OnnxImport imp = frontend::import_onnx_bytes(bytes_of(m), "test model");
  ASSERT_EQ(imp.provenance.size(), 3u);
  EXPECT_EQ(imp.provenance[0].name, "relu");
  EXPECT_EQ(imp.provenance[0].op, "Relu");
  EXPECT_EQ(imp.provenance[1].name, "neg");
  EXPECT_EQ(imp.provenance[2].op, "Identity");  // the copy into the second graph output
  EXPECT_EQ(imp.provenance[2].end, imp.task.program.nests.size());
  for (std::size_t i = 0; i < imp.provenance.size(); ++i) {
    EXPECT_EQ(imp.provenance[i].begin, i == 0 ? 0 : imp.provenance[i - 1].end);
    EXPECT_GT(imp.provenance[i].end, imp.provenance[i].begin);
  }
}

TEST(Partition, ConvReluTwiceWithEqualShapesIsOneTaskOfWeightTwo) {
  auto m = make_model({{"x", {1, 4, 3, 3}}}, {{"y", {1, 4, 3, 3}}});
  add_float_init(m, "w1", {4, 4, 1, 1}, diff_weight(1.0f));
  add_float_init(m, "w2", {4, 4, 1, 1}, diff_weight(2.0f));
  add_node(m, "Conv", {"x", "w1"}, {"a"}, "conv1");
  add_node(m, "Relu", {"a"}, {"b"}, "relu1");
  add_node(m, "Conv", {"b", "w2"}, {"c"}, "conv2");
  add_node(m, "Relu", {"c"}, {"y"}, "relu2");
  frontend::Partition p = partition(m);
  EXPECT_EQ(p.groups, 2u);
  ASSERT_EQ(p.tasks.size(), 1u);
  const auto& t = p.tasks[0];
  EXPECT_EQ(t.task.workload, "net__0");
  EXPECT_EQ(t.task.suite, "custom");
  EXPECT_EQ(t.weight, 2);
  EXPECT_EQ(t.family, "conv");
  EXPECT_EQ(t.anchor, "Conv");
  EXPECT_EQ(t.occurrences, (std::vector<std::vector<std::string>>{{"conv1", "relu1"}, {"conv2", "relu2"}}));
  // input image, the conv weight (a param with the first occurrence's values), the relu result
  ASSERT_EQ(roles(t.task), (std::vector<ir::Role>{ir::Role::Input, ir::Role::Param, ir::Role::Output}));
  EXPECT_EQ(t.task.known[0].name, "A");
  EXPECT_EQ(t.task.known[0].shape, (Shape{1, 4, 3, 3}));
  EXPECT_EQ(t.task.known[1].name, "C");
  EXPECT_EQ(t.task.known[1].shape, (Shape{4, 4, 1, 1}));
  EXPECT_EQ(t.task.known[2].shape, (Shape{1, 4, 3, 3}));
  ASSERT_EQ(t.params.size(), 1u);
  const auto& w = t.params.at("C").data;
  EXPECT_EQ(w[0], 1.0);
  EXPECT_EQ(w[1], -1.0);  // w1, not w2 (-2)
  EXPECT_EQ(t.statements, 2u);  // conv accumulation, relu
  // relu(x[o] - x[(o+1)%4]) with x[c] = c: 0, 0, 0, 3 per channel
  auto out = run_extracted(t, {channel_index_image(9)});
  ASSERT_EQ(out.size(), 1u);
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 9; ++k) EXPECT_EQ(out[0].data[c * 9 + k], c == 3 ? 3.0 : 0.0) << c << " " << k;
}

TEST(Partition, MatMulAddReluIsOneMatmulTask) {
  auto m = make_model({{"x", {2, 2}}}, {{"y", {2, 2}}});
  add_float_init(m, "w", {2, 2}, {1, -1, 0, 1});
  add_float_init(m, "b", {2}, {0.5f, -10});
  add_node(m, "MatMul", {"x", "w"}, {"xw"}, "mm");
  add_node(m, "Add", {"xw", "b"}, {"z"}, "add");
  add_node(m, "Relu", {"z"}, {"y"}, "relu");
  frontend::Partition p = partition(m);
  ASSERT_EQ(p.tasks.size(), 1u);
  const auto& t = p.tasks[0];
  EXPECT_EQ(t.family, "matmul");
  EXPECT_EQ(t.weight, 1);
  EXPECT_EQ(t.occurrences, (std::vector<std::vector<std::string>>{{"mm", "add", "relu"}}));
  ASSERT_EQ(roles(t.task), (std::vector<ir::Role>{ir::Role::Input, ir::Role::Param, ir::Role::Param,
                                                  ir::Role::Output}));
  EXPECT_EQ(t.params.at(t.task.known[1].name).data, (std::vector<double>{1, -1, 0, 1}));
  EXPECT_EQ(t.params.at(t.task.known[2].name).data, (std::vector<double>{0.5, -10}));
  // [[1,2],[3,4]] . [[1,-1],[0,1]] = [[1,1],[3,1]]; + [0.5,-10]; relu
  auto out = run_extracted(t, {{1, 2, 3, 4}});
  EXPECT_EQ(out[0].data, (std::vector<double>{1.5, 0, 3.5, 0}));
}

TEST(Partition, PoolAfterConvIsItsOwnTaskReadingTheConvResult) {
  auto m = make_model({{"x", {1, 4, 2, 2}}}, {{"y", {1, 4, 1, 1}}});
  add_float_init(m, "w", {4, 4, 1, 1}, diff_weight(1.0f));
  add_node(m, "Conv", {"x", "w"}, {"a"}, "conv");
  add_node(m, "Relu", {"a"}, {"b"}, "relu");
  add_node(m, "GlobalAveragePool", {"b"}, {"y"}, "gap");
  frontend::Partition p = partition(m);
  ASSERT_EQ(p.tasks.size(), 2u);
  EXPECT_EQ(p.tasks[0].family, "conv");
  EXPECT_EQ(p.tasks[1].family, "pool");
  EXPECT_EQ(p.tasks[1].anchor, "GlobalAveragePool");
  // the relu result is the conv task's output and the pool task's input (not a param: no values)
  EXPECT_EQ(p.tasks[0].task.known.back().role, ir::Role::Output);
  EXPECT_EQ(p.tasks[0].task.known.back().shape, (Shape{1, 4, 2, 2}));
  ASSERT_EQ(roles(p.tasks[1].task), (std::vector<ir::Role>{ir::Role::Input, ir::Role::Output}));
  EXPECT_EQ(p.tasks[1].task.known[0].shape, (Shape{1, 4, 2, 2}));
  EXPECT_TRUE(p.tasks[1].params.empty());
  auto out = run_extracted(p.tasks[1], {{1, 2, 3, 4, 0, 0, 0, 8, 1, 1, 1, 1, -4, 4, 0, 0}});
  EXPECT_EQ(out[0].data, (std::vector<double>{2.5, 2, 1, 0}));
}

TEST(Partition, AttentionChainIsOneTaskWithItsPrologue) {
  // softmax(relu(Q) K^T * 0.5) V: the relu (anchorless, read only by QK^T) joins as a prologue.
  auto m = make_model({{"q", {2, 3, 4}}, {"kt", {2, 4, 3}}, {"v", {2, 3, 4}}}, {{"o", {2, 3, 4}}});
  add_float_init(m, "scale", {1}, {0.5f});
  add_node(m, "Relu", {"q"}, {"rq"}, "relu_q");
  add_node(m, "MatMul", {"rq", "kt"}, {"s"}, "qk");
  add_node(m, "Mul", {"s", "scale"}, {"ss"}, "scale");
  add_node(m, "Softmax", {"ss"}, {"pr"}, "softmax");
  add_node(m, "MatMul", {"pr", "v"}, {"o"}, "pv");
  frontend::OnnxImport whole;
  frontend::Partition p = partition(m, &whole);
  EXPECT_EQ(p.groups, 1u);
  ASSERT_EQ(p.tasks.size(), 1u);
  EXPECT_EQ(p.tasks[0].family, "attention");
  EXPECT_EQ(p.tasks[0].anchor, "MatMul");
  EXPECT_EQ(p.tasks[0].occurrences[0].size(), 5u);
  // one task = the whole model: same outputs on the same inputs
  std::vector<std::vector<double>> ins;
  for (int k = 0; k < 3; ++k) {
    std::vector<double> v;
    for (int i = 0; i < 24; ++i) v.push_back(std::sin(0.7 * i + k));
    ins.push_back(v);
  }
  auto out = run_extracted(p.tasks[0], ins);
  interp::TensorMap win = whole.params;
  std::size_t i = 0;
  for (const auto& k : whole.task.known)
    if (k.role == ir::Role::Input) win[k.name] = interp::Tensor{k.dtype, k.shape, ins[i++]};
  auto wout = interp::Interpreter(whole.task).run(win);
  EXPECT_EQ(out[0].data, wout.begin()->second.data);
}

TEST(Partition, DecomposedLayerNormIsOneNormTask) {
  auto m = make_model({{"x", {2, 4}}}, {{"y", {2, 4}}});
  add_float_init(m, "two", {1}, {2.0f});
  add_float_init(m, "eps", {1}, {1e-5f});
  add_node(m, "ReduceMean", {"x"}, {"mu"}, "mean");
  add_node(m, "Sub", {"x", "mu"}, {"d"}, "sub");
  add_node(m, "Pow", {"d", "two"}, {"sq"}, "pow");
  add_node(m, "ReduceMean", {"sq"}, {"var"}, "var");
  add_node(m, "Add", {"var", "eps"}, {"ve"}, "add");
  add_node(m, "Sqrt", {"ve"}, {"sd"}, "sqrt");
  add_node(m, "Div", {"d", "sd"}, {"y"}, "div");
  frontend::Partition p = partition(m);
  ASSERT_EQ(p.tasks.size(), 1u);
  EXPECT_EQ(p.tasks[0].family, "norm");
  EXPECT_EQ(p.tasks[0].anchor, "ReduceMean");
  // x = 1..8: mean 4.5, population variance 5.25
  auto out = run_extracted(p.tasks[0], {{1, 2, 3, 4, 5, 6, 7, 8}});
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(out[0].data[i], (i + 1 - 4.5) / std::sqrt(5.25 + 1e-5), 1e-6) << i;
}

TEST(Partition, AnchorlessModelIsOneElementwiseTask) {
  auto m = make_model({{"x", {3}}}, {{"y", {3}}});
  add_node(m, "Relu", {"x"}, {"r"}, "relu");
  add_node(m, "Add", {"r", "x"}, {"y"}, "add");
  frontend::Partition p = partition(m);
  ASSERT_EQ(p.tasks.size(), 1u);
  EXPECT_EQ(p.tasks[0].family, "elementwise");
  EXPECT_EQ(p.tasks[0].anchor, "");
  EXPECT_EQ(run_extracted(p.tasks[0], {{-1, 2, -3}})[0].data, (std::vector<double>{-1, 4, -3}));
}

TEST(Partition, ResidualAddJoinsItsConvAndSharedValuesBecomeOutputs) {
  // a = relu(conv1(x)); y = relu(conv2(a) + a): the add joins conv2's group (conv1's group has equal work, and
  // conv2 is the latest producer); a is read by both groups, so it is an output of the first task and an input of
  // the second.
  auto m = make_model({{"x", {1, 4, 2, 2}}}, {{"y", {1, 4, 2, 2}}});
  add_float_init(m, "w1", {4, 4, 1, 1}, diff_weight(1.0f));
  add_float_init(m, "w2", {4, 4, 1, 1}, diff_weight(0.5f));
  add_node(m, "Conv", {"x", "w1"}, {"c1"}, "conv1");
  add_node(m, "Relu", {"c1"}, {"a"}, "relu1");
  add_node(m, "Conv", {"a", "w2"}, {"c2"}, "conv2");
  add_node(m, "Add", {"c2", "a"}, {"s"}, "add");
  add_node(m, "Relu", {"s"}, {"y"}, "relu2");
  frontend::Partition p = partition(m);
  ASSERT_EQ(p.tasks.size(), 2u);
  EXPECT_EQ(p.tasks[1].occurrences[0], (std::vector<std::string>{"conv2", "add", "relu2"}));
  EXPECT_EQ(p.tasks[1].family, "conv");
  EXPECT_EQ(roles(p.tasks[1].task), (std::vector<ir::Role>{ir::Role::Input, ir::Role::Param, ir::Role::Output}));
}

TEST(Partition, InjectiveNodeJoinsTheProducerGroupDoingTheMostWork) {
  // y = conv_big(z) + conv_small(x), conv_small emitted last: the add joins conv_big (8 input channels: twice the
  // multiply-adds), and conv_small stays a task of its own (a residual block's 3x3 conv and 1x1 downsample).
  auto m = make_model({{"x", {1, 4, 2, 2}}, {"z", {1, 8, 2, 2}}}, {{"y", {1, 4, 2, 2}}});
  add_float_init(m, "wb", {4, 8, 1, 1}, std::vector<float>(32, 0.25f));
  add_float_init(m, "ws", {4, 4, 1, 1}, diff_weight(1.0f));
  add_node(m, "Conv", {"z", "wb"}, {"cb"}, "conv_big");
  add_node(m, "Conv", {"x", "ws"}, {"cs"}, "conv_small");
  add_node(m, "Add", {"cb", "cs"}, {"y"}, "add");
  frontend::Partition p = partition(m);
  ASSERT_EQ(p.tasks.size(), 2u);
  EXPECT_EQ(p.tasks[0].occurrences[0], (std::vector<std::string>{"conv_big", "add"}));
  EXPECT_EQ(p.tasks[1].occurrences[0], (std::vector<std::string>{"conv_small"}));
  // the small conv's result is read by the big conv's task: input there, output of its own task
  EXPECT_EQ(roles(p.tasks[0].task), (std::vector<ir::Role>{ir::Role::Input, ir::Role::Input, ir::Role::Param,
                                                           ir::Role::Output}));
  EXPECT_EQ(roles(p.tasks[1].task), (std::vector<ir::Role>{ir::Role::Input, ir::Role::Param, ir::Role::Output}));
}

}  // namespace
