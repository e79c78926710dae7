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
  EXPECT_EQ(out, "steptp: error: U001 at `steptp lowr`: unknown command (see `steptp --help`)\n") << out;
}

TEST(CliMeasure, PrintsJsonInSeconds) {
  std::string out;
  const std::string env = "STEPTP_CACHE=" + testing::test_cache_dir() + " ";
  ASSERT_EQ(testing::run_command(env + kBin + " measure " + task_file("matmul") + " --repeats 3 --warmup 1 --threads 2 --flush",
                                 &out),
            0)
      << out;
  for (const char* k : {"\"median\": ", "\"q1\": ", "\"q3\": ", "\"iqr\": ", "\"min\": ", "\"number\": 1,",
                        "\"compile_seconds\": "})  // a cold-cache run times one call per repeat
    EXPECT_NE(out.find(k), std::string::npos) << k << " in " << out;
  // 3 repeats, or 6 when the first run was noisy and was redone (DATASET.md §2.7 step 5)
  const bool redone = out.find("\"redone\": true") != std::string::npos;
  EXPECT_NE(out.find(redone ? "\"repeats\": 6" : "\"repeats\": 3"), std::string::npos) << out;
}

TEST(CliMeasure, FpContractOnCompilesWithContractionAndTakesOnlyOnOrOff) {
  // on: the kernel is compiled with -ffp-contract=fast, as search and replay time kernels (a second object in
  // the cache: the compile is not a hit of the uncontracted one timed just before)
  std::string out;
  const std::string cache =
      (std::filesystem::temp_directory_path() / ("steptp-measure-contract-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(cache);
  const std::string env = "STEPTP_CACHE=" + cache + " ";
  const std::string cmd = env + kBin + " measure " + task_file("matmul") + " --repeats 2";
  ASSERT_EQ(testing::run_command(cmd + " --fp-contract off", &out), 0) << out;
  ASSERT_EQ(testing::run_command(cmd + " --fp-contract on", &out), 0) << out;
  EXPECT_NE(out.find("\"cache_hit\": false"), std::string::npos) << out;
  ASSERT_EQ(testing::run_command(cmd + " --fp-contract on", &out), 0) << out;
  EXPECT_NE(out.find("\"cache_hit\": true"), std::string::npos) << out;
  EXPECT_EQ(testing::run_command(cmd + " --fp-contract maybe", &out), 2);
  EXPECT_NE(out.find("--fp-contract"), std::string::npos) << out;
  std::filesystem::remove_all(cache);
}

TEST(CliMeasure, CompareTimesTwoProgramsInterleaved) {
  std::string out;
  const std::string env = "STEPTP_CACHE=" + testing::test_cache_dir() + " ";
  ASSERT_EQ(testing::run_command(env + kBin + " measure " + task_file("matmul") + " --compare " + task_file("matmul") +
                                     " --repeats 5 --min-repeat-ms 0.2",
                                 &out),
            0)
      << out;
  for (const char* k : {"\"before\": {\"ok\": true", "\"after\": {\"ok\": true", "\"speedup\": ", "\"speedup_q1\": "})
    EXPECT_NE(out.find(k), std::string::npos) << k << " in " << out;
  // a program against itself: the paired speedup is about 1
  const auto p = out.find("\"speedup\": ");
  ASSERT_NE(p, std::string::npos);
  const double sp = std::stod(out.substr(p + 11));
  EXPECT_GT(sp, 0.5);
  EXPECT_LT(sp, 2.0);
  // a different signature is bad input
  EXPECT_EQ(testing::run_command(kBin + " measure " + task_file("matmul") + " --compare " + task_file("softmax"), &out), 2)
      << out;
}

}  // namespace
}  // namespace steptp
