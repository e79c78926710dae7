// The length limits of S10 applied before measuring (DATASET.md §7, "Before measuring"): `generate` drops a
// candidate whose sample will be too long before S5's numeric check and S7, and the dataset it exports is exactly
// the one `--measure-all` (every candidate verified, timed and then filtered) exports from the same candidates.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "dataset_test_util.hpp"

using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> run_args(const std::string& tasks, const std::string& cfg, const std::string& out) {
  return {"generate", "--tasks", tasks, "--config", cfg, "--out", out, "--no-progress", "--min-per-strategy", "2"};
}

void write_config(const std::string& path, long max_completion) {
  std::ofstream(path) << R"({"gen": {"timer": "fixed", "max_depth": 2, "root_candidates": 4, "candidates_per_step": 4,)"
                      << R"( "state_sampling": "strategies", "max_candidates_per_strategy": 1},)"
                      << R"( "filter": {"max_completion_tokens": )" << max_completion << "}}";
}

long count_before_measuring(const std::string& dir) {
  long n = 0;
  for (const auto& r : read_json_lines(dir + "/rejects.jsonl"))
    n += r.value("reason", "") == "too_long" && r.value("detail", "").rfind("before measuring", 0) == 0;
  return n;
}

}  // namespace

TEST(PrefilterCli, DropsBeforeMeasuringExactlyWhatTheFilterDrops) {
  std::string d = temp_dir("prefilter");
  std::string tasks = write_tiny_tasks(d);
  // A first run with the default limits gives the completion lengths; the limit is their median, so that about
  // half of the samples are too long.
  write_config(d + "/wide.json", 3072);
  ASSERT_EQ(run_cli(run_args(tasks, d + "/wide.json", d + "/wide"), d), 0);
  std::vector<long> lens;
  for (const auto& r : read_json_lines(d + "/wide/archive/all.jsonl")) lens.push_back(r["tokens"]["completion"]);
  ASSERT_GE(lens.size(), 10u);
  std::sort(lens.begin(), lens.end());
  write_config(d + "/narrow.json", lens[lens.size() / 2]);

  ASSERT_EQ(run_cli(run_args(tasks, d + "/narrow.json", d + "/pre"), d), 0);
  auto all_args = run_args(tasks, d + "/narrow.json", d + "/all");
  all_args.push_back("--measure-all");
  ASSERT_EQ(run_cli(all_args, d), 0);

  // The pre-measurement filter dropped candidates, so it measured fewer records than --measure-all ...
  EXPECT_GT(count_before_measuring(d + "/pre"), 0);
  EXPECT_EQ(count_before_measuring(d + "/all"), 0);
  auto pre_all = read_json_lines(d + "/pre/archive/all.jsonl"), all_all = read_json_lines(d + "/all/archive/all.jsonl");
  EXPECT_LT(pre_all.size(), all_all.size());
  // ... and kept the same samples, byte for byte.
  std::size_t kept = 0;
  for (const char* f : {"archive/train.jsonl", "archive/val.jsonl", "archive/test.jsonl", "chat/train.jsonl",
                        "chat/val.jsonl", "chat/test.jsonl", "chat/train.ids", "chat/val.ids", "chat/test.ids",
                        "eval/val.prompts.jsonl", "eval/test.prompts.jsonl"}) {
    std::string a = slurp(d + "/pre/" + f), b = slurp(d + "/all/" + f);
    EXPECT_TRUE(a == b) << f << " differs between the pre-measurement filter (" << a.size()
                        << " bytes) and --measure-all (" << b.size() << " bytes)";
    if (std::string(f).rfind("archive/", 0) == 0) kept += std::count(a.begin(), a.end(), '\n');
  }
  EXPECT_GT(kept, 0u);
  if (!HasFailure()) fs::remove_all(d);
}
