// `steptp workloads list|emit` end to end (exit codes 0/2, JSONL output, atomic -o).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "frontend/workloads.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"

using namespace steptp;

namespace {
struct CliRun {
  int rc;
  std::string out;
};
CliRun run_cli(const std::string& args) {
  std::string cmd = std::string(STEPTP_BINARY) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  int st = pclose(f);
  return {WEXITSTATUS(st), out};
}
}  // namespace

TEST(CliWorkloads, ListShowsEveryWorkload) {
  CliRun r = run_cli("workloads list");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("GroupNorm"), std::string::npos);
  EXPECT_NE(r.out.find("groups=8[1..64]"), std::string::npos);
  EXPECT_NE(r.out.find(std::to_string(frontend::workloads().size()) + " workloads"), std::string::npos);
}

TEST(CliWorkloads, EmitMatchesLibraryAndWritesFile) {
  auto dir = std::filesystem::temp_directory_path() / "steptp_cmd_workloads";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "gelu.jsonl").string();
  CliRun r = run_cli("workloads emit GELU --set batch=2 --set dim=3 -o " + path);
  ASSERT_EQ(r.rc, 0) << r.out;
  ir::Task t = ir::read_task_file(path);
  EXPECT_EQ(t.workload, "GELU");
  EXPECT_EQ(ir::print_program(t.program),
            "B^{2}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*0.5*(1+erf(A^{f32,g}_{tx,a}/sqrt(2)));];");
  CliRun s = run_cli("workloads emit cumsum --sample 3 --seed 5 --dtype f64");
  ASSERT_EQ(s.rc, 0) << s.out;
  EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 3);
  EXPECT_NE(s.out.find("\"dtype\": \"f64\""), std::string::npos);
  CliRun sm = run_cli("workloads emit Matmul3D --small");
  ASSERT_EQ(sm.rc, 0) << sm.out;
  EXPECT_NE(sm.out.find("\"shape\": [2, 8, 8]"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CliWorkloads, BadInputExitsTwo) {
  for (const char* args : {"workloads emit NoSuchWorkload", "workloads emit GELU --set nope=3",
                           "workloads emit GELU --set dim=x", "workloads emit GELU --set dim=0",
                           "workloads emit GELU --dtype c64", "workloads emit GroupNorm --set groups=7"}) {
    CliRun r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("steptp: error:"), std::string::npos) << args;
  }
}
