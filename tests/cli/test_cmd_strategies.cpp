// CLI tests: `steptp strategies list` and `steptp apply`.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace {

struct CliRun {
  int rc = -1;
  std::string out, err;
};

CliRun run(const std::string& args) {
  const std::string err_path = ::testing::TempDir() + "cli_strategies_stderr_" + std::to_string(getpid()) + ".txt";
  std::string cmd = std::string(STEPTP_BINARY) + " " + args + " 2>" + err_path;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream ef(err_path);
  std::stringstream ss;
  ss << ef.rdbuf();
  r.err = ss.str();
  return r;
}

std::string write_tmp(const std::string& name, const std::string& content) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << content;
  return path;
}

const char* kGemmTask =
    R"({"workload": "Gemm", "suite": "unit", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [8, 6]}, )"
    R"({"name": "E", "role": "input", "dtype": "f32", "shape": [6, 4]}, {"name": "D", "role": "output", "dtype": "f32", "shape": [8, 4]}], )"
    R"("leir": "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*E^{f32,g}_{c,a};];"})";

}  // namespace

TEST(CliStrategies, ListShowsAll43InCanonicalOrderWithFamilyAndClass) {
  CliRun r = run("strategies list");
  ASSERT_EQ(r.rc, 0);
  std::istringstream in(r.out);
  std::string line;
  int expect = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(line.substr(0, line.find('\t')), std::to_string(expect)) << line;
    ++expect;
  }
  EXPECT_EQ(expect, 43);
  EXPECT_NE(r.out.find("23\tfactorization\talgebraic\tR\tFactor a polynomial sub-expression"), std::string::npos);
  EXPECT_NE(r.out.find("25\tcancellation\talgebraic\tD\t"), std::string::npos);
  EXPECT_NE(r.out.find("29\tpowsimp\talgebraic\tR/D\t"), std::string::npos);
  EXPECT_NE(r.out.find("38\tmultiplicative_split\talgebraic\tD\t"), std::string::npos);
}

TEST(CliStrategies, ApplyDomainPolicyProveOrGuard) {
  // (A*A-D*D)/(A-D): cancelling A-D needs A-D != 0, which sign analysis cannot prove for unranged inputs.
  const std::string task = write_tmp(
      "cli_domain_policy.json",
      R"({"workload": "q", "suite": "unit", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [8]}, )"
      R"({"name": "D", "role": "input", "dtype": "f32", "shape": [8]}, {"name": "C", "role": "output", "dtype": "f32", "shape": [8]}], )"
      R"("leir": "B^{8}_{tx=0}[C^{f32,g}_{tx}=(A^{f32,g}_{tx}*A^{f32,g}_{tx}-D^{f32,g}_{tx}*D^{f32,g}_{tx})/(A^{f32,g}_{tx}-D^{f32,g}_{tx});];"})");
  CliRun prove = run("apply --strategy cancellation " + task);
  EXPECT_EQ(prove.rc, 0);
  EXPECT_TRUE(prove.out.empty());
  EXPECT_NE(prove.err.find("0 candidate(s)"), std::string::npos);
  CliRun guard = run("apply --strategy cancellation --domain-policy guard --verify " + task);
  ASSERT_EQ(guard.rc, 0) << guard.err;
  auto j = nlohmann::json::parse(guard.out);
  EXPECT_EQ(j["class"], "D");
  EXPECT_EQ(j["equivalence"]["equivalent"], true);
  EXPECT_EQ(j["task"]["leir"],
            "B^{8}_{tx=0}[C^{f32,g}_{tx}=if_then_else(A^{f32,g}_{tx}-D^{f32,g}_{tx}!=0,A^{f32,g}_{tx}+D^{f32,g}_{tx},"
            "(A^{f32,g}_{tx}*A^{f32,g}_{tx}-D^{f32,g}_{tx}*D^{f32,g}_{tx})/(A^{f32,g}_{tx}-D^{f32,g}_{tx}));];");
  EXPECT_EQ(run("apply --strategy cancellation --domain-policy maybe " + task).rc, 2);
}

TEST(CliStrategies, ListShowsCanonicalLoopEntries) {
  CliRun r = run("strategies list");
  ASSERT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("11\tloop_split\tloop\tE\tSplit one loop into an outer and an inner loop"), std::string::npos);
  EXPECT_NE(r.out.find("17\treduction_factorization\tloop\tE/R\t"), std::string::npos);
}

