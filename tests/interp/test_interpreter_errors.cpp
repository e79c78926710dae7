// Runtime errors of the reference interpreter (LEIR.md §8, §12: E301-E307) and their messages.
#include <cmath>
#include <limits>

#include "interp_helpers.hpp"

namespace steptp::interp {
namespace {
using namespace testing;
using ir::DType;

TEST(InterpErrors, E301UninitialisedReadNamesBufferElementAndLoopValues) {
  auto t = make_task("L^{4}_{a=0}[C^{f32,g}_{a}=M^{f32,g}_{a};M^{f32,g}_{a}=A^{f32,g}_{a};];",
                     {in("A", {4}), out("C", {4})});
  std::string msg;
  EXPECT_EQ(run_error(t, {{"A", tensor({4}, {1, 2, 3, 4})}}, {}, &msg), "E301");
  EXPECT_NE(msg.find("LEIR-E301 at 13:"), std::string::npos) << msg;  // offset of the statement
  EXPECT_NE(msg.find("M[0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a=0"), std::string::npos) << msg;
}

TEST(InterpErrors, E302GatherOutOfBounds) {
  auto t = make_task("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{I^{i64,g}_{tx}};];",
                     {in("A", {10}), in("I", {4}, DType::I64), out("C", {4})});
  TensorMap inputs{{"A", tensor({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}, {"I", tensor({4}, {9, 0, 12, 1}, DType::I64)}};
  std::string msg;
  EXPECT_EQ(run_error(t, inputs, {}, &msg), "E302");
  EXPECT_NE(msg.find("index 12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("extent 10"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tx=2"), std::string::npos) << msg;
  // a valid gather runs
  inputs["I"] = tensor({4}, {9, 0, 3, 1}, DType::I64);
  expect_data(run(t, inputs).at("C"), {9, 0, 3, 1});
}

TEST(InterpErrors, E302GuardedReadOutOfBounds) {
  auto t = make_task("B^{4}_{tx=0}[C^{f32,g}_{tx}=if_then_else(tx<5,A^{f32,g}_{tx+1},0);];",
                     {in("A", {4}), out("C", {4})});
  std::string msg;
  EXPECT_EQ(run_error(t, {{"A", tensor({4}, {1, 2, 3, 4})}}, {}, &msg), "E302");
  EXPECT_NE(msg.find("tx=3"), std::string::npos) << msg;
}

TEST(InterpErrors, E303IntegerDivisionByZero) {
  auto t = make_task("B^{2}_{tx=0}[C^{i64,g}_{tx}=A^{i64,g}_{tx}//D^{i64,g}_{tx};];",
                     {in("A", {2}, DType::I64), in("D", {2}, DType::I64), out("C", {2}, DType::I64)});
  std::string msg;
  EXPECT_EQ(run_error(t, {{"A", tensor({2}, {5, 6}, DType::I64)}, {"D", tensor({2}, {1, 0}, DType::I64)}}, {}, &msg),
            "E303");
  EXPECT_NE(msg.find("tx=1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("computing C[1]"), std::string::npos) << msg;
  auto m = make_task("B^{2}_{tx=0}[C^{i64,g}_{tx}=A^{i64,g}_{tx}%D^{i64,g}_{tx};];",
                     {in("A", {2}, DType::I64), in("D", {2}, DType::I64), out("C", {2}, DType::I64)});
  EXPECT_EQ(run_error(m, {{"A", tensor({2}, {5, 6}, DType::I64)}, {"D", tensor({2}, {0, 1}, DType::I64)}}), "E303");
}

TEST(InterpErrors, E304InvalidFloatToIntConversion) {
  auto t = make_task("B^{2}_{tx=0}[C^{i64,g}_{tx}=A^{f32,g}_{tx};];", {in("A", {2}), out("C", {2}, DType::I64)});
  EXPECT_EQ(run_error(t, {{"A", tensor({2}, {1.5, std::numeric_limits<double>::quiet_NaN()})}}), "E304");
  EXPECT_EQ(run_error(t, {{"A", tensor({2}, {1.5, INFINITY})}}), "E304");
  auto r = make_task("B^{2}_{tx=0}[C^{i8,g}_{tx}=A^{f32,g}_{tx};];", {in("A", {2}), out("C", {2}, DType::I8)});
  EXPECT_EQ(run_error(r, {{"A", tensor({2}, {1.5, 300})}}), "E304");
  expect_data(run(r, {{"A", tensor({2}, {1.5, -128.9})}}).at("C"), {1, -128});
}

TEST(InterpErrors, E305OutputElementNeverWritten) {
  auto t = make_task("B^{9}_{tx=0}[C^{f32,g}_{tx*2}=0;];", {out("C", {17})});
  std::string msg;
  EXPECT_EQ(run_error(t, {}, {}, &msg), "E305");
  EXPECT_NE(msg.find("C[1]"), std::string::npos) << msg;
}

TEST(InterpErrors, E306ConflictBetweenParallelIterationsOnlyInCheckedMode) {
  auto t = make_task("P^{4}_{a=0}[X^{f32,g}_{a}=A^{f32,g}_{a};Y^{f32,g}_{a}=X^{f32,g}_{0};];",
                     {in("A", {4}), out("Y", {4})});
  TensorMap inputs{{"A", tensor({4}, {1, 2, 3, 4})}};
  expect_data(run(t, inputs).at("Y"), {1, 1, 1, 1});
  RunOptions checked;
  checked.checked = true;
  std::string msg;
  EXPECT_EQ(run_error(t, inputs, checked, &msg), "E306");
  EXPECT_NE(msg.find("X[0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a=1"), std::string::npos) << msg;
  // a reducing parallel loop is not a conflict; nor is a sequential loop
  auto ok = make_task("P^{4}_{a=0}[S^{f32,g}=S^{f32,g}+A^{f32,g}_{a};];", {in("A", {4}), out("S", {})});
  EXPECT_EQ(run_error(ok, inputs, checked), "");
  auto seq = make_task("L^{4}_{a=0}[X^{f32,g}_{a}=A^{f32,g}_{a};Y^{f32,g}_{a}=X^{f32,g}_{0};];",
                       {in("A", {4}), out("Y", {4})});
  EXPECT_EQ(run_error(seq, inputs, checked), "");
}

TEST(InterpErrors, E307LocalBufferReadAcrossIterationsOnlyInCheckedMode) {
  auto t = make_task("B^{4}_{tx=0}[O^{f32,l}_{tx}=A^{f32,g}_{tx};S^{f32,g}=S^{f32,g}+O^{f32,l}_{0};];",
                     {in("A", {4}), out("S", {})});
  TensorMap inputs{{"A", tensor({4}, {1, 2, 3, 4})}};
  // `tx` does not occur in the statement, so the initialiser fires in every iteration (W003): S = O[0]
  expect_data(run(t, inputs).at("S"), {1});
  RunOptions checked;
  checked.checked = true;
  std::string msg;
  EXPECT_EQ(run_error(t, inputs, checked, &msg), "E307");
  EXPECT_NE(msg.find("O[0]"), std::string::npos) << msg;
  // reading the same iteration's value is fine
  auto ok = make_task("B^{4}_{tx=0}[O^{f32,l}_{tx}=A^{f32,g}_{tx};S^{f32,g}=S^{f32,g}+O^{f32,l}_{tx};];",
                      {in("A", {4}), out("S", {})});
  EXPECT_EQ(run_error(ok, inputs, checked), "");
  expect_data(run(ok, inputs, checked).at("S"), {10});
}

TEST(InterpErrors, E307SharedBufferFollowsFirstBHeader) {
  // O is shared per block (bx, the first B header). bx is a reducing loop here (S_{tx} does not mention it), so
  // only E307 can fire.
  TensorMap inputs{{"A", tensor({2, 2}, {1, 2, 3, 4})}};
  RunOptions checked;
  checked.checked = true;
  auto ok = make_task(
      "B^{2}_{bx=0}B^{2}_{tx=0}[O^{f32,s}_{bx,tx}=A^{f32,g}_{bx,tx};S^{f32,g}_{tx}=S^{f32,g}_{tx}+O^{f32,s}_{bx,tx};];",
      {in("A", {2, 2}), out("S", {2})});
  EXPECT_EQ(run_error(ok, inputs, checked), "");
  expect_data(run(ok, inputs, checked).at("S"), {4, 6});
  auto bad = make_task(
      "B^{2}_{bx=0}B^{2}_{tx=0}[O^{f32,s}_{bx,tx}=A^{f32,g}_{bx,tx};S^{f32,g}_{tx}=S^{f32,g}_{tx}+O^{f32,s}_{0,tx};];",
      {in("A", {2, 2}), out("S", {2})});
  std::string msg;
  EXPECT_EQ(run_error(bad, inputs, checked, &msg), "E307");
  EXPECT_NE(msg.find("bx=1"), std::string::npos) << msg;
  expect_data(run(bad, inputs).at("S"), {1, 2});  // no reduction variable: the initialiser fires every time
}

TEST(InterpErrors, StepLimit) {
  auto t = make_task("B^{4}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];",
                     {in("A", {4, 4}), out("C", {4})});
  RunOptions lim;
  lim.max_steps = 10;
  EXPECT_EQ(run_error(t, {{"A", tensor({4, 4}, std::vector<double>(16, 1.0))}}, lim), "E308");
  lim.max_steps = 16;
  EXPECT_EQ(run_error(t, {{"A", tensor({4, 4}, std::vector<double>(16, 1.0))}}, lim), "");
}

TEST(InterpErrors, InvalidProgramThrowsAtConstruction) {
  auto t = make_task("B^{4}_{tx=0}[A^{f32,g}_{tx}=0;];", {in("A", {4}), out("C", {4})});
  EXPECT_THROW(Interpreter{t}, ir::LeirError);
}

}  // namespace
}  // namespace steptp::interp
