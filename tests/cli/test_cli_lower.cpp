// CLI: `steptp lower` and `steptp measure` (exit codes 0/1/2, outputs).
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/task.hpp"
#include "../lower/lower_test_util.hpp"

namespace steptp {
namespace {

std::string task_file(const std::string& workload) {
  const auto dir = std::filesystem::temp_directory_path() / ("steptp-cli-lower-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (auto& r : ir::read_tasks_jsonl(testing::lower_test_dir() + "/golden/tasks.jsonl"))
    if (r.ok && r.task.workload == workload) {
      const std::string p = (dir / (workload + ".json")).string();
      ir::write_file_atomic(p, ir::task_to_json(r.task) + "\n");
      return p;
    }
  return "";
}

const std::string kBin = STEPTP_BINARY;

TEST(CliLower, TirMatchesGoldenFile) {
  std::string out;
  ASSERT_EQ(testing::run_command(kBin + " lower --target tir " + task_file("softmax"), &out), 0) << out;
  EXPECT_EQ(out, ir::read_file(testing::lower_test_dir() + "/golden/softmax.py"));
}

TEST(CliLower, CheckCompilesRunsAndCompares) {
  std::string out;
  const std::string env = "STEPTP_CACHE=" + testing::test_cache_dir() + " ";
  ASSERT_EQ(testing::run_command(env + kBin + " lower --target c --check " + task_file("matmul"), &out), 0) << out;
  EXPECT_NE(out.find("\"ok\":true"), std::string::npos) << out;
  EXPECT_NE(out.find("\"runs\":6"), std::string::npos) << out;
}

TEST(CliLower, BadInputExitsTwo) {
  std::string out;
  EXPECT_EQ(testing::run_command(kBin + " lower --target c /nonexistent/task.json", &out), 2);
  EXPECT_EQ(out.rfind("steptp: error: ", 0), 0u) << out;
  EXPECT_EQ(testing::run_command(kBin + " lower --target tir --check " + task_file("matmul"), &out), 2);
  // a misspelt command is named
  EXPECT_EQ(testing::run_command(kBin + " lowr --target c x.json", &out), 2);
  EXPECT_EQ(out, "steptp: error: unknown command 'lowr' (see `steptp --help`)\n") << out;
}

TEST(CliMeasure, PrintsJsonInSeconds) {
  std::string out;
  const std::string env = "STEPTP_CACHE=" + testing::test_cache_dir() + " ";
  ASSERT_EQ(testing::run_command(env + kBin + " measure " + task_file("matmul") + " --repeats 3 --warmup 1 --threads 2 --flush",
                                 &out),
            0)
      << out;
  for (const char* k : {"\"median\": ", "\"iqr\": ", "\"min\": ", "\"repeats\": 3", "\"compile_seconds\": "})
    EXPECT_NE(out.find(k), std::string::npos) << k << " in " << out;
}

}  // namespace
}  // namespace steptp
