// `steptp run` and `steptp equiv` end to end (exit codes 0/1/2, printed summaries).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "../interp/interp_helpers.hpp"
#include "frontend/params_sidecar.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {
using namespace steptp::interp::testing;

struct Result {
  int rc;
  std::string out;
};
Result sh(const std::string& args) {
  const std::string cmd = std::string(STEPTP_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int st = p ? pclose(p) : -1;
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

std::string write_task(const std::string& name, const std::string& leir, std::vector<ir::KnownBuffer> known) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "steptp_cli_run_equiv";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  ir::write_file_atomic(path, ir::task_to_json(make_task(leir, std::move(known))) + "\n");
  return path;
}

const char* kMm = "B^{2}_{tx=0}L^{2}_{a=0}L^{4}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];";
std::vector<ir::KnownBuffer> mm_known() { return {in("A", {2, 4}), in("C", {4, 2}), out("D", {2, 2})}; }

TEST(CliRun, PrintsOutputsAndStatementCount) {
  const auto f = write_task("mm.json", kMm, mm_known());
  auto r = sh("run " + f + " --seed 1 --dist U");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("D f32 [2,2] checksum="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("statements=16"), std::string::npos) << r.out;
  // U inputs lie in [0.5, 1.5]: every dot product of length 4 lies in [1, 9]
  auto typed = sh("run " + f + " --typed");
  EXPECT_EQ(typed.rc, 0) << typed.out;
  EXPECT_NE(typed.out.find("typed mode"), std::string::npos) << typed.out;
}

TEST(CliRun, RuntimeErrorExitsOneAndBadInputTwo) {
  const auto f = write_task("uninit.json", "L^{4}_{a=0}[C^{f32,g}_{a}=M^{f32,g}_{a};M^{f32,g}_{a}=A^{f32,g}_{a};];",
                            {in("A", {4}), out("C", {4})});
  auto r = sh("run " + f);
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("LEIR-E301"), std::string::npos) << r.out;
  EXPECT_EQ(sh("run /nonexistent/task.json").rc, 2);
  EXPECT_EQ(sh("run " + f + " --dist X").rc, 2);
}

TEST(CliEquiv, VerdictsAndExitCodes) {
  const auto a = write_task("a.json", kMm, mm_known());
  const auto split = write_task(
      "split.json",
      "B^{2}_{tx=0}L^{2}_{a=0}L^{2}_{c=0}L^{2}_{d=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c*2+d}*"
      "C^{f32,g}_{c*2+d,a};];",
      mm_known());
  const auto wrong = write_task(
      "wrong.json",
      "B^{2}_{tx=0}L^{2}_{a=0}L^{3}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];",
      mm_known());
  auto ok = sh("equiv " + a + " " + split);
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("equivalent"), std::string::npos) << ok.out;
  auto bad = sh("equiv " + a + " " + wrong);
  EXPECT_EQ(bad.rc, 1) << bad.out;
  EXPECT_NE(bad.out.find("LEIR-E504"), std::string::npos) << bad.out;
  auto js = sh("equiv --json " + a + " " + wrong);
  EXPECT_EQ(js.rc, 1) << js.out;
  EXPECT_NE(js.out.find("\"code\":\"E504\""), std::string::npos) << js.out;
  EXPECT_EQ(sh("equiv " + a + " /nonexistent.json").rc, 2);
}


// A task's stored weights (TASK.params.bin beside TASK.json, issue #14) are used by run, equiv, apply --verify and
// lower --check unless --no-params; --params names another file; a misfit or corrupt file exits 2 naming it.
TEST(CliParams, StoredWeightsAreUsedEverywhere) {
  const std::vector<ir::KnownBuffer> k{in("A", {2, 2}), kb("W", ir::Role::Param, {2, 2}), out("D", {2, 2})};
  // D = 2*W + 0*A: with W = {1,2,3,4} the checksum is 20 whatever A holds.
  const auto f = write_task("w.json", "B^{2}_{tx=0}L^{2}_{a=0}[D^{f32,g}_{tx,a}=W^{f32,g}_{tx,a}*2+A^{f32,g}_{tx,a}*0;];", k);
  const auto g = write_task("w2.json", "B^{2}_{tx=0}L^{2}_{a=0}[D^{f32,g}_{tx,a}=W^{f32,g}_{tx,a}+W^{f32,g}_{tx,a}+A^{f32,g}_{tx,a}*0;];", k);
  const auto h = write_task("w3.json", "B^{2}_{tx=0}L^{2}_{a=0}[D^{f32,g}_{tx,a}=W^{f32,g}_{tx,a}*W^{f32,g}_{tx,a}+W^{f32,g}_{tx,a}+A^{f32,g}_{tx,a}*0;];", k);
  interp::TensorMap w;
  w["W"] = tensor({2, 2}, {1, 2, 3, 4});
  frontend::write_params_sidecar(frontend::params_sidecar_path(f), w);
  auto r = sh("run " + f);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("D f32 [2,2] checksum=20 min=2 max=8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 buffer(s) hold their stored values"), std::string::npos) << r.out;
  r = sh("run " + f + " --no-params");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("checksum=20 "), std::string::npos) << r.out;
  // 2W == W+W for any W; 2W == W*W+W only where W is 1 or 0: equal on W = {1,1,1,1}, not on drawn W.
  EXPECT_EQ(sh("equiv " + f + " " + g).rc, 0);
  w["W"] = tensor({2, 2}, {1, 1, 1, 1});
  const std::string ones = f + ".ones.bin";
  frontend::write_params_sidecar(ones, w);
  EXPECT_EQ(sh("equiv " + f + " " + h + " --params " + ones).rc, 0);
  EXPECT_EQ(sh("equiv " + f + " " + h + " --no-params").rc, 1);
  EXPECT_EQ(sh("equiv " + f + " " + h).rc, 1);  // W = {1,2,3,4}: 2*3 != 3*3+3
  r = sh("lower --target c --check " + f);
  EXPECT_EQ(r.rc, 0) << r.out;
  // misfits and corruption
  w["W"] = tensor({4}, {1, 2, 3, 4});
  const std::string bad = f + ".bad.bin";
  frontend::write_params_sidecar(bad, w);
  r = sh("run " + f + " --params " + bad);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find(bad + ": params: W: shape [4] but the task declares [2,2]"), std::string::npos) << r.out;
  // A sidecar without the task's weights: the run draws them and says so.
  frontend::write_params_sidecar(bad, interp::TensorMap{});
  r = sh("run " + f + " --params " + bad);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("has no values for 1 param/constant buffer(s) of the task; they are drawn"), std::string::npos)
      << r.out;
  ir::write_file_atomic(bad, "STEPTPPBgarbage");
  r = sh("lower --target c --check " + f + " --params " + bad);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find(bad), std::string::npos) << r.out;
  EXPECT_EQ(sh("run " + f + " --params /nonexistent.bin").rc, 2);
}

}  // namespace
}  // namespace steptp::cli
