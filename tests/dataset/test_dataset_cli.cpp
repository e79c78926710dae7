// End-to-end tests of `steptp generate / merge / export / audit` through the built CLI (STEPTP_BINARY) on the tiny
// task set with --no-measure: determinism, shards + merge == single run, kill -9 + rerun == uninterrupted run,
// chat schema of every exported line, audit pass/fail.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "step/cache.hpp"
#include "step/chat_schema.hpp"
#include "dataset/export.hpp"
#include "dataset_test_util.hpp"
#include "ir/task.hpp"

using namespace steptp::dataset;
using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> with(std::vector<std::string> a, std::initializer_list<std::string> more) {
  a.insert(a.end(), more);
  return a;
}

}  // namespace

TEST(DatasetCliSlow, DeterministicAndAuditPasses) {
  std::string d = temp_dir("det");
  std::string tasks = write_tiny_tasks(d);
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/a"), d), 0);
  ASSERT_EQ(run_cli(with(tiny_args(tasks, d + "/b"), {"--jobs", "2"}), d), 0);
  expect_same_tree(d + "/a", d + "/b");
  for (const char* f : {"manifest.json", "archive/all.jsonl", "chat/train.jsonl", "chat/train.ids", "stats.json",
                        "stats.md", "rejects.jsonl", "eval/test.prompts.jsonl"})
    EXPECT_TRUE(fs::exists(fs::path(d) / "a" / f)) << f;
  EXPECT_TRUE(verify_manifest(d + "/a").empty());
  EXPECT_EQ(run_cli({"audit", d + "/a"}, d), 0);
  // a rerun on the same cache recomputes nothing and rewrites identical files
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/a"), d), 0);
  expect_same_tree(d + "/a", d + "/b");
  // export from the archive reproduces the same files
  ASSERT_EQ(run_cli({"export", "--out", d + "/b"}), 0);
  expect_same_tree(d + "/a", d + "/b");
  fs::remove_all(d);
}

TEST(DatasetCliSlow, ChatLinesFollowTheEvaluationSchema) {
  std::string d = temp_dir("chat");
  std::string tasks = write_tiny_tasks(d);
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/o"), d), 0);
  std::size_t lines = 0;
  for (const char* sp : {"train", "val", "test"}) {
    auto chat = read_jsonl(d + "/o/chat/" + sp + ".jsonl");
    for (const auto& l : chat) {
      auto e = chat_line_errors(l);
      EXPECT_TRUE(e.empty()) << sp << ": " << e[0];
      ++lines;
    }
  }
  EXPECT_GT(lines, 0u);
  fs::remove_all(d);
}

TEST(DatasetCliSlow, ShardsPlusMergeEqualSingleRun) {
  std::string d = temp_dir("shard");
  std::string tasks = write_tiny_tasks(d);
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/single"), d), 0);
  ASSERT_EQ(run_cli(with(tiny_args(tasks, d + "/sharded"), {"--shard", "0/2"}), d), 0);
  EXPECT_NE(run_cli({"merge", "--out", d + "/sharded"}, d), 0) << "merge must refuse a missing shard";
  ASSERT_EQ(run_cli(with(tiny_args(tasks, d + "/sharded"), {"--shard", "1/2"}), d), 0);
  ASSERT_EQ(run_cli({"merge", "--out", d + "/sharded"}, d), 0);
  expect_same_tree(d + "/single", d + "/sharded");
  fs::remove_all(d);
}