TEST(CliStrategies, ApplyWritesOneRecordPerCandidate) {
  std::string task = write_tmp("gemm_task.json", kGemmTask);
  std::string out = ::testing::TempDir() + "split_out.jsonl";
  CliRun r = run("apply --strategy loop_split " + task + " -o " + out);
  ASSERT_EQ(r.rc, 0);
  std::ifstream in(out);
  std::string line;
  std::vector<nlohmann::json> recs;
  while (std::getline(in, line)) recs.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(recs.size(), 5u);
  EXPECT_EQ(recs[3]["candidate"], "loop_split@0/l2{outer=2}");
  EXPECT_EQ(recs[3]["class"], "E");
  EXPECT_EQ(recs[3]["params"]["outer"], 2);
  EXPECT_EQ(recs[3]["task"]["leir"],
            "B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{d=0}L^{3}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,d*3+c}*"
            "E^{f32,g}_{d*3+c,a};];");
  EXPECT_EQ(recs[3]["facts"]["new_key"], "d");
  // Sampling: --max 2 --seed 7 is deterministic and a subset in enumeration order.
  CliRun s1 = run("apply --strategy loop_split " + task + " --max 2 --seed 7");
  CliRun s2 = run("apply --strategy loop_split " + task + " --max 2 --seed 7");
  ASSERT_EQ(s1.rc, 0);
  EXPECT_EQ(s1.out, s2.out);
  EXPECT_EQ(std::count(s1.out.begin(), s1.out.end(), '\n'), 2);
}

TEST(CliStrategies, ApplyVerifyRecordsEquivalence) {
  std::string task = write_tmp("gemm_task3.json", kGemmTask);
  CliRun r = run("apply --strategy reduction_factorization " + task + " --verify");
  ASSERT_EQ(r.rc, 0);
  std::istringstream in(r.out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    auto rec = nlohmann::json::parse(line);
    EXPECT_EQ(rec["class"], "R");
    EXPECT_EQ(rec["equivalence"]["equivalent"], true) << line;
    ++n;
  }
  EXPECT_EQ(n, 5);  // r = c, v = 1..5
}

TEST(CliStrategies, BadInputExitsTwo) {
  std::string bad = write_tmp("bad_task.json",
                              R"({"workload": "x", "suite": "y", "known": [{"name": "C", "role": "output", "dtype": "f32", "shape": [4]}], "leir": "B^{4}_{tx=0}[C^{f32,g}_{tx}=M^{f32,g}_{tx};];"})");
  EXPECT_EQ(run("apply --strategy loop_split " + bad).rc, 2);
  std::string task = write_tmp("gemm_task2.json", kGemmTask);
  EXPECT_EQ(run("apply --strategy no_such " + task).rc, 2);
}

// `apply --candidate ID`: exactly one candidate; a stale site or malformed id exits 2 with the StrategyError code
// on one line (issue #12), never a crash.
TEST(CliStrategies, ApplyOneCandidateByIdAndRejectStaleOnes) {
  std::string task = write_tmp("gemm_task_cand.json", kGemmTask);
  CliRun ok = run("apply --candidate 'loop_split@0/l2{outer=2}' " + task);
  ASSERT_EQ(ok.rc, 0) << ok.err;
  auto rec = nlohmann::json::parse(ok.out);
  EXPECT_EQ(rec["candidate"], "loop_split@0/l2{outer=2}");
  EXPECT_EQ(rec["task"]["leir"],
            "B^{8}_{tx=0}L^{4}_{a=0}L^{2}_{d=0}L^{3}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,d*3+c}*"
            "E^{f32,g}_{d*3+c,a};];");
  struct Bad {
    const char* id;
    const char* code;
  };
  for (const Bad& b : {Bad{"loop_split@0/l9{outer=2}", "S001"}, Bad{"loop_split@3{outer=2}", "S001"},
                       Bad{"loop_split@0/l2{outer=5}", "S002"}, Bad{"loop_split@@", "S002"},
                       Bad{"operator_fusion@0{demote=keep}", "S001"}}) {
    CliRun r = run(std::string("apply --candidate '") + b.id + "' " + task);
    EXPECT_EQ(r.rc, 2) << b.id;
    EXPECT_NE(r.err.find(b.code), std::string::npos) << b.id << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_EQ(run("apply --strategy loop_tiling --candidate 'loop_split@0/l2{outer=2}' " + task).rc, 2);
  EXPECT_EQ(run("apply " + task).rc, 2);
  CliRun empty = run("apply --candidate '' " + task);  // an empty id is S002, not "give --candidate"
  EXPECT_EQ(empty.rc, 2);
  EXPECT_NE(empty.err.find("S002 empty candidate id"), std::string::npos) << empty.err;
  // --max counts candidates: 0 and negative values are errors, not "all" (newcomer finding)
  EXPECT_EQ(run("apply --strategy loop_split " + task + " --max 0").rc, 2);
  EXPECT_EQ(run("apply --strategy loop_split " + task + " --max -3").rc, 2);
}
