// `steptp import-onnx` end to end: exit codes, task + sidecar files, --check.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "frontend/params_sidecar.hpp"
#include "ir/task.hpp"

namespace fs = std::filesystem;
using namespace steptp;

namespace {

const fs::path kBench = fs::path(STEPTP_SHARED_DIR) / "kernelbench-onnx";

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

}  // namespace