TEST(DatasetCliSlow, KillNineThenRerunMatchesUninterrupted) {
  std::string d = temp_dir("kill");
  std::string tasks = write_tiny_tasks(d);
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/ref"), d), 0);
  // stop after 2 units, then resume: the cache holds those units and the result is the same
  EXPECT_EQ(run_cli(with(tiny_args(tasks, d + "/resumed"), {"--stop-after-units", "2"}), d), 3);
  {
    Cache c(d + "/resumed/cache.sqlite");
    EXPECT_EQ(c.count("units"), 2);
  }
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/resumed"), d), 0);
  expect_same_tree(d + "/ref", d + "/resumed");
  // kill -9 once the first unit is stored, then rerun. Six units without measurement can all finish between two
  // polls on a loaded machine, so a run that ends before the kill is retried in a fresh directory (at most 5).
  std::string killed;
  int pid = -1;
  for (int attempt = 0; attempt < 5 && pid < 0; ++attempt) {
    killed = d + "/killed" + std::to_string(attempt);
    pid = spawn_cli(tiny_args(tasks, killed));
    auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
      int st = 0;
      if (waitpid(pid, &st, WNOHANG) == pid) {
        pid = -1;
        break;
      }
      if (fs::exists(killed + "/cache.sqlite")) {
        try {
          Cache c(killed + "/cache.sqlite");
          if (c.count("units") >= 1) break;
        } catch (const std::exception&) {
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ASSERT_GT(pid, 0) << "five runs finished before they could be killed";
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // the kill landed mid-run: units were cached but no dataset was exported
  EXPECT_FALSE(fs::exists(killed + "/manifest.json"));
  {
    Cache c(killed + "/cache.sqlite");
    EXPECT_GE(c.count("units"), 1);
    EXPECT_LT(c.count("units"), 6);
  }
  ASSERT_EQ(run_cli(tiny_args(tasks, killed), d), 0);
  expect_same_tree(d + "/ref", killed);
  fs::remove_all(d);
}

TEST(DatasetCliSlow, AuditFailsOnCorruptedRecord) {
  std::string d = temp_dir("audit");
  std::string tasks = write_tiny_tasks(d);
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/o"), d), 0);
  ASSERT_EQ(run_cli({"audit", d + "/o", "--sample", "3"}, d), 0);
  // corrupt one number in the first record's reasoning (keep the manifest consistent so only the record is wrong)
  auto recs = read_jsonl(d + "/o/archive/all.jsonl");
  ASSERT_FALSE(recs.empty());
  std::string r = recs[0]["reasoning"];
  r.replace(r.find("flops ") + 6, 0, "9");
  recs[0]["reasoning"] = r;
  std::string text = to_jsonl(recs);
  std::ofstream(d + "/o/archive/all.jsonl", std::ios::binary) << text;
  EXPECT_EQ(run_cli({"audit", d + "/o"}, d), 1);  // manifest hash and reasoning both fail
  fs::remove_all(d);
}

TEST(DatasetCliSlow, OnnxModelsGiveVerifiedSamples) {
  // Real imported KernelBench models as workloads (issue #6): records come from the ONNX graphs, carry the
  // KernelBench suite and pass the audit.
  std::string d = temp_dir("onnx");
  const std::string l1 = std::string(STEPTP_SHARED_DIR) + "/kernelbench-onnx/level1/";
  ASSERT_EQ(run_cli({"generate", "--out", d + "/o", "--onnx", l1 + "19_ReLU", l1 + "36_RMSNorm_", "--no-measure",
                     "--no-progress", "--max-candidates", "1"},
                    d),
            0);
  auto recs = read_jsonl(d + "/o/archive/all.jsonl");
  ASSERT_FALSE(recs.empty());
  std::set<std::string> workloads;
  for (const auto& r : recs) {
    EXPECT_EQ(r["suite"], "level1");
    EXPECT_EQ(r["family"], r["workload"] == "19_ReLU__0" ? "elementwise" : "norm");  // from the anchor
    workloads.insert(r["workload"].get<std::string>());
  }
  // each model is one extracted task (issue #14: --onnx partitions; the RMSNorm's Pow joins its ReduceMean)
  EXPECT_EQ(workloads, (std::set<std::string>{"19_ReLU__0", "36_RMSNorm___0"}));
  EXPECT_EQ(run_cli({"audit", d + "/o"}, d), 0);
  fs::remove_all(d);
}

TEST(DatasetCliSlow, BadSelectionsAreErrors) {
  std::string d = temp_dir("badsel");
  std::string tasks = write_tiny_tasks(d);
  EXPECT_EQ(run_cli(with(tiny_args(tasks, d + "/a"), {"--strategies", "no_such_strategy"}), d), 2);
  EXPECT_EQ(run_cli({"generate", "--out", d + "/b", "--workloads", "NoSuchWorkload", "--no-measure"}, d), 2);
  std::ofstream(d + "/empty.jsonl") << "";
  EXPECT_EQ(run_cli({"generate", "--out", d + "/c", "--tasks", d + "/empty.jsonl", "--no-measure"}, d), 2);
  EXPECT_EQ(run_cli({"audit", d + "/nothing_here"}, d), 2);
  EXPECT_FALSE(fs::exists(d + "/b/manifest.json"));
  // --out naming a regular file: one coded line, and the file is untouched
  std::ofstream(d + "/plain") << "keep";
  EXPECT_EQ(run_cli(with(tiny_args(tasks, d + "/plain"), {}), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("steptp: error: D010 at " + d + "/plain: cannot create the output directory"),
            std::string::npos)
      << slurp(d + "/log.txt");
  EXPECT_EQ(slurp(d + "/plain"), "keep");
  fs::remove_all(d);
}

TEST(DatasetCliSlow, FixedTimerIsByteIdenticalAndFillsEveryTimingField) {
  // --timer fixed: the deterministic latency model goes through the same measurement path (ABBA object, cache)
  std::string d = temp_dir("fixed");
  std::string tasks = write_tiny_tasks(d);
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"generate", "--tasks", tasks, "--out", out, "--timer", "fixed", "--no-progress",
                                    "--min-per-strategy", "2"};
  };
  ASSERT_EQ(run_cli(args(d + "/a"), d), 0);
  ASSERT_EQ(run_cli(with(args(d + "/b"), {"--jobs", "2"}), d), 0);
  expect_same_tree(d + "/a", d + "/b");
  ASSERT_EQ(run_cli(args(d + "/a"), d), 0);  // rerun from the cache
  expect_same_tree(d + "/a", d + "/b");
  auto recs = read_jsonl(d + "/a/archive/all.jsonl");
  ASSERT_FALSE(recs.empty());
  for (const auto& r : recs) {
    const auto& m = r["measurement"];
    ASSERT_TRUE(m.is_object());
    for (const char* side : {"before", "after"})
      for (const char* k : {"median_ns", "q1_ns", "q3_ns", "iqr_ns", "repeats", "number"})
        EXPECT_FALSE(m[side][k].is_null()) << side << "." << k;
    EXPECT_EQ(m["after"]["number"], 1);
    EXPECT_EQ(m["noisy"], false);
    EXPECT_EQ(m["order"], "ABBA");
    const double sp = m["before"]["median_ns"].get<double>() / m["after"]["median_ns"].get<double>();
    EXPECT_NEAR(m["speedup"].get<double>(), sp, 1e-12);
    EXPECT_EQ(r["equivalence"]["method"], "interpreter");
  }
  fs::remove_all(d);
}

TEST(DatasetCliSlow, RealTimerRecordsAndRemeasureReportsVerdicts) {
  // The real timer on two strategies of the tiny set: every record has a calibrated number and paired quartiles,
  // and `audit --remeasure` re-times sampled records and reports how many keep their verdict.
  std::string d = temp_dir("real");
  std::string tasks = write_tiny_tasks(d);
  ASSERT_EQ(run_cli({"generate", "--tasks", tasks, "--out", d + "/o", "--no-progress", "--strategies", "loop_unrolling",
                     "loop_reorder", "--max-candidates", "1", "--repeats", "5", "--min-repeat-ms", "0.2",
                     "--min-per-strategy", "2"},
                    d),
            0);
  auto recs = read_jsonl(d + "/o/archive/all.jsonl");
  ASSERT_FALSE(recs.empty());
  for (const auto& r : recs) {
    const auto& m = r["measurement"];
    EXPECT_GE(m["before"]["number"].get<std::int64_t>(), 1);
    EXPECT_LE(m["before"]["q1_ns"].get<double>(), m["before"]["median_ns"].get<double>());
    EXPECT_LE(m["before"]["median_ns"].get<double>(), m["before"]["q3_ns"].get<double>());
    EXPECT_LE(m["speedup_q1"].get<double>(), m["speedup"].get<double>());
    EXPECT_GT(m["speedup"].get<double>(), 0.0);
    EXPECT_TRUE(m["redone"].is_boolean());
  }
  ASSERT_EQ(run_cli({"audit", d + "/o", "--sample", "1", "--remeasure", "3", "--remeasure-json", d + "/rm.json"}, d), 0);
  auto rm = ojson::parse(steptp::ir::read_file(d + "/rm.json"));
  EXPECT_EQ(rm["remeasured"], std::min<std::size_t>(3, recs.size()));
  EXPECT_EQ(rm["failed"], 0);
  std::int64_t counted = 0;
  for (const auto& [a, row] : rm["verdicts"].items())
    for (const auto& [b, n] : row.items()) counted += n.get<std::int64_t>();
  EXPECT_EQ(counted, rm["remeasured"].get<std::int64_t>());
  fs::remove_all(d);
}
