// Hostile input on every command that takes a task (issue #16): 2,500 nested parentheses, 5,000 nested sums, a
// 10 MB line and a task of 1.68e13 statement executions. Each gives exit 2 and one error line with a stable LEIR
// code — never a crash, never an endless run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Result {
  int rc = -1;  // exit status; 128 + signal when killed
  std::string out, err;
};

std::string slurp_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `steptp ARGS` under a 120 s timeout with stdout and stderr captured apart.
Result run(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "timeout 120 " + std::string(STEPTP_BINARY) + " " + args + " >" + out.string() + " 2>" +
                          err.string();
  const int st = std::system(cmd.c_str());
  Result r;
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = slurp_file(out);
  r.err = slurp_file(err);
  return r;
}

std::string repeat(const std::string& s, int n) {
  std::string r;
  r.reserve(s.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) r += s;
  return r;
}

std::string task_json(const std::string& name, const std::string& leir, long extent) {
  const std::string shape = "[" + std::to_string(extent) + "]";
  return R"({"workload": ")" + name + R"(", "suite": "level1", "known": [{"name": "A", "role": "input", "dtype": )"
         R"("f32", "shape": )" + shape + R"(}, {"name": "C", "role": "output", "dtype": "f32", "shape": )" + shape +
         R"(}], "leir": ")" + leir + "\"}\n";
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) nl = s.size();
    v.push_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return v;
}

class HostileCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("steptp_hostile_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const std::string a = "A^{f32,g}_{tx}";
    auto write = [](const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; };
    write("paren.json", task_json("paren", "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("(", 2500) + a + repeat(")", 2500) + ";];", 4));
    write("sums.json", task_json("sums", "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("(", 5000) + a + repeat("+1)", 5000) + ";];", 4));
    write("bigline.json", task_json("bigline", "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + a + "+" + std::string(10'000'000, '0') + ";];", 4));
    // 4096 x 10^6 x 4096 = 1.68e13 statement executions
    write("huge.json", task_json("huge", "B^{4096}_{tx=0}L^{4096}_{a=0}L^{1000000}_{c=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx};];", 4096));
    // 10^10-element input read once: one statement execution, 170 GB of buffers.
    write("bigbuf.json", R"({"workload": "bigbuf", "suite": "level1", "known": [{"name": "A", "role": "input", )"
                         R"("dtype": "f32", "shape": [100000, 100000]}, {"name": "C", "role": "output", "dtype": )"
                         R"("f32", "shape": [1]}], "leir": "B^{1}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,0};];"})"
                         "\n");
    write("ok.json", task_json("ok", "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + a + "*2;];", 4));
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }

  // Exit 2, no crash, and exactly one stderr line, carrying `code`.
  static void expect_refused(const std::string& args, const std::string& code) {
    SCOPED_TRACE(args);
    const Result r = run(args, dir_);
    EXPECT_EQ(r.rc, 2) << r.err.substr(0, 400);
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err.substr(0, 400);
    EXPECT_NE(lines[0].find("LEIR-" + code), std::string::npos) << lines[0].substr(0, 400);
    EXPECT_LT(lines[0].size(), 600u);  // one readable line, not the 10 MB input echoed back
  }
  static fs::path dir_;
};
fs::path HostileCli::dir_;

const std::vector<std::pair<std::string, std::string>> kParseHostile = {
    {"paren.json", "E015"}, {"sums.json", "E015"}, {"bigline.json", "E107"}};

}  // namespace

TEST_F(HostileCli, DeepOrHugeTextIsRefusedByEveryCommandThatTakesATask) {
  for (const auto& [file, code] : kParseHostile) {
    const std::string p = path(file);
    for (const std::string& cmd :
         {"run " + p, "equiv " + p + " " + p, "equiv " + path("ok.json") + " " + p, "lower --target c " + p,
          "lower --target tir " + p, "lower --target cuda " + p, "lower --target c --check " + p,
          "apply --strategy loop_reorder " + p, "measure " + p, "measure " + path("ok.json") + " --compare " + p})
      expect_refused(cmd, code);
  }
}

