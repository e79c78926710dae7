// Real PyTorch models end to end: tests/models/export_models.py exports each model (random weights, PyTorch's own
// inputs and outputs, ONNX opset 13) into a temporary directory, and `steptp import-onnx DIR --check` must report a
// match. The script exits 3 when torch/torchvision/onnx are missing: the test is then skipped with its message
// (Debian python3-torch python3-torchvision python3-onnx, in the Makefile's PACKAGES). Slow: skipped under ASan.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string binary() {
  const char* env = std::getenv("STEPTP_BINARY");
  return env && *env ? env : STEPTP_BINARY;
}

/// Runs `cmd` through the shell; returns its exit status and its stdout+stderr.
std::pair<int, std::string> run(const std::string& cmd) {
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return {-1, "popen failed"};
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  const int rc = pclose(f);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

class RealModelsSlow : public ::testing::TestWithParam<std::string> {};

TEST_P(RealModelsSlow, ImportCheckMatchesPyTorch) {
  const std::string name = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("steptp_real_models_" + std::to_string(::getpid()) + "_" + name);
  fs::create_directories(dir);
  const fs::path script = fs::path(STEPTP_SOURCE_DIR) / "tests/models/export_models.py";
  auto [rc, log] = run("/usr/bin/python3 " + script.string() + " " + dir.string() + " " + name);
  if (rc == 3) {
    fs::remove_all(dir);
    GTEST_SKIP() << log;
  }
  ASSERT_EQ(rc, 0) << "export failed:\n" << log;
  auto [crc, out] = run(binary() + " import-onnx " + (dir / name).string() + " --check");
  std::cout << out;  // "DIR: match (N elements, 0 mismatches; max abs err E, max rel err R)"
  EXPECT_EQ(crc, 0) << out;
  EXPECT_NE(out.find(": match ("), std::string::npos) << out;
  EXPECT_NE(out.find(", 0 mismatches;"), std::string::npos) << out;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Models, RealModelsSlow,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet", "shufflenet", "encoder_layer",
                                           "mha", "gpt2_block", "unet_up", "lstm", "gru", "cross_entropy"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
