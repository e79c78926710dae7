// Issue #48 items 6 and 8 through the built CLI, on one tiny dataset (tiny_args, generated once and copied per test):
// audit's coded failures (D006 duplicate record id, D007 stats.json / stats.md not what the records give, D008 a
// stray temporary file), generate removing the temporary files of a killed run, audit of a directory that is not a
// dataset (exit 2), and every `export` error as one line with its D code (exit 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "base/hash.hpp"
#include "base/json_text.hpp"
#include "dataset_test_util.hpp"

using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;
using steptp::core::ojson;

namespace {

class DatasetAuditCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = temp_dir("audit-codes");
    tasks_ = write_tiny_tasks(root_);
    ASSERT_EQ(run_cli(tiny_args(tasks_, root_ + "/ds"), root_), 0) << slurp(root_ + "/log.txt");
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  /// A fresh copy of the dataset (cache included) at root_/NAME.
  static std::string copy_of(const std::string& name) {
    const std::string d = root_ + "/" + name;
    fs::remove_all(d);
    fs::copy(root_ + "/ds", d, fs::copy_options::recursive);
    return d;
  }
  /// Writes `text` to DIR/REL and puts its SHA-256 into the manifest, as a careful tamperer would.
  static void write_rehashed(const std::string& dir, const std::string& rel, const std::string& text) {
    std::ofstream(dir + "/" + rel, std::ios::binary | std::ios::trunc) << text;
    ojson m = ojson::parse(slurp(dir + "/manifest.json"));
    m["files"][rel] = steptp::core::sha256_hex(text);
    std::ofstream(dir + "/manifest.json", std::ios::binary | std::ios::trunc) << steptp::core::dump_pretty(m);
  }
  /// Runs `steptp ARGS`; returns (exit status, stdout + stderr).
  static std::pair<int, std::string> run(const std::vector<std::string>& args) {
    const std::string log = root_ + "/log";
    fs::create_directories(log);
    fs::remove(log + "/log.txt");  // run_cli appends
    const int rc = run_cli(args, log);
    return {rc, slurp(log + "/log.txt")};
  }

  static std::string root_, tasks_;
};
std::string DatasetAuditCli::root_, DatasetAuditCli::tasks_;

bool has_line(const std::string& log, const std::string& line) {
  return ("\n" + log).find("\n" + line + "\n") != std::string::npos;
}

TEST_F(DatasetAuditCli, UntouchedDatasetPasses) {
  auto [rc, log] = run({"audit", root_ + "/ds", "--sample", "1"});
  EXPECT_EQ(rc, 0) << log;
  EXPECT_EQ(log.find("FAIL"), std::string::npos) << log;
}

// A copy of record line 1 appended to archive/all.jsonl (manifest hash updated): D006 at the copy, naming both lines.
TEST_F(DatasetAuditCli, DuplicateRecordIdIsD006) {
  const std::string d = copy_of("dup");
  std::string text = slurp(d + "/archive/all.jsonl");
  const std::string first = text.substr(0, text.find('\n') + 1);
  const auto lines = std::count(text.begin(), text.end(), '\n');
  write_rehashed(d, "archive/all.jsonl", text + first);
  const std::string id = ojson::parse(first)["record_id"].get<std::string>();
  const std::string n = std::to_string(lines + 1);
  auto [rc, log] = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 1) << log;
  EXPECT_TRUE(has_line(log, "FAIL D006 at archive/all.jsonl:" + n + ": duplicate record_id " + id + " (lines 1 and " +
                                n + ")")) << log;
}

// stats.json replaced by garbage, or with one count changed (manifest hashes updated): D007.
TEST_F(DatasetAuditCli, GarbageOrAlteredStatsIsD007) {
  const std::string d = copy_of("stats");
  const std::string good = slurp(d + "/stats.json");
  write_rehashed(d, "stats.json", "garbage {");
  auto [rc, log] = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 1) << log;
  EXPECT_TRUE(has_line(log, "FAIL D007 at stats.json: not valid JSON")) << log;

  ojson s = ojson::parse(good);
  const auto records = s["counts"]["splits"]["test"]["records"].get<std::int64_t>();
  s["counts"]["splits"]["test"]["records"] = records + 1;
  write_rehashed(d, "stats.json", steptp::core::dump_pretty(s));
  std::tie(rc, log) = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 1) << log;
  EXPECT_TRUE(has_line(log, "FAIL D007 at stats.json: differs from the statistics of the records at "
                            "counts.splits.test.records: " + std::to_string(records + 1) + " here, " +
                            std::to_string(records) + " from the records")) << log;

  write_rehashed(d, "stats.json", good);
  write_rehashed(d, "stats.md", slurp(d + "/stats.md") + "| extra | 1 |\n");
  std::tie(rc, log) = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 1) << log;
  EXPECT_TRUE(has_line(log, "FAIL D007 at stats.md: differs from the statistics of the records")) << log;
}