TEST_F(HostileCli, CheckAndFmtReportTheCodeAndExit2) {
  for (const auto& [file, code] : kParseHostile) {
    SCOPED_TRACE(file);
    const Result c = run("check " + path(file), dir_);
    EXPECT_EQ(c.rc, 2);
    const auto lines = lines_of(c.out);
    ASSERT_EQ(lines.size(), 2u) << c.out.substr(0, 400);
    EXPECT_NE(lines[0].find("LEIR-" + code), std::string::npos) << lines[0].substr(0, 300);
    EXPECT_EQ(lines[1], "0 of 1 task(s) valid");
    // fmt prints its errors as FILE:LINE: headline, then (for a position in the text) the excerpt and caret.
    const Result f = run("fmt " + path(file), dir_);
    EXPECT_EQ(f.rc, 2);
    const auto flines = lines_of(f.err);
    ASSERT_GE(flines.size(), 1u);
    EXPECT_NE(flines[0].find("LEIR-" + code), std::string::npos) << f.err.substr(0, 300);
    for (std::size_t i = 1; i < flines.size(); ++i) EXPECT_EQ(flines[i].rfind("  ", 0), 0u) << flines[i];
    EXPECT_LE(flines.size(), 3u);
  }
}

TEST_F(HostileCli, WorkEstimateOverTheBudgetIsRefusedBeforeRunning) {
  const std::string h = path("huge.json");
  for (const std::string& cmd : {"run " + h, "equiv " + h + " " + h, "lower --target c --check " + h, "measure " + h,
                                 "apply --verify --strategy loop_reorder " + h})
    expect_refused(cmd, "E309");
  const Result r = run("run " + h, dir_);
  EXPECT_NE(r.err.find("work estimate 1.68e+13 statement executions per run exceeds the budget of 1e+09 (raise it "
                       "with --max-steps N, 0 for no limit)"),
            std::string::npos)
      << r.err;
  const std::string b = path("bigbuf.json");
  for (const std::string& cmd : {"run " + b, "equiv " + b + " " + b, "lower --target c --check " + b, "measure " + b,
                                 "apply --verify --strategy loop_reorder " + b})
    expect_refused(cmd, "E310");
  // A negative budget is a command-line error, not "no limit" (a uint64 would wrap it).
  for (const std::string& cmd : {"run --max-steps -5 " + h, "run --max-memory -1 " + h, "measure --max-steps -5 " + h}) {
    const Result n = run(cmd, dir_);
    EXPECT_EQ(n.rc, 2) << cmd;
    EXPECT_NE(n.err.find("steptp: error:"), std::string::npos) << n.err;
  }
  // Commands that do not execute the task accept it.
  EXPECT_EQ(run("check " + h, dir_).rc, 0);
  EXPECT_EQ(run("lower --target c " + h, dir_).rc, 0);
}

