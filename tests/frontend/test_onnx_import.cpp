// ONNX importer: golden LEIR for small hand-built models, tensor decoding, errors naming op and node, and the
// KernelBench models checked against PyTorch's outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "frontend/onnx/onnx_tensor.hpp"
#include "frontend/onnx_check.hpp"
#include "frontend/onnx_import.hpp"
#include "onnx_test_util.hpp"
#include "interp/interpreter.hpp"
#include "ir/printer.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace steptp;
using steptp::test::add_node;
using steptp::test::bytes_of;
using steptp::test::make_model;

namespace {

using steptp_test::kBench;

std::string leir_of(const onnx::ModelProto& m) {
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test");
  return ir::print_program(imp.task.program);
}

TEST(OnnxImport, ReluGolden) {
  auto m = make_model({{"x", {4, 3}}}, {{"y", {4, 3}}});
  add_node(m, "Relu", {"x"}, {"y"});
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test", "relu", "unit");
  EXPECT_EQ(ir::print_program(imp.task.program), "B^{4}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx,a}=max(A^{f32,g}_{tx,a},0.0);];");
  ASSERT_EQ(imp.task.known.size(), 2u);
  EXPECT_EQ(imp.task.known[0].name, "A");
  EXPECT_EQ(imp.task.known[1].role, ir::Role::Output);
  EXPECT_EQ(imp.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(imp.outputs, std::vector<std::string>{"y"});
}

TEST(OnnxImport, SoftmaxIsMaxSumDivide) {
  auto m = make_model({{"x", {2, 5}}}, {{"y", {2, 5}}});
  add_node(m, "Softmax", {"x"}, {"y"});
  EXPECT_EQ(leir_of(m),
            "B^{2}_{tx=0}L^{5}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
            "B^{2}_{tx=0}L^{5}_{a=0}[E^{f32,g}_{tx}=E^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-D^{f32,g}_{tx});];"
            "B^{2}_{tx=0}L^{5}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a}-D^{f32,g}_{tx})/E^{f32,g}_{tx};];");
}

TEST(OnnxImport, GemmWithBiasParamsAndValues) {
  auto m = make_model({{"x", {2, 3}}}, {{"y", {2, 4}}});
  steptp::test::add_float_init(m, "w", {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  steptp::test::add_float_init(m, "b", {4}, {0.5f, -1, 2, 0});
  auto* n = add_node(m, "Gemm", {"x", "w", "b"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("transB");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test");
  EXPECT_EQ(ir::print_program(imp.task.program),
            "B^{2}_{tx=0}L^{4}_{a=0}L^{3}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*D^{f32,g}_{a,c};];"
            "B^{2}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+E^{f32,g}_{a};];");
  ASSERT_EQ(imp.params.size(), 2u);
  EXPECT_EQ(imp.params.at("D").shape, (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(imp.params.at("E").data[0], 0.5);
  // Run it: y = x @ w^T + b with x = [[1,0,0],[0,1,-1]]
  interp::TensorMap in = imp.params;
  in["A"] = {ir::DType::F32, {2, 3}, {1, 0, 0, 0, 1, -1}};
  auto out = interp::Interpreter(imp.task).run(in);
  EXPECT_EQ(out.at("C").data, (std::vector<double>{1.5, 3, 9, 10, -0.5, -2, 1, -1}));
}

TEST(OnnxImport, ShapeSubgraphFoldsAndReshapeIsAffine) {
  // y = Reshape(x, Concat(Shape(x)[0:1], [-1])) : [2,3,4] -> [2,12]
  auto m = make_model({{"x", {2, 3, 4}}}, {{"y", {2, 12}}});
  add_node(m, "Shape", {"x"}, {"s"});
  steptp::test::add_int64_init(m, "z", {0});
  steptp::test::add_int64_init(m, "minus1", {-1});
  add_node(m, "Gather", {"s", "z"}, {"s0"});
  add_node(m, "Concat", {"s0", "minus1"}, {"shape"})->add_attribute()->set_name("axis");
  m.mutable_graph()->mutable_node(2)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  add_node(m, "Reshape", {"x", "shape"}, {"y"});
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test");
  EXPECT_EQ(ir::print_program(imp.task.program),
            "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[C^{f32,g}_{tx,a*4+c}=A^{f32,g}_{tx,a,c};];");
  EXPECT_TRUE(imp.params.empty());  // shape initializers were only used at import time
}

TEST(OnnxImport, CumSumReverseIsGuardedRecurrence) {
  auto m = make_model({{"x", {3, 4}}}, {{"y", {3, 4}}});
  steptp::test::add_int64_init(m, "ax", {1});
  auto* n = add_node(m, "CumSum", {"x", "ax"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("reverse");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test");
  EXPECT_EQ(ir::print_program(imp.task.program),
            "B^{3}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,3-a}=if_then_else(a==0,A^{f32,g}_{tx,3-a},"
            "C^{f32,g}_{tx,4-a}+A^{f32,g}_{tx,3-a});];");
  interp::TensorMap in{{"A", {ir::DType::F32, {3, 4}, {1, 2, 3, 4, 0, 0, 0, 1, -1, 1, -1, 1}}}};
  auto out = interp::Interpreter(imp.task).run(in);
  EXPECT_EQ(out.at("C").data, (std::vector<double>{10, 9, 7, 4, 1, 1, 1, 1, 0, 1, 0, 1}));
}

TEST(OnnxImport, SliceWithInt64MaxEnd) {
  auto m = make_model({{"x", {5}}}, {{"y", {2}}});
  steptp::test::add_int64_init(m, "s", {1});
  steptp::test::add_int64_init(m, "e", {INT64_MAX});
  steptp::test::add_int64_init(m, "a", {0});
  steptp::test::add_int64_init(m, "st", {2});
  add_node(m, "Slice", {"x", "s", "e", "a", "st"}, {"y"});
  EXPECT_EQ(leir_of(m), "B^{2}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx*2+1};];");
}

TEST(OnnxImport, ArgMaxPicksFirstIndexOfTies) {
  auto m = make_model({{"x", {2, 4}}}, {});
  steptp::test::add_value_info(m.mutable_graph()->add_output(), "y", {2}, onnx::TensorProto::INT64);
  auto* n = add_node(m, "ArgMax", {"x"}, {"y"});
  for (auto [name, v] : {std::pair<const char*, int>{"axis", 1}, {"keepdims", 0}}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test");
  EXPECT_EQ(imp.task.known.back().dtype, ir::DType::I64);
  interp::TensorMap in{{"A", {ir::DType::F32, {2, 4}, {1, 7, 7, 0, -1, -2, -3, -1}}}};
  auto out = interp::Interpreter(imp.task).run(in);
  EXPECT_EQ(out.at("C").data, (std::vector<double>{1, 0}));
}

TEST(OnnxImport, UnsupportedOpNamesOpAndNode) {
  auto m = make_model({{"x", {4}}}, {{"y", {4}}});
  add_node(m, "Sin", {"x"}, {"y"}, "/layer/Sin_7");
  try {
    frontend::import_onnx_bytes(bytes_of(m), "m.onnx");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "LEIR-E602 at m.onnx: unsupported ONNX op 'Sin' (node '/layer/Sin_7')");
  }
}

TEST(OnnxImport, DynamicInputShapeIsAnError) {
  auto m = make_model({{"x", {4}}}, {{"y", {4}}});
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  add_node(m, "Relu", {"x"}, {"y"});
  EXPECT_EQ(test::import_error(m), "LEIR-E604 at test: graph input 'x' has a dynamic dimension 'N'");
}

// Import errors carry a stable code and the model as location (onnx/import_error.hpp): E108 unreadable file, E601
// corrupt bytes, E603 a node that cannot be converted, E604 an element type the importer lacks.
TEST(OnnxImport, ErrorsCarryAStableCodeAndTheModelAsLocation) {
  try {
    frontend::import_onnx("/nonexistent/steptp/model.onnx");
    ADD_FAILURE() << "imported";
  } catch (const ir::LeirError& e) {
    EXPECT_EQ(e.diag().headline(),
              "LEIR-E108 at /nonexistent/steptp/model.onnx: cannot read file: No such file or directory");
  }
  try {
    frontend::import_onnx_bytes(std::string("\xff\xff\xff\xff", 4), "junk.onnx");
    ADD_FAILURE() << "imported";
  } catch (const ir::LeirError& e) {
    EXPECT_EQ(e.diag().headline(), "LEIR-E601 at junk.onnx: not a valid ONNX model (protobuf parse failed)");
  }
  auto conv = make_model({{"x", {1, 2, 4, 4}}}, {{"y", {1, 2, 4, 4}}});
  add_node(conv, "Softmax", {"x"}, {"y"}, "sm");
  conv.mutable_graph()->mutable_node(0)->add_attribute()->set_name("axis");
  conv.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  conv.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(7);
  EXPECT_EQ(test::import_error(conv).substr(0, 36), "LEIR-E603 at test: Softmax node 'sm'");
  auto c64 = make_model({{"x", {4}}}, {{"y", {4}}});
  test::set_input_type(c64, 0, onnx::TensorProto::COMPLEX64);
  add_node(c64, "Relu", {"x"}, {"y"});
  EXPECT_EQ(test::import_error(c64), "LEIR-E604 at test: graph value 'x': unsupported ONNX element type 14");
}

TEST(OnnxTensor, RawAndTypedFields) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  float raw[2] = {1.5f, -2.25f};
  t.set_raw_data(std::string(reinterpret_cast<const char*>(raw), sizeof raw));
  auto a = frontend::tensor_from_proto(t);
  EXPECT_EQ(a.data, (std::vector<double>{1.5, -2.25}));

  onnx::TensorProto d;
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_double_data(0.1);
  EXPECT_EQ(frontend::tensor_from_proto(d).data, std::vector<double>{0.1});  // 0-d

  onnx::TensorProto i;
  i.set_data_type(onnx::TensorProto::INT64);
  i.add_dims(3);
  for (std::int64_t v : {std::int64_t{-5}, std::int64_t{0}, std::int64_t{1} << 40}) i.add_int64_data(v);
  EXPECT_EQ(frontend::tensor_from_proto(i).data, (std::vector<double>{-5, 0, 1099511627776.0}));

  onnx::TensorProto i32;
  i32.set_data_type(onnx::TensorProto::INT32);
  i32.add_dims(2);
  std::int32_t r32[2] = {-7, 123456};
  i32.set_raw_data(std::string(reinterpret_cast<const char*>(r32), sizeof r32));
  EXPECT_EQ(frontend::tensor_from_proto(i32).data, (std::vector<double>{-7, 123456}));

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(3);
  b.set_raw_data(std::string("\x01\x00\x01", 3));
  auto bt = frontend::tensor_from_proto(b);
  EXPECT_EQ(bt.dtype, ir::DType::Bool);
  EXPECT_EQ(bt.data, (std::vector<double>{1, 0, 1}));

  onnx::TensorProto h;
  h.set_data_type(onnx::TensorProto::FLOAT16);
  h.add_dims(3);
  for (int bits : {0x3c00, 0xc000, 0x3555}) h.add_int32_data(bits);  // 1, -2, 0.333251953125
  EXPECT_EQ(frontend::tensor_from_proto(h).data, (std::vector<double>{1, -2, 0.333251953125}));

  onnx::TensorProto bad = t;
  bad.add_dims(5);  // 10 elements declared, 2 stored
  EXPECT_THROW(frontend::tensor_from_proto(bad), std::runtime_error);
  onnx::TensorProto str;
  str.set_data_type(onnx::TensorProto::STRING);
  EXPECT_THROW(frontend::tensor_from_proto(str), std::runtime_error);
}

TEST(OnnxTensor, HalfRoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(frontend::half_bits_to_float(frontend::float_to_half_bits(f)), f);
  EXPECT_EQ(frontend::float_to_half_bits(1.0f + 1.0f / 4096), 0x3c00);  // ties to even
  EXPECT_EQ(frontend::convert_to_dtype(300, ir::DType::U8), 44);
  EXPECT_EQ(frontend::convert_to_dtype(-129, ir::DType::I8), 127);
  EXPECT_EQ(frontend::convert_to_dtype(-2.7, ir::DType::I32), -2);
}

TEST(OnnxImport, RealModelReluText) {
  auto imp = frontend::import_onnx((kBench / "level1/19_ReLU/model.onnx").string());
  EXPECT_EQ(imp.task.workload, "19_ReLU");
  EXPECT_EQ(imp.task.suite, "level1");
  EXPECT_EQ(ir::print_program(imp.task.program),
            "B^{32}_{tx=0}L^{3072}_{a=0}[C^{f32,g}_{tx,a}=max(A^{f32,g}_{tx,a},0.0);];");
}

// Every shared KernelBench model: import, run on PyTorch's inputs, compare. Exceptions are listed with reasons.
TEST(SlowOnnxKernelBench, ImportsAndMatchesPyTorch) {
  std::vector<fs::path> dirs;
  for (const char* level : {"level1", "level2"})
    for (const auto& e : fs::directory_iterator(kBench / level))
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_EQ(dirs.size(), 73u);
  int ok = 0;
  std::string exceptions;
  for (const auto& d : dirs) {
    try {
      auto r = frontend::check_onnx_dir(d.string());
      if (r.match) ++ok;
      else exceptions += d.filename().string() + ": mismatch: " + r.worst + "\n";
    } catch (const std::exception& e) {
      exceptions += d.filename().string() + ": " + e.what() + "\n";
    }
  }
  std::cout << ok << "/" << dirs.size() << " models match PyTorch\n" << exceptions;
  EXPECT_GE(ok * 100, 95 * static_cast<int>(dirs.size())) << exceptions;
  // The one known exception: the problem's scalar input (a Python float) was not saved as test data.
  EXPECT_EQ(exceptions.find("5_Matrix_scalar_multiplication: LEIR-E605 at "), 0u) << exceptions;
  EXPECT_NE(exceptions.find("input_1.pb: missing test data for graph input 'onnx::Cast_1'"), std::string::npos)
      << exceptions;
  EXPECT_EQ(ok, 72) << exceptions;
}

}  // namespace
