// ONNX op emitters on small hand-computed cases not covered by the KernelBench models: padded average pooling
// with and without count_include_pad, ceil-mode max pooling, LayerNormalization, Einsum, grouped SAME conv.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/onnx_import.hpp"
#include "interp/interpreter.hpp"
#include "onnx_test_util.hpp"

using namespace steptp;
using steptp::test::add_node;
using steptp::test::bytes_of;
using steptp::test::make_model;
using steptp::test::set_int;
using steptp::test::set_ints;

namespace {

std::vector<double> run1(const onnx::ModelProto& m, const std::vector<double>& x) { return test::run_all(m, {x}).at(0); }

TEST(OnnxOps, AveragePoolPadsExcludedAndIncluded) {
  for (int include : {0, 1}) {
    auto m = make_model({{"x", {1, 1, 4}}}, {{"y", {1, 1, 4}}});
    auto* n = add_node(m, "AveragePool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {3});
    set_ints(n, "pads", {1, 1});
    set_int(n, "count_include_pad", include);
    auto y = run1(m, {1, 2, 3, 4});
    if (include) {
      EXPECT_DOUBLE_EQ(y[0], 1.0);
      EXPECT_DOUBLE_EQ(y[3], 7.0 / 3);
    } else {
      EXPECT_DOUBLE_EQ(y[0], 1.5);
      EXPECT_DOUBLE_EQ(y[3], 3.5);
    }
    EXPECT_DOUBLE_EQ(y[1], 2.0);
    EXPECT_DOUBLE_EQ(y[2], 3.0);
  }
}

TEST(OnnxOps, MaxPoolCeilMode) {
  auto m = make_model({{"x", {1, 1, 5}}}, {{"y", {1, 1, 3}}});
  auto* n = add_node(m, "MaxPool", {"x"}, {"y"});
  set_ints(n, "kernel_shape", {2});
  set_ints(n, "strides", {2});
  set_int(n, "ceil_mode", 1);
  EXPECT_EQ(run1(m, {1, 5, 2, 4, 3}), (std::vector<double>{5, 4, 3}));
}

TEST(OnnxOps, LayerNormalization) {
  auto m = make_model({{"x", {2, 3}}}, {{"y", {2, 3}}});
  m.mutable_opset_import(0)->set_version(17);
  steptp::test::add_float_init(m, "g", {3}, {1, 2, 1});
  steptp::test::add_float_init(m, "b", {3}, {0, 0, 10});
  add_node(m, "LayerNormalization", {"x", "g", "b"}, {"y"});
  auto y = run1(m, {1, 2, 3, 5, 5, 5});
  const double s = 1 / std::sqrt(2.0 / 3 + 1e-5);
  EXPECT_NEAR(y[0], -s, 1e-6);
  EXPECT_NEAR(y[1], 0, 1e-6);
  EXPECT_NEAR(y[2], s + 10, 1e-6);
  EXPECT_NEAR(y[4], 0, 1e-6);
  EXPECT_NEAR(y[5], 10, 1e-6);
}

TEST(OnnxOps, EinsumMatchesHandProduct) {
  auto m = make_model({{"x", {2, 3}}}, {{"y", {2}}});
  steptp::test::add_float_init(m, "w", {3}, {1, 10, 100});
  auto* n = add_node(m, "Einsum", {"x", "w"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("equation");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("ij,j->i");
  EXPECT_EQ(run1(m, {1, 2, 3, 4, 5, 6}), (std::vector<double>{321, 654}));
}

TEST(OnnxOps, GroupedSameConv) {
  // 2 channels, group 2, kernel [1,1,3] of ones, SAME_UPPER: each output = sum of the 3-neighbourhood.
  auto m = make_model({{"x", {1, 2, 3}}}, {{"y", {1, 2, 3}}});
  steptp::test::add_float_init(m, "w", {2, 1, 3}, {1, 1, 1, 0, 1, 0});
  auto* n = add_node(m, "Conv", {"x", "w"}, {"y"});
  set_int(n, "group", 2);
  auto* a = n->add_attribute();
  a->set_name("auto_pad");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("SAME_UPPER");
  EXPECT_EQ(run1(m, {1, 2, 3, 4, 5, 6}), (std::vector<double>{3, 6, 5, 4, 5, 6}));
}

}  // namespace
