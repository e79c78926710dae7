// ONNX Split (every opset form, and folded on constants), ScatterND (folded, and with non-constant data) and
// Resize/Upsample (nearest modes, linear with each coordinate transformation) on hand-computed values, plus the
// error for each unsupported attribute, naming the op and the node.
#include <gtest/gtest.h>

#include "onnx_test_util.hpp"

using namespace steptp;
using test::add_float_init;
using test::add_int64_init;
using test::add_node;
using test::import_error;
using test::make_model;
using test::run_all;
using test::set_floats;
using test::set_int;
using test::set_ints;
using test::set_string;

namespace {

using V = std::vector<double>;

TEST(OnnxSplit, SplitInputOpset13) {
  auto m = make_model({{"x", {2, 3}}}, {{"a", {2, 1}}, {"b", {2, 2}}});
  add_int64_init(m, "s", {1, 2});
  set_int(add_node(m, "Split", {"x", "s"}, {"a", "b"}), "axis", 1);
  auto y = run_all(m, {{1, 2, 3, 4, 5, 6}});
  EXPECT_EQ(y[0], (V{1, 4}));
  EXPECT_EQ(y[1], (V{2, 3, 5, 6}));
}

TEST(OnnxSplit, SplitAttributeOpset11AndEqualParts) {
  auto m = make_model({{"x", {3}}}, {{"a", {2}}, {"b", {1}}});
  m.mutable_opset_import(0)->set_version(11);
  set_ints(add_node(m, "Split", {"x"}, {"a", "b"}), "split", {2, 1});
  auto y = run_all(m, {{7, 8, 9}});
  EXPECT_EQ(y[0], (V{7, 8}));
  EXPECT_EQ(y[1], (V{9}));

  auto e = make_model({{"x", {4}}}, {{"a", {2}}, {"b", {2}}});
  add_node(e, "Split", {"x"}, {"a", "b"});
  y = run_all(e, {{1, 2, 3, 4}});
  EXPECT_EQ(y[0], (V{1, 2}));
  EXPECT_EQ(y[1], (V{3, 4}));
}

TEST(OnnxSplit, NumOutputsOpset18LastChunkSmaller) {
  auto m = make_model({{"x", {7}}}, {{"a", {3}}, {"b", {3}}, {"c", {1}}});
  m.mutable_opset_import(0)->set_version(18);
  set_int(add_node(m, "Split", {"x"}, {"a", "b", "c"}), "num_outputs", 3);
  auto y = run_all(m, {{0, 1, 2, 3, 4, 5, 6}});
  EXPECT_EQ(y[0], (V{0, 1, 2}));
  EXPECT_EQ(y[1], (V{3, 4, 5}));
  EXPECT_EQ(y[2], (V{6}));
}

TEST(OnnxSplit, FoldsOnConstants) {
  // y = x + Split(c)[1]: the split of an initializer is computed at import time.
  auto m = make_model({{"x", {2}}}, {{"y", {2}}});
  add_float_init(m, "c", {4}, {1, 2, 3, 4});
  add_node(m, "Split", {"c"}, {"c0", "c1"});
  add_node(m, "Add", {"x", "c1"}, {"y"});
  auto imp = frontend::import_onnx_bytes(test::bytes_of(m), "test");
  EXPECT_EQ(imp.task.program.nests.size(), 1u);  // the Add only
  EXPECT_EQ(run_all(m, {{10, 20}})[0], (V{13, 24}));
}

TEST(OnnxSplit, BadSizesNameOpAndNode) {
  auto m = make_model({{"x", {3}}}, {{"a", {2}}, {"b", {2}}});
  add_int64_init(m, "s", {2, 2});
  add_node(m, "Split", {"x", "s"}, {"a", "b"}, "sp");
  EXPECT_EQ(import_error(m), "LEIR-E603 at test: Split node 'sp': split sizes sum to 4, not the extent 3");
  auto e = make_model({{"x", {3}}}, {{"a", {1}}, {"b", {1}}});
  add_node(e, "Split", {"x"}, {"a", "b"}, "sp");
  EXPECT_EQ(import_error(e), "LEIR-E603 at test: Split node 'sp': extent 3 is not divisible into 2 equal parts");
}

TEST(OnnxScatterND, FoldsOnConstants) {
  auto m = make_model({{"x", {4}}}, {{"y", {4}}});
  add_float_init(m, "d", {4}, {1, 2, 3, 4});
  add_int64_init(m, "i", {1, 3}, {2, 1});
  add_float_init(m, "u", {2}, {10, 20});
  add_node(m, "ScatterND", {"d", "i", "u"}, {"s"});
  add_node(m, "Add", {"x", "s"}, {"y"});
  EXPECT_EQ(run_all(m, {{0, 0, 0, 100}})[0], (V{1, 10, 3, 120}));
}

TEST(OnnxScatterND, NonConstantDataConstantIndices) {
  // data [3,2]; rows 2 and 0 replaced by updates [[7,8],[5,6]]
  auto m = make_model({{"x", {3, 2}}}, {{"y", {3, 2}}});
  add_int64_init(m, "i", {2, 0}, {2, 1});
  add_float_init(m, "u", {2, 2}, {7, 8, 5, 6});
  add_node(m, "ScatterND", {"x", "i", "u"}, {"y"});
  EXPECT_EQ(run_all(m, {{1, 2, 3, 4, 5, 6}})[0], (V{5, 6, 3, 4, 7, 8}));
}

TEST(OnnxScatterND, Errors) {
  auto m = make_model({{"x", {3}}, {"i", {1, 1}}}, {{"y", {3}}});
  test::set_input_type(m, 1, onnx::TensorProto::INT64);
  add_float_init(m, "u", {1}, {7});
  add_node(m, "ScatterND", {"x", "i", "u"}, {"y"}, "sc");
  EXPECT_EQ(import_error(m), "LEIR-E603 at test: ScatterND node 'sc': indices must be a constant (computed at import time)");
  auto r = make_model({{"x", {3}}}, {{"y", {3}}});
  add_int64_init(r, "i", {5}, {1, 1});
  add_float_init(r, "u", {1}, {7});
  add_node(r, "ScatterND", {"x", "i", "u"}, {"y"}, "sc");
  EXPECT_EQ(import_error(r), "LEIR-E603 at test: ScatterND node 'sc': index 5 out of range for extent 3");
}

/// Resize (opset 13: X, roi, scales, sizes) of x [1,1,W] with float scales or int64 sizes for the last axis.
onnx::ModelProto resize_1d(std::int64_t w, std::int64_t out, const std::string& mode, const std::string& coord,
                           bool by_sizes, const std::string& nearest = "") {
  auto m = make_model({{"x", {1, 1, w}}}, {{"y", {1, 1, out}}});
  if (by_sizes) add_int64_init(m, "sz", {1, 1, out});
  else add_float_init(m, "sc", {3}, {1, 1, static_cast<float>(out) / static_cast<float>(w)});
  auto* n = add_node(m, "Resize", {"x", "", by_sizes ? "" : "sc", by_sizes ? "sz" : ""}, {"y"}, "rs");
  set_string(n, "mode", mode);
  set_string(n, "coordinate_transformation_mode", coord);
  if (!nearest.empty()) set_string(n, "nearest_mode", nearest);
  return m;
}

TEST(OnnxResize, LinearCoordinateModes) {
  // half_pixel x2 on [1,2]: source coords -0.25(->0), 0.25, 0.75, 1.25(->1)
  EXPECT_EQ(run_all(resize_1d(2, 4, "linear", "half_pixel", false), {{1, 2}})[0], (V{1, 1.25, 1.75, 2}));
  // pytorch_half_pixel equals half_pixel for outputs longer than 1
  EXPECT_EQ(run_all(resize_1d(2, 4, "linear", "pytorch_half_pixel", true), {{1, 2}})[0], (V{1, 1.25, 1.75, 2}));
  // align_corners 2 -> 3: coords 0, 0.5, 1
  EXPECT_EQ(run_all(resize_1d(2, 3, "linear", "align_corners", true), {{1, 3}})[0], (V{1, 2, 3}));
  // asymmetric x2: coords 0, 0.5, 1, 1.5(->1)
  EXPECT_EQ(run_all(resize_1d(2, 4, "linear", "asymmetric", false), {{1, 2}})[0], (V{1, 1.5, 2, 2}));
}

TEST(OnnxResize, NearestModes) {
  // 4 -> 2 half_pixel: source coords 0.5 and 2.5 (exact halves)
  const V x{1, 2, 3, 4};
  EXPECT_EQ(run_all(resize_1d(4, 2, "nearest", "half_pixel", true, "round_prefer_floor"), {x})[0], (V{1, 3}));
  EXPECT_EQ(run_all(resize_1d(4, 2, "nearest", "half_pixel", true, "round_prefer_ceil"), {x})[0], (V{2, 4}));
  EXPECT_EQ(run_all(resize_1d(4, 2, "nearest", "half_pixel", true, "floor"), {x})[0], (V{1, 3}));
  EXPECT_EQ(run_all(resize_1d(4, 2, "nearest", "half_pixel", true, "ceil"), {x})[0], (V{2, 4}));
  // 2 -> 4 asymmetric floor (PyTorch's nearest): 0, 0.5, 1, 1.5
  EXPECT_EQ(run_all(resize_1d(2, 4, "nearest", "asymmetric", false, "floor"), {{5, 6}})[0], (V{5, 5, 6, 6}));
  // tf_half_pixel_for_nn 2 -> 4: (x+0.5)/2 = 0.25, 0.75, 1.25, 1.75 -> round_prefer_floor 0, 1, 1, 2(->1)
  EXPECT_EQ(run_all(resize_1d(2, 4, "nearest", "tf_half_pixel_for_nn", false), {{5, 6}})[0], (V{5, 6, 6, 6}));
}

TEST(OnnxResize, BilinearTwoAxes) {
  auto m = make_model({{"x", {1, 1, 2, 2}}}, {{"y", {1, 1, 4, 4}}});
  add_float_init(m, "sc", {4}, {1, 1, 2, 2});
  set_string(add_node(m, "Resize", {"x", "", "sc"}, {"y"}), "mode", "linear");
  auto y = run_all(m, {{1, 2, 3, 4}})[0];
  // rows: source -0.25(->0), 0.25, 0.75, 1.25(->1); row 0 = [1, 1.25, 1.75, 2], row 1 = row 0 + 0.25*2
  EXPECT_EQ(V(y.begin(), y.begin() + 8), (V{1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5}));
  EXPECT_EQ(V(y.begin() + 12, y.end()), (V{3, 3.25, 3.75, 4}));
}

TEST(OnnxResize, UpsampleOpset7And9AndResize10) {
  auto m7 = make_model({{"x", {1, 2}}}, {{"y", {2, 4}}});
  m7.mutable_opset_import(0)->set_version(7);
  set_floats(add_node(m7, "Upsample", {"x"}, {"y"}), "scales", {2, 2});
  EXPECT_EQ(run_all(m7, {{5, 6}})[0], (V{5, 5, 6, 6, 5, 5, 6, 6}));
  for (const char* op : {"Upsample", "Resize"}) {
    auto m = make_model({{"x", {2}}}, {{"y", {4}}});
    m.mutable_opset_import(0)->set_version(std::string(op) == "Resize" ? 10 : 9);
    add_float_init(m, "sc", {1}, {2});
    set_string(add_node(m, op, {"x", "sc"}, {"y"}), "mode", "linear");
    EXPECT_EQ(run_all(m, {{1, 2}})[0], (V{1, 1.5, 2, 2})) << op;  // asymmetric
  }
}

TEST(OnnxResize, Opset18AxesListOnlyTheResizedAxes) {
  auto m = make_model({{"x", {1, 1, 2}}}, {{"y", {1, 1, 4}}});
  m.mutable_opset_import(0)->set_version(18);
  add_float_init(m, "sc", {1}, {2});
  auto* n = add_node(m, "Resize", {"x", "", "sc"}, {"y"});
  set_string(n, "mode", "linear");
  set_ints(n, "axes", {-1});
  EXPECT_EQ(run_all(m, {{1, 2}})[0], (V{1, 1.25, 1.75, 2}));
}

TEST(OnnxResize, UnsupportedAttributesNameOpAndNode) {
  EXPECT_EQ(import_error(resize_1d(2, 4, "cubic", "half_pixel", false)),
            "LEIR-E603 at test: Resize node 'rs': unsupported mode 'cubic' (supported: nearest, linear)");
  EXPECT_EQ(import_error(resize_1d(2, 4, "linear", "tf_crop_and_resize", false)),
            "LEIR-E603 at test: Resize node 'rs': unsupported coordinate_transformation_mode 'tf_crop_and_resize'");
  EXPECT_EQ(import_error(resize_1d(2, 4, "nearest", "half_pixel", false, "round")),
            "LEIR-E603 at test: Resize node 'rs': unsupported nearest_mode 'round'");
  EXPECT_EQ(import_error(resize_1d(2, 0, "linear", "half_pixel", false)), "LEIR-E603 at test: Resize node 'rs': scale 0 is not positive");
  auto m = resize_1d(2, 4, "linear", "half_pixel", false);
  set_int(m.mutable_graph()->mutable_node(0), "exclude_outside", 1);
  EXPECT_EQ(import_error(m), "LEIR-E603 at test: Resize node 'rs': unsupported exclude_outside != 0");
  auto a = resize_1d(2, 4, "linear", "half_pixel", false);
  set_int(a.mutable_graph()->mutable_node(0), "antialias", 1);
  EXPECT_EQ(import_error(a), "LEIR-E603 at test: Resize node 'rs': unsupported antialias != 0");
}

}  // namespace