// chat/val.jsonl.tmp.4194305 (a PID above Linux's largest, as a kill -9 leaves it): audit fails with D008; a rerun of
// generate removes it but keeps the temporary file of a running process (this test's), which audit still reports.
TEST_F(DatasetAuditCli, StrayTempFileIsD008AndGenerateRemovesStaleOnes) {
  const std::string d = copy_of("tmp");
  const std::string stale = "chat/val.jsonl.tmp.4194305", live = "eval/test.prompts.jsonl.tmp." + std::to_string(getpid());
  std::ofstream(d + "/" + stale) << "{\"messages\": [";
  auto [rc, log] = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 1) << log;
  const std::string why = ": stray temporary file (a writer was killed before renaming it, or is still writing; "
                          "`steptp generate` or `steptp export` removes it once that process has exited)";
  EXPECT_TRUE(has_line(log, "FAIL D008 at " + stale + why)) << log;
  EXPECT_NE(log.find("audit FAILED: "), std::string::npos) << log;

  std::ofstream(d + "/" + live) << "{";
  std::tie(rc, log) = run(tiny_args(tasks_, d));
  ASSERT_EQ(rc, 0) << log;
  EXPECT_FALSE(fs::exists(d + "/" + stale));
  EXPECT_TRUE(fs::exists(d + "/" + live));
  std::tie(rc, log) = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 1) << log;
  EXPECT_TRUE(has_line(log, "FAIL D008 at " + live + why)) << log;
  fs::remove(d + "/" + live);
  std::tie(rc, log) = run({"audit", d, "--sample", "1"});
  EXPECT_EQ(rc, 0) << log;
}

// An empty directory is not a dataset: bad input (exit 2, one D001 line), not a failed audit (1).
TEST_F(DatasetAuditCli, EmptyDirectoryIsD001ExitTwo) {
  const std::string e = root_ + "/empty";
  fs::create_directories(e);
  auto [rc, log] = run({"audit", e});
  EXPECT_EQ(rc, 2) << log;
  EXPECT_EQ(log, "steptp: error: D001 at " + e + ": not a steptp dataset (no manifest.json; run `steptp generate`)\n");
}

// Every export error is one line with a D code, exit 2.
TEST_F(DatasetAuditCli, ExportErrorsCarryADCode) {
  auto expect_error = [&](const std::vector<std::string>& args, const std::string& start) {
    SCOPED_TRACE(args.back());
    auto [rc, log] = run(args);
    EXPECT_EQ(rc, 2) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_EQ(log.rfind("steptp: error: " + start, 0), 0u) << log;
  };
  const std::string e = root_ + "/empty-export";
  fs::create_directories(e);
  expect_error({"export", "--out", e}, "D001 at " + e + ": not a steptp dataset (no manifest.json");

  std::string d = copy_of("x-tampered");  // a changed file whose hash was not updated, and a missing one
  std::ofstream(d + "/stats.json", std::ios::app) << " ";
  expect_error({"export", "--out", d},
               "D009 at " + d + "/stats.json: stats.json does not match its SHA-256 in the manifest");
  d = copy_of("x-missing");
  fs::remove(d + "/chat/val.ids");
  expect_error({"export", "--out", d}, "D009 at " + d + "/chat/val.ids: chat/val.ids is missing");

  d = copy_of("x-stats");  // files steptp did not write, with their hashes updated
  write_rehashed(d, "stats.json", "[1, 2]");
  expect_error({"export", "--out", d},
               "D003 at " + d + "/stats.json: not a steptp statistics file (no pipeline_counters object)\n");
  d = copy_of("x-record");
  std::string text = slurp(d + "/archive/all.jsonl");
  write_rehashed(d, "archive/all.jsonl", "{\"record_id\": 7}\n" + text.substr(text.find('\n') + 1));
  expect_error({"export", "--out", d}, "D003 at " + d + "/archive/all.jsonl:1: not a steptp record: ");
  write_rehashed(d, "archive/all.jsonl", "not json\n" + text);
  expect_error({"export", "--out", d}, "D003 at " + d + "/archive/all.jsonl:1: not a JSON line\n");

  d = copy_of("x-config");  // the --config file
  expect_error({"export", "--out", d, "--config", root_ + "/no-such.json"},
               "D011 at " + root_ + "/no-such.json: cannot read file");
  std::ofstream(root_ + "/bad-config.json") << R"({"bogus_option": 1})";
  expect_error({"export", "--out", d, "--config", root_ + "/bad-config.json"},
               "D011 at " + root_ + "/bad-config.json: unknown option 'bogus_option'\n");

  // README.md (the dataset card) is a non-empty directory that the manifest does not list: export cannot write it
  ojson m = ojson::parse(slurp(d + "/manifest.json"));
  m["files"].erase("README.md");
  std::ofstream(d + "/manifest.json", std::ios::trunc) << steptp::core::dump_pretty(m);
  fs::remove(d + "/README.md");
  fs::create_directories(d + "/README.md/keep");
  expect_error({"export", "--out", d}, "D010 at " + d + "/README.md: cannot write the file: ");
  // and a sound dataset exports
  auto [rc, log] = run({"export", "--out", copy_of("x-ok")});
  EXPECT_EQ(rc, 0) << log;
}

}  // namespace
