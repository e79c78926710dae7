// `steptp check`: one line per task, exit 0/1/2 (src/cli/cmd_check.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {
struct Result {
  int rc = -1;
  std::string out;
};
Result run(const std::string& args) {
  Result r;
  const std::string cmd = std::string(STEPTP_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}
std::string temp_file(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / ("steptp_check_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << content;
  return path.string();
}
}  // namespace

TEST(CliCheck, CorpusFailsOnTheEightMqaTasks) {
  Result r = run("check " + std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("1: Matmul3D: ok\n"), std::string::npos);
  EXPECT_NE(r.out.find("32: cumsum_exclusive: ok (1 warning)\n"), std::string::npos);
  EXPECT_NE(r.out.find("59: Conv3d_Scaling_Tanh_Multiply_Sigmoid: ok (2 warnings)\n"), std::string::npos);
  EXPECT_NE(r.out.find("78: MQA: LEIR-E203 at 1509: dtype i32 of O disagrees with its first occurrence (f64)\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("81 of 89 task(s) valid\n"), std::string::npos);
}

TEST(CliCheck, ValidFileExitsZeroAndBadLinesFail) {
  const std::string ok =
      R"({"workload": "w", "suite": "s", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [4]}, )"
      R"({"name": "C", "role": "output", "dtype": "f32", "shape": [4]}], "leir": "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*2;];"})";
  Result r = run("check " + temp_file("ok.jsonl", ok + "\n"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "1: w: ok\n1 of 1 task(s) valid\n");
  // A second line that is JSON but not a valid task (missing "leir"): the check fails (exit 1), not bad input.
  Result r2 = run("check " + temp_file("mixed.jsonl", ok + "\n{\"workload\": \"x\"}\n"));
  EXPECT_EQ(r2.rc, 1) << r2.out;
  EXPECT_NE(r2.out.find("2: x: LEIR-E101"), std::string::npos) << r2.out;
  // Malformed LEIR in a well-formed task line: the workload is still named, with the offset.
  std::string broken = ok;
  broken.replace(broken.find("*2;]"), 4, "*2;");
  Result r3 = run("check " + temp_file("broken.jsonl", broken + "\n[1]\n"));
  EXPECT_EQ(r3.rc, 1) << r3.out;
  EXPECT_NE(r3.out.find("1: w: LEIR-E"), std::string::npos) << r3.out;
  EXPECT_NE(r3.out.find("2: ?: LEIR-E101"), std::string::npos) << r3.out;
}

TEST(CliCheck, UnreadableOrNonJsonFileExitsTwo) {
  Result r = run("check /nonexistent/steptp/file.jsonl");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("steptp: error: LEIR-E108 at /nonexistent/steptp/file.jsonl: cannot read file: No such file or "
                       "directory"),
            std::string::npos) << r.out;
  const std::string dir = std::filesystem::temp_directory_path().string();
  Result rd = run("check " + dir);
  EXPECT_EQ(rd.rc, 2);
  EXPECT_NE(rd.out.find("LEIR-E108 at " + dir + ": cannot read file: is a directory"), std::string::npos) << rd.out;
  Result r2 = run("check " + temp_file("garbage.jsonl", "this is not json\nnor this\n"));
  EXPECT_EQ(r2.rc, 2) << r2.out;
  EXPECT_NE(r2.out.find("LEIR-E101 at "), std::string::npos) << r2.out;
  EXPECT_NE(r2.out.find("not JSONL"), std::string::npos) << r2.out;
  // a truncated single-task file: the line's own parse error says where (like `run` on the same file)
  Result r3 = run("check " + temp_file("truncated.json", "{\"workload\": \"x\", \"leir\": "));
  EXPECT_EQ(r3.rc, 2) << r3.out;
  EXPECT_NE(r3.out.find("not JSONL (no line is a JSON value; line 1: malformed JSON: "), std::string::npos) << r3.out;
  EXPECT_NE(r3.out.find("column 27"), std::string::npos) << r3.out;
  // bare LEIR text in a .leir file: the error says what a task is
  Result r4 = run("check " + temp_file("bare.leir", "L^{4}_{a=0}[B^{f32,g}_{a}=A^{f32,g}_{a}*2.0;];\n"));
  EXPECT_EQ(r4.rc, 2) << r4.out;
  EXPECT_NE(r4.out.find("this is bare LEIR text: a task is a JSON object"), std::string::npos) << r4.out;
}