// A missing, unreadable or corrupt file and an unknown strategy name are bad input with a code too (issue #16): E108
// (file), E601 (corrupt ONNX model), S004 (strategy), one line, exit 2, on every command that reads them.
TEST_F(HostileCli, MissingFileCorruptModelAndUnknownStrategyCarryACode) {
  const std::string miss = path("no-such-task.json"), ok = path("ok.json");
  for (const std::string& cmd :
       {"run " + miss, "equiv " + miss + " " + ok, "equiv " + ok + " " + miss, "lower --target c " + miss,
        "lower --target c --check " + miss, "apply --strategy loop_reorder " + miss, "measure " + miss,
        "measure " + ok + " --compare " + miss, "check " + miss, "fmt " + miss, "import-onnx " + miss,
        "import-onnx " + dir_.string(), "replay " + miss})
    expect_refused(cmd, "E108");
  // A step path that is not JSON, or whose step no longer applies (replay): S005 / S001 at the file and step.
  std::ofstream(dir_ / "junk-path.json") << "{\"steps\": [";
  const Result junk = run("replay " + path("junk-path.json"), dir_);
  EXPECT_EQ(junk.rc, 2);
  EXPECT_EQ(junk.err.rfind("steptp: error: S005 at " + path("junk-path.json") + ": not JSON (", 0), 0u) << junk.err;
  EXPECT_EQ(lines_of(junk.err).size(), 1u) << junk.err;
  std::ofstream(dir_ / "stale-path.json")
      << R"({"workload": "ReLU", "params": {"batch": 2, "dim": 8}, "steps": [{"candidate": "loop_split@0/l5{outer=2}"}]})";
  const Result stale = run("replay " + path("stale-path.json"), dir_);
  EXPECT_EQ(stale.rc, 2);
  EXPECT_EQ(stale.err, "steptp: error: S001 at " + path("stale-path.json") +
                           ": steps[0] (loop_split@0/l5{outer=2}): stale site: loop_split@0/l5{outer=2} is not a site "
                           "of this task\n");
  // An unknown workload keeps its code, at the file; a file without a root says so; the timing flags need --measure
  // and --fp-contract takes on or off: usage errors (U001), one line.
  std::ofstream(dir_ / "nowl-path.json") << R"({"workload": "NoSuchWorkload", "steps": []})";
  const Result nowl = run("replay " + path("nowl-path.json"), dir_);
  EXPECT_EQ(nowl.rc, 2);
  EXPECT_EQ(nowl.err, "steptp: error: LEIR-E109 at " + path("nowl-path.json") +
                          ": workload: unknown workload (see `steptp workloads list`): 'NoSuchWorkload'\n");
  std::ofstream(dir_ / "noroot-path.json") << R"({"steps": []})";
  const Result noroot = run("replay " + path("noroot-path.json"), dir_);
  EXPECT_EQ(noroot.rc, 2);
  EXPECT_NE(noroot.err.find("S005 at " + path("noroot-path.json") + ": no root"), std::string::npos) << noroot.err;
  for (const std::string flags : {" --measure --fp-contract maybe", " --measure --fp-contract=1", " --repeats 3",
                                  " --fp-contract off", " --no-baseline"}) {
    const Result r = run("replay " + path("stale-path.json") + flags, dir_);
    EXPECT_EQ(r.rc, 2) << flags;
    EXPECT_NE(r.err.find("U001"), std::string::npos) << flags << ": " << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  }
  // The diagnostic is located at the file: the path is printed once.
  EXPECT_EQ(run("run " + miss, dir_).err,
            "steptp: error: LEIR-E108 at " + miss + ": cannot read file: No such file or directory\n");
  const Result w = run("workloads emit NoSuchWorkload --small", dir_);
  EXPECT_EQ(w.rc, 2);
  EXPECT_EQ(w.err, "steptp: error: LEIR-E109 at NoSuchWorkload: unknown workload (see `steptp workloads list`)\n");
  std::ofstream(dir_ / "junk.onnx") << "\xff\xff\xff\xff";
  expect_refused("import-onnx " + path("junk.onnx"), "E601");
  for (const std::string& cmd :
       {"apply --strategy no_such_strategy " + ok, "generate --workloads ReLU --strategies no_such_strategy --out " +
                                                       (dir_ / "gen").string()}) {
    SCOPED_TRACE(cmd);
    const Result r = run(cmd, dir_);
    EXPECT_EQ(r.rc, 2) << r.err;
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0], "steptp: error: S004 unknown strategy 'no_such_strategy' (see `steptp strategies list`)");
  }
}

// An empty task file is E101 at the file, one line, exit 2, for every command that takes tasks (`cost-model score`
// printed nothing and exited 0 before the twenty-second session).
TEST_F(HostileCli, EmptyTaskFileIsE101ForEveryCommandThatTakesTasks) {
  std::ofstream(dir_ / "empty.jsonl").close();
  const std::string e = path("empty.jsonl"), ok = path("ok.json");
  for (const std::string& cmd :
       {"run " + e, "equiv " + e + " " + ok, "equiv " + ok + " " + e, "lower --target c " + e,
        "lower --target c --check " + e, "apply --strategy loop_reorder " + e, "measure " + e, "check " + e,
        "cost-model score analytical " + e})
    expect_refused(cmd, "E101");
}

