// `steptp import-onnx` end to end: exit codes, task + sidecar files, --check, --partition.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "frontend/params_sidecar.hpp"
#include "ir/task.hpp"
#include "onnx_test_util.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace steptp;

namespace {

using steptp_test::kBench;

int run(const std::string& args) {
  int rc = std::system((std::string(STEPTP_BINARY) + " " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(CliImportOnnx, WritesTaskAndSidecar) {
  fs::path dir = fs::temp_directory_path() / ("steptp_onnx_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path out = dir / "gemm.json";
  ASSERT_EQ(run("import-onnx " + (kBench / "level2/12_Gemm_Multiply_LeakyReLU").string() + " -o " + out.string()), 0);
  ir::Task t = ir::read_task_file(out.string());
  EXPECT_EQ(t.workload, "12_Gemm_Multiply_LeakyReLU");
  auto params = frontend::read_params_sidecar((dir / "gemm.params.bin").string());
  std::size_t n_params = 0;
  for (auto& k : t.known)
    if (k.role == ir::Role::Param || k.role == ir::Role::Constant) {
      ++n_params;
      ASSERT_TRUE(params.count(k.name)) << k.name;
      EXPECT_EQ(params.at(k.name).shape, k.shape);
    }
  EXPECT_EQ(n_params, params.size());
  EXPECT_GE(n_params, 2u);  // weight and bias
  fs::remove_all(dir);
}

TEST(CliImportOnnx, CheckAndErrorExitCodes) {
  EXPECT_EQ(run("import-onnx " + (kBench / "level1/23_Softmax").string() + " --check"), 0);
  EXPECT_EQ(run("import-onnx /nonexistent/model.onnx"), 2);
  fs::path junk = fs::temp_directory_path() / ("steptp_junk_" + std::to_string(::getpid()) + ".onnx");
  ir::write_file_atomic(junk.string(), "this is not protobuf at all \xff\xff\xff");
  EXPECT_EQ(run("import-onnx " + junk.string()), 2);
  fs::remove(junk);
  // the scalar input of problem 5 has no test data: bad input, exit 2
  EXPECT_EQ(run("import-onnx " + (kBench / "level1/5_Matrix_scalar_multiplication").string() + " --check"), 2);
}

TEST(CliImportOnnx, PartitionWritesDistinctTasksAndTheIndex) {
  fs::path dir = fs::temp_directory_path() / ("steptp_onnx_part_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // conv -> relu twice with equal shapes, then a global average pool: 2 distinct tasks, the first of weight 2
  auto m = test::make_model({{"x", {1, 2, 3, 3}}}, {{"y", {1, 2, 1, 1}}});
  test::add_float_init(m, "w1", {2, 2, 1, 1}, {1, 0, 0, 1});
  test::add_float_init(m, "w2", {2, 2, 1, 1}, {0, 1, 1, 0});
  test::add_node(m, "Conv", {"x", "w1"}, {"a"}, "conv1");
  test::add_node(m, "Relu", {"a"}, {"b"}, "relu1");
  test::add_node(m, "Conv", {"b", "w2"}, {"c"}, "conv2");
  test::add_node(m, "Relu", {"c"}, {"d"}, "relu2");
  test::add_node(m, "GlobalAveragePool", {"d"}, {"y"}, "gap");
  const std::string model = (dir / "tiny.onnx").string();
  ir::write_file_atomic(model, test::bytes_of(m));
  const fs::path out = dir / "tasks";
  ASSERT_EQ(run("import-onnx " + model + " --partition -o " + out.string()), 0);
  auto index = nlohmann::json::parse(ir::read_file((out / "tasks.json").string()));
  EXPECT_EQ(index["model"], "tiny");
  EXPECT_EQ(index["groups"], 3);
  ASSERT_EQ(index["tasks"].size(), 2u);
  const auto& t0 = index["tasks"][0];
  EXPECT_EQ(t0["name"], "tiny__0");
  EXPECT_EQ(t0["family"], "conv");
  EXPECT_EQ(t0["anchor"], "Conv");
  EXPECT_EQ(t0["weight"], 2);
  EXPECT_EQ(t0["statements"], 2);
  EXPECT_EQ(t0["provenance"]["model"], "tiny");
  EXPECT_EQ(t0["provenance"]["nodes"], nlohmann::json::parse(R"([["conv1", "relu1"], ["conv2", "relu2"]])"));
  EXPECT_EQ(index["tasks"][1]["family"], "pool");
  EXPECT_EQ(index["tasks"][1]["weight"], 1);
  ir::Task t = ir::read_task_file((out / "tiny__0.json").string());
  EXPECT_EQ(t.workload, "tiny__0");
  auto params = frontend::read_params_sidecar((out / "tiny__0.params.bin").string());
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params.begin()->second.data, (std::vector<double>{1, 0, 0, 1}));  // the first occurrence's weight
  EXPECT_TRUE(fs::exists(out / "tiny__1.json"));
  EXPECT_TRUE(fs::exists(out / "tiny__1.params.bin"));  // empty: the pool has no weights
  // the written task runs with its sidecar
  EXPECT_EQ(run("run " + (out / "tiny__0.json").string()), 0);
  // -o is required with --partition; --check excludes it
  EXPECT_EQ(run("import-onnx " + model + " --partition"), 2);
  EXPECT_EQ(run("import-onnx " + model + " --partition --check -o " + out.string()), 2);
  fs::remove_all(dir);
}

}  // namespace
