// TVMScript lowering (LEIR.md §10.1): golden files, determinism, the worked example, Python syntax, E401/E402.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "base/diag.hpp"
#include "ir/parser.hpp"
#include "lower/lower.hpp"
#include "lower_test_util.hpp"

namespace steptp {
namespace {

using testing::load_tasks;
using testing::lower_test_dir;

std::string golden_path(const ir::Task& t) { return lower_test_dir() + "/golden/" + t.workload + ".py"; }

ir::Task make_task(const std::string& leir, std::vector<ir::KnownBuffer> known) {
  ir::Task t;
  t.workload = "t";
  t.known = std::move(known);
  t.program = ir::parse_program(leir);
  return t;
}

TEST(LowerTir, GoldenFilesMatchAndAreDeterministic) {
  const auto tasks = load_tasks("golden/tasks.jsonl");
  ASSERT_GE(tasks.size(), 15u);
  const bool update = std::getenv("STEPTP_UPDATE_GOLDEN") != nullptr;
  for (const auto& t : tasks) {
    SCOPED_TRACE(t.workload);
    const std::string a = lower::lower_tir(t), b = lower::lower_tir(t);
    EXPECT_EQ(a, b) << "not byte-identical across runs";
    if (update) ir::write_file_atomic(golden_path(t), a);
    EXPECT_EQ(a, ir::read_file(golden_path(t)));
  }
}

TEST(LowerTir, WorkedExampleOfSpecMatchesExactly) {
  const std::string spec = ir::read_file(std::string(STEPTP_SOURCE_DIR) + "/docs/LEIR.md");
  const auto start = spec.find("```python\n");
  ASSERT_NE(start, std::string::npos);
  const auto body = start + 10;
  const std::string expected = spec.substr(body, spec.find("```", body) - body);
  ir::Task t = make_task(
      "B^{16}_{tx=0}L^{32}_{a=0}[M^{f32,g}_{tx}=max(M^{f32,g}_{tx},A^{f32,g}_{tx,a});];B^{16}_{tx=0}L^{32}_{a=0}[C^{f32,g}_{"
      "tx,a}=exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx})*0.5;];",
      {{"A", ir::Role::Input, ir::DType::F32, {16, 32}}, {"C", ir::Role::Output, ir::DType::F32, {16, 32}}});
  EXPECT_EQ(lower::lower_tir(t), expected);
  EXPECT_EQ(ir::read_file(lower_test_dir() + "/golden/worked_example.py"), expected);
}

TEST(LowerTir, EveryGoldenIsValidPython) {
  std::string out;
  if (testing::run_command("python3 -c 'pass'") != 0) GTEST_SKIP() << "python3 not available";
  // one interpreter for all files (python3 start-up dominates): ast.parse of each golden
  std::string cmd = "python3 -c \"import ast,sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)\"";
  for (const auto& t : load_tasks("golden/tasks.jsonl")) cmd += " '" + golden_path(t) + "'";
  EXPECT_EQ(testing::run_command(cmd, &out), 0) << out;
  // and a broken file is detected by the same command
  const std::string bad = ::testing::TempDir() + "bad_golden.py";
  ir::write_file_atomic(bad, "def main(:\n");
  EXPECT_NE(testing::run_command("python3 -c \"import ast,sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)\" '" +
                                     bad + "'"),
            0);
}

TEST(LowerTir, SpecificForms) {
  const auto tasks = load_tasks("golden/tasks.jsonl");
  auto text = [&](const std::string& w) {
    for (const auto& t : tasks)
      if (t.workload == w) return lower::lower_tir(t);
    return std::string();
  };
  // every loop kind; reducing P and V become serial
  const std::string lk = text("loop_kinds");
  EXPECT_NE(lk.find("for a in T.parallel(4):\n            for c in T.vectorized(8):"), std::string::npos);
  EXPECT_NE(lk.find("for a in T.serial(4):\n            for c in T.unroll(8):"), std::string::npos);
  EXPECT_NE(lk.find("for a in T.parallel(4):\n            for c in T.serial(8):"), std::string::npos);
  EXPECT_NE(lk.find("for unit_tx in T.thread_binding(1, thread=\"threadIdx.x\"):"), std::string::npos);
  // gather regions and the 0-d buffers
  const std::string ce = text("cross_entropy");
  EXPECT_NE(ce.find("T.reads(H[0:10], C[v_tx], E[v_tx, 0:10])"), std::string::npos);
  EXPECT_NE(ce.find("J[()] = T.int64(0)"), std::string::npos);
  // differing occurrences: T.min/T.max region
  const std::string ls = text("local_shared");
  EXPECT_NE(ls.find("O[v_tx, T.min(v_a, 7 - v_a):T.max(v_a, 7 - v_a) + 1]"), std::string::npos);
  EXPECT_NE(ls.find("scope=\"shared\""), std::string::npos);
  EXPECT_NE(ls.find("scope=\"local\""), std::string::npos);
  EXPECT_NE(ls.find("thread=\"blockIdx.x\""), std::string::npos);
  // grid of consecutive L headers; CPU mode drops the unit_tx wrapper
  EXPECT_NE(text("math_funcs").find("for a, c in T.grid(3, 4):"), std::string::npos);
  for (const auto& t : tasks)
    if (t.workload == "no_bound_loop") {
      EXPECT_EQ(lower::lower_tir(t, false).find("unit_tx"), std::string::npos);
    }
}

TEST(LowerTir, BlockNamesGetSuffixes) {
  ir::Task t = make_task("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];B^{4}_{tx=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}*2;];"
                         "B^{4}_{tx=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+1;];",
                         {{"A", ir::Role::Input, ir::DType::F32, {4}}, {"C", ir::Role::Output, ir::DType::F32, {4}}});
  const std::string s = lower::lower_tir(t);
  EXPECT_NE(s.find("T.block(\"C\")"), std::string::npos);
  EXPECT_NE(s.find("T.block(\"C_1\")"), std::string::npos);
  EXPECT_NE(s.find("T.block(\"C_2\")"), std::string::npos);
  // read-modify-write without initialiser keeps the self-read
  EXPECT_NE(s.find("T.reads(C[v_tx])\n            T.writes(C[v_tx])\n            C[v_tx] = C[v_tx] * T.float32(2)"),
            std::string::npos);
}

std::string error_code(const ir::Task& t, bool cuda = false) {
  try {
    if (cuda) lower::lower_cuda(t);
    else lower::lower_tir(t);
  } catch (const ir::LeirError& e) {
    return e.code();
  }
  return "";
}

TEST(LowerTir, LaunchLimitsE401) {
  auto k = [](std::int64_t n) {
    return std::vector<ir::KnownBuffer>{{"A", ir::Role::Input, ir::DType::F32, {n}},
                                        {"C", ir::Role::Output, ir::DType::F32, {n}}};
  };
  EXPECT_EQ(error_code(make_task("B^{2048}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];", k(2048))), "E401");
  EXPECT_EQ(error_code(make_task("B^{1024}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];", k(1024))), "");
  EXPECT_EQ(error_code(make_task("B^{128}_{tz=0}[C^{f32,g}_{tz}=A^{f32,g}_{tz};];", k(128))), "E401");
  EXPECT_EQ(error_code(make_task("B^{70000}_{by=0}[C^{f32,g}_{by}=A^{f32,g}_{by};];", k(70000))), "E401");
  EXPECT_EQ(error_code(make_task("B^{70000}_{bx=0}[C^{f32,g}_{bx}=A^{f32,g}_{bx};];", k(70000))), "");
  // 64 x 32 = 2048 threads per block
  ir::Task t = make_task("B^{64}_{tx=0}B^{32}_{ty=0}[C^{f32,g}_{tx,ty}=A^{f32,g}_{tx,ty};];",
                         {{"A", ir::Role::Input, ir::DType::F32, {64, 32}}, {"C", ir::Role::Output, ir::DType::F32, {64, 32}}});
  EXPECT_EQ(error_code(t), "E401");
  EXPECT_EQ(error_code(t, true), "E401");
}

TEST(LowerTir, ReducingBoundLoopE402) {
  const std::vector<ir::KnownBuffer> k{{"A", ir::Role::Input, ir::DType::F32, {16}},
                                       {"C", ir::Role::Output, ir::DType::F32, {}}};
  // S is written before, so the reduction over tx has no initialiser: TVM cannot reduce it
  EXPECT_EQ(error_code(make_task("B^{1}_{tx=0}[S^{f32,g}=0;];B^{16}_{tx=0}[S^{f32,g}=S^{f32,g}+A^{f32,g}_{tx};];"
                                 "B^{1}_{tx=0}[C^{f32,g}=S^{f32,g};];", k)),
            "E402");
  // an initialised reduction over tx is fine
  EXPECT_EQ(error_code(make_task("B^{16}_{tx=0}[S^{f32,g}=S^{f32,g}+A^{f32,g}_{tx};];B^{1}_{tx=0}[C^{f32,g}=S^{f32,g};];", k)),
            "");
}

TEST(LowerTir, CorpusLowersWithoutErrors) {
  int lowered = 0, invalid = 0;
  for (auto& r : ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl")) {
    ASSERT_TRUE(r.ok);
    try {
      const std::string s = lower::lower_tir(r.task);
      EXPECT_EQ(s.rfind("from tvm.script import tir as T\n\n@T.prim_func\ndef main(", 0), 0u);
      ++lowered;
    } catch (const ir::LeirError& e) {
      EXPECT_EQ(e.code(), "E203") << r.task.workload << ": " << e.what();  // the 8 MQA tasks of LEIR.md §14
      ++invalid;
    }
  }
  EXPECT_EQ(lowered, 81);
  EXPECT_EQ(invalid, 8);
}

}  // namespace
}  // namespace steptp