// Directories that are not what a command reads (src/step/dataset_dir.hpp): D001-D005 at the path, one line,
// exit 2; CLI usage errors: U001 at the command.
TEST_F(HostileCli, NotADatasetDirectoryAndUsageErrorsCarryACode) {
  const std::string empty = path("empty-dir"), miss = path("no-such-dir"), ok = path("ok.json");
  fs::create_directories(empty);
  auto expect_line = [&](const std::string& cmd, const std::string& line) {
    SCOPED_TRACE(cmd);
    const Result r = run(cmd, dir_);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(r.err, "steptp: error: " + line + "\n");
  };
  const std::string not_ds = "not a steptp dataset (no manifest.json; run `steptp generate`)";
  expect_line("eval " + empty + " --policy random --out " + path("e"), "D001 at " + empty + ": " + not_ds);
  expect_line("eval " + miss + " --policy random --out " + path("e"), "D001 at " + miss + ": no such dataset directory");
  expect_line("eval " + ok + " --policy random --out " + path("e"),
              "D001 at " + ok + ": not a directory (give the directory `steptp generate --out` wrote)");
  expect_line("search " + empty + " --algorithm greedy --policy random --out " + path("s"),
              "D001 at " + empty + ": " + not_ds);
  expect_line("audit " + empty, "D001 at " + empty + ": " + not_ds);
  expect_line("merge --out " + path("m") + " " + empty, "D004 at " + empty + ": shard is incomplete (no manifest.json)");
  expect_line("cost-model train " + empty + " -o " + path("cm.json"),
              "D002 at " + empty + "/archive/all.jsonl: the records file of a steptp generate output is missing");
  expect_line("report " + empty + " -o " + path("r.html"),
              "D005 at " + empty + ": not a steptp dataset, eval or search directory (expected manifest.json + "
              "stats.json, or summary.json of steptp eval or steptp search)");
  // a directory of shards that were never merged, and a manifest that is not JSON
  fs::create_directories(dir_ / "sharded" / "shards");
  expect_line("audit " + path("sharded"), "D004 at " + path("sharded") + ": no manifest.json; this holds shards: run "
                                          "`steptp merge --out " + path("sharded") + "` first");
  fs::create_directories(dir_ / "badmanifest");
  std::ofstream(dir_ / "badmanifest" / "manifest.json") << "{not json";
  expect_line("search " + path("badmanifest") + " --algorithm greedy --policy random --out " + path("s"),
              "D003 at " + path("badmanifest") + "/manifest.json: not a steptp manifest (not a JSON object)");
  EXPECT_FALSE(fs::exists(path("cm.json")));
  EXPECT_FALSE(fs::exists(path("r.html")));
  // usage: the misspelt flag is named even when a required argument is missing too; nested commands are located
  expect_line("apply --bogus", "U001 at `steptp apply`: unexpected argument(s) --bogus; task is required (see --help)");
  expect_line("cost-model train", "U001 at `steptp cost-model train`: dataset is required (see --help)");
  expect_line("nosuchcommand", "U001 at `steptp nosuchcommand`: unknown command (see `steptp --help`)");
  // flag values refused by CLI11's validators, and by the command after parsing (cli::usage_error,
  // EvalUsageError, SearchUsageError)
  expect_line("eval " + empty + " --policy random --samples 0 --out " + path("e"),
              "U001 at `steptp eval`: --samples: Value 0 not in range 1 to 1000000 (see --help)");
  expect_line("eval " + empty + " --policy replay --out " + path("e"),
              "U001 at `steptp eval`: --policy replay needs --replay FILE");
  expect_line("generate --timer sometimes --out " + path("g"), "U001 at `steptp generate`: --timer must be real or fixed");
  expect_line("search --out " + path("s"),
              "U001 at `steptp search`: give the roots: a dataset directory, --tasks FILE.jsonl or --workloads NAME...");
  expect_line("search --workloads ReLU --k -3 --out " + path("s"),
              "U001 at `steptp search`: --k must be at least 0 (0 picks the algorithm's default)");
  expect_line("search --workloads ReLU --patience 0 --out " + path("s"),
              "U001 at `steptp search`: --patience must be at least 1");
  expect_line("search --workloads ReLU --alpha-pw 1.5 --out " + path("s"),
              "U001 at `steptp search`: --alpha-pw must be in (0, 1]");
  EXPECT_FALSE(fs::exists(path("s") + "/summary.json"));
  expect_line("lower --target ptx " + ok, "U001 at `steptp lower`: --target: ptx not in {tir,c,cuda} (see --help)");
  expect_line("lower --target c --no-params " + ok,
              "U001 at `steptp lower`: --params and --no-params need --check (lowering itself does not use values)");
  // a --workloads selection that matches nothing: one line naming the rejected patterns, no dataset written
  expect_line("generate --workloads NoSuch --workloads Nope* --out " + path("gen-none"),
              "LEIR-E109 at NoSuch: unknown workload (see `steptp workloads list`); nothing to generate: every "
              "selected workload was rejected (NoSuch: unknown_workload; Nope*: unknown_workload)");
  EXPECT_FALSE(fs::exists(dir_ / "gen-none" / "manifest.json"));
}

// 2e8 interpreted statements: too slow for the ASan run, hence "Slow".
class HostileCliSlow : public HostileCli {};

TEST_F(HostileCliSlow, RaisedBudgetRunsAndReportsProgress) {
  // 2e8 executions: over the budget of 1e8 given here, under 3e8; progress lines every tenth.
  std::ofstream(dir_ / "mid.json") << task_json(
      "mid", "B^{2}_{tx=0}L^{10000}_{a=0}L^{10000}_{c=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx};];", 2);
  expect_refused("run --max-steps 100000000 " + path("mid.json"), "E309");
  const Result r = run("run --max-steps 300000000 " + path("mid.json"), dir_);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("statements=200000000"), std::string::npos) << r.out;
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 9u) << r.err;  // at 10%, 20%, ..., 90%
  EXPECT_EQ(lines[0].rfind("run: 10% (2e+07 of 2e+08 statement executions, ", 0), 0u) << lines[0];
}
