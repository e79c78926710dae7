// Hand-computed golden results of the reference interpreter (LEIR.md §8).
#include <cmath>
#include <limits>

#include "interp_helpers.hpp"

namespace steptp::interp {
namespace {
using namespace testing;
using ir::DType;

TEST(InterpGolden, SmallMatmul) {
  auto t = make_task("B^{2}_{tx=0}L^{2}_{a=0}L^{3}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];",
                     {in("A", {2, 3}), in("C", {3, 2}), out("D", {2, 2})});
  Interpreter it(t);
  auto o = it.run({{"A", tensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"C", tensor({3, 2}, {7, 8, 9, 10, 11, 12})}});
  expect_data(o.at("D"), {58, 64, 139, 154});
  EXPECT_EQ(o.at("D").shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(it.last_steps(), 12u);
}

TEST(InterpGolden, Softmax) {
  auto t = make_task(
      "B^{2}_{tx=0}L^{3}_{a=0}[M^{f32,g}_{tx}=max(M^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
      "B^{2}_{tx=0}L^{3}_{a=0}[S^{f32,g}_{tx}=S^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx});];"
      "B^{2}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx})/S^{f32,g}_{tx};];",
      {in("A", {2, 3}), out("D", {2, 3})});
  Interpreter it(t);
  auto o = it.run({{"A", tensor({2, 3}, {1, 2, 3, 0, 0, 0})}});
  expect_data(o.at("D"), {0.09003057317038046, 0.24472847105479764, 0.6652409557748218, 1.0 / 3, 1.0 / 3, 1.0 / 3},
              1e-15);
  EXPECT_EQ(it.last_steps(), 18u);
}

TEST(InterpGolden, SquareIsTheExactProduct) {
  // x**2 (any spelling of the literal 2) is x*x, one correctly rounded product (ir::is_square); x**3 is pow. For this
  // double glibc's pow(x, 2.0) is one ulp off x*x, so the test tells the two apart.
  const double x = -0x1.7acbe472662ddp+72;
  volatile double two = 2.0;  // keeps the compiler from folding pow(x, 2.0) into x*x
  ASSERT_NE(std::pow(x, static_cast<double>(two)), x * x) << "this libm rounds pow(x, 2) correctly here";
  auto t = make_task("B^{1}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}**2;D^{f64,g}_{tx}=A^{f64,g}_{tx}**(2.0);"
                     "E^{f64,g}_{tx}=A^{f64,g}_{tx}**3;];",
                     {in("A", {1}, DType::F64), out("C", {1}, DType::F64), out("D", {1}, DType::F64),
                      out("E", {1}, DType::F64)});
  auto o = run(t, {{"A", tensor({1}, {x}, DType::F64)}});
  EXPECT_EQ(o.at("C").data[0], x * x);
  EXPECT_EQ(o.at("D").data[0], x * x);
  volatile double three = 3.0;
  EXPECT_EQ(o.at("E").data[0], std::pow(x, static_cast<double>(three)));
}

TEST(InterpGolden, PaddedConv2d) {
  // 3x3 input, 3x3 kernel (ones, centre 2), zero padding 1: guarded reads outside the input are never evaluated.
  auto t = make_task(
      "B^{3}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}L^{3}_{d=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+if_then_else(1<=tx+c<4&1<=a+d<4,"
      "A^{f32,g}_{tx+c-1,a+d-1},0)*W^{f32,g}_{c,d};];",
      {in("A", {3, 3}), in("W", {3, 3}), out("D", {3, 3})});
  auto o = run(t, {{"A", tensor({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                   {"W", tensor({3, 3}, {1, 1, 1, 1, 2, 1, 1, 1, 1})}});
  expect_data(o.at("D"), {13, 23, 19, 31, 50, 39, 31, 47, 37});
}

TEST(InterpGolden, MaxPool2d) {
  auto t = make_task(
      "B^{2}_{tx=0}L^{2}_{a=0}L^{2}_{c=0}L^{2}_{d=0}[D^{f32,g}_{tx,a}=max(D^{f32,g}_{tx,a},A^{f32,g}_{tx*2+c,a*2+d});];",
      {in("A", {4, 4}), out("D", {2, 2})});
  auto o = run(t, {{"A", tensor({4, 4}, {1, 5, 2, 0, 3, -1, 7, 4, -2, -3, -9, -8, -4, -6, -5, -7})}});
  expect_data(o.at("D"), {5, 7, -2, -5});  // -inf start: all-negative windows stay negative
}

TEST(InterpGolden, ArgmaxWithTiesTakesLastMaximum) {
  // The corpus form: `>=` scanning upward keeps the last index of a tie.
  auto t = make_task(
      "B^{2}_{tx=0}L^{4}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});C^{i64,g}_{tx}=0;];"
      "B^{2}_{tx=0}L^{4}_{a=0}[C^{i64,g}_{tx}=if_then_else(A^{f32,g}_{tx,a}>=D^{f32,g}_{tx},a,C^{i64,g}_{tx});];",
      {in("A", {2, 4}), out("C", {2}, DType::I64)});
  auto o = run(t, {{"A", tensor({2, 4}, {1, 3, 3, 2, 5, 5, 5, 5})}});
  expect_data(o.at("C"), {2, 3});
  EXPECT_EQ(o.at("C").dtype, DType::I64);
}

TEST(InterpGolden, CumsumMaskedReduction) {
  auto t = make_task(
      "B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+if_then_else(c<=a,A^{f32,g}_{tx,c},0);];",
      {in("A", {2, 4}), out("C", {2, 4})});
  auto o = run(t, {{"A", tensor({2, 4}, {1, 2, 3, 4, -1, 0, 1, 2})}});
  expect_data(o.at("C"), {1, 3, 6, 10, -1, -1, 0, 2});
}

TEST(InterpGolden, PrefixRecurrenceWithGuardHasNoInitialiser) {
  auto t = make_task(
      "B^{2}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a}=if_then_else(a-1<0,0,C^{f32,g}_{tx,a-1})+A^{f32,g}_{tx,a};];",
      {in("A", {2, 4}), out("C", {2, 4})});
  auto o = run(t, {{"A", tensor({2, 4}, {1, 2, 3, 4, -1, 0, 1, 2})}});
  expect_data(o.at("C"), {1, 3, 6, 10, -1, -1, 0, 2});
  // running maximum with a -inf guard
  auto m = make_task(
      "B^{1}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a}=max(if_then_else(a-1<0,-inf,C^{f32,g}_{tx,a-1}),A^{f32,g}_{tx,a});];",
      {in("A", {1, 4}), out("C", {1, 4})});
  auto mo = run(m, {{"A", tensor({1, 4}, {-3, -5, -1, -2})}});
  expect_data(mo.at("C"), {-3, -3, -1, -1});
}

TEST(InterpGolden, CrossEntropyWithGather) {
  auto t = make_task(
      "B^{3}_{tx=0}L^{4}_{a=0}[F^{f32,g}_{tx}=max(F^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
      "B^{3}_{tx=0}L^{4}_{a=0}[G^{f32,g}_{tx}=G^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-F^{f32,g}_{tx});];"
      "B^{3}_{tx=0}L^{4}_{a=0}[E^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}-F^{f32,g}_{tx}-log(G^{f32,g}_{tx});];"
      "B^{4}_{tx=0}[H^{i64,g}_{tx}=if_then_else(tx!=-100,1,0);];"
      "B^{3}_{tx=0}[I^{f32,g}_{tx}=-H^{i64,g}_{C^{i64,g}_{tx}}*E^{f32,g}_{tx,C^{i64,g}_{tx}};];"
      "B^{3}_{tx=0}[J^{i64,g}=J^{i64,g}+H^{i64,g}_{C^{i64,g}_{tx}};];"
      "B^{3}_{tx=0}[D^{f32,g}=D^{f32,g}+I^{f32,g}_{tx}/J^{i64,g};];",
      {in("A", {3, 4}), in("C", {3}, DType::I64), out("D", {})});
  Interpreter it(t);
  auto o = it.run({{"A", tensor({3, 4}, {1, 2, 3, 4, 0, 0, 0, 0, 2, 0, 0, 0})}, {"C", tensor({3}, {3, 1, 0}, DType::I64)}});
  ASSERT_EQ(o.at("D").data.size(), 1u);
  EXPECT_NEAR(o.at("D").data[0], 0.7224123378647391, 1e-14);
  EXPECT_TRUE(o.at("D").shape.empty());
  EXPECT_EQ(it.last_steps(), 12u * 3 + 4 + 3 + 3 + 3);
}

TEST(InterpGolden, ZeroDimReduction) {
  auto t = make_task("B^{4}_{tx=0}[S^{f32,g}=S^{f32,g}+A^{f32,g}_{tx};];", {in("A", {4}), out("S", {})});
  auto o = run(t, {{"A", tensor({4}, {1, 2, 3, 4.5})}});
  expect_data(o.at("S"), {10.5});
}

// ---- accumulator initialisation (LEIR.md §8.4), one case each

TEST(InterpInit, ZeroForSumOverTwoReductionVariables) {
  auto t = make_task("B^{2}_{tx=0}L^{2}_{a=0}L^{2}_{c=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a,c};];",
                     {in("A", {2, 2, 2}), out("C", {2})});
  auto o = run(t, {{"A", tensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}});
  expect_data(o.at("C"), {10, 26});  // fires only when a = c = 0
}

TEST(InterpInit, OneForProduct) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}*A^{f32,g}_{tx,a};];",
                     {in("A", {2, 3}), out("C", {2})});
  auto o = run(t, {{"A", tensor({2, 3}, {1, 2, 3, -1, 0.5, 4})}});
  expect_data(o.at("C"), {6, -2});
}

TEST(InterpInit, OneForTrailingDivision) {
  auto t = make_task("B^{1}_{tx=0}L^{2}_{a=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,a}/C^{f32,g}_{tx};];",
                     {in("A", {1, 2}), out("C", {1})});
  auto o = run(t, {{"A", tensor({1, 2}, {2, 3})}});
  expect_data(o.at("C"), {1.5});  // 1 -> 2/1 -> 3/2
}

TEST(InterpInit, NegInfForMax) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx}=max(C^{f32,g}_{tx},A^{f32,g}_{tx,a});];",
                     {in("A", {2, 3}), out("C", {2})});
  auto o = run(t, {{"A", tensor({2, 3}, {-5, -7, -9, 1, 2, -3})}});
  expect_data(o.at("C"), {-5, 2});
}

TEST(InterpInit, PosInfForMin) {
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx}=min(C^{f32,g}_{tx},A^{f32,g}_{tx,a});];",
                     {in("A", {2, 3}), out("C", {2})});
  auto o = run(t, {{"A", tensor({2, 3}, {5, 7, 9, 1, 2, -3})}});
  expect_data(o.at("C"), {5, -3});
}

TEST(InterpInit, IntegerTypeMinAndMax) {
  auto mx = make_task("B^{1}_{tx=0}L^{3}_{a=0}[C^{i32,g}_{tx}=max(C^{i32,g}_{tx},A^{i32,g}_{tx,a});];",
                      {in("A", {1, 3}, DType::I32), out("C", {1}, DType::I32)});
  expect_data(run(mx, {{"A", tensor({1, 3}, {-5, -3, -7}, DType::I32)}}).at("C"), {-3});
  auto mn = make_task("B^{1}_{tx=0}L^{3}_{a=0}[C^{u8,g}_{tx}=min(C^{u8,g}_{tx},A^{u8,g}_{tx,a});];",
                      {in("A", {1, 3}, DType::U8), out("C", {1}, DType::U8)});
  expect_data(run(mn, {{"A", tensor({1, 3}, {200, 250, 201}, DType::U8)}}).at("C"), {200});
  // the identity itself is the type's extreme value: a max over one element of INT32_MIN stays INT32_MIN
  auto id = make_task("B^{1}_{tx=0}L^{1}_{a=0}[C^{i32,g}_{tx}=max(C^{i32,g}_{tx},A^{i32,g}_{tx,a});];",
                      {in("A", {1, 1}, DType::I32), out("C", {1}, DType::I32)});
  expect_data(run(id, {{"A", tensor({1, 1}, {-2147483648.0}, DType::I32)}}).at("C"), {-2147483648.0});
}

TEST(InterpInit, Rule2ContinuingUpdateAfterMatmul) {
  // the bias add updates D in place: no initialiser (an initialiser would fire every iteration here)
  auto t = make_task(
      "B^{2}_{tx=0}L^{2}_{a=0}L^{2}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];"
      "B^{2}_{tx=0}L^{2}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+Q^{f32,g}_{a};];",
      {in("A", {2, 2}), in("C", {2, 2}), in("Q", {2}), out("D", {2, 2})});
  auto o = run(t, {{"A", tensor({2, 2}, {1, 2, 3, 4})}, {"C", tensor({2, 2}, {5, 6, 7, 8})}, {"Q", tensor({2}, {100, 200})}});
  expect_data(o.at("D"), {119, 222, 143, 250});
}

TEST(InterpInit, FiresEveryIterationWithoutReductionVariables) {
  // W003: `a` does not occur in the statement, so the initialiser fires in every iteration
  auto t = make_task("B^{2}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx};];",
                     {in("A", {2}), out("C", {2})});
  expect_data(run(t, {{"A", tensor({2}, {4, 5})}}).at("C"), {4, 5});
}

// ---- evaluation rules (§8.2)

TEST(InterpEval, FloorDivisionAndModulo) {
  auto t = make_task(
      "B^{4}_{tx=0}[C^{i64,g}_{tx}=A^{i64,g}_{tx}//D^{i64,g}_{tx};E^{i64,g}_{tx}=A^{i64,g}_{tx}%D^{i64,g}_{tx};"
      "F^{f32,g}_{tx}=G^{f32,g}_{tx}//H^{f32,g}_{tx};I^{f32,g}_{tx}=G^{f32,g}_{tx}%H^{f32,g}_{tx};];",
      {in("A", {4}, DType::I64), in("D", {4}, DType::I64), in("G", {4}), in("H", {4}), out("C", {4}, DType::I64),
       out("E", {4}, DType::I64), out("F", {4}), out("I", {4})});
  auto o = run(t, {{"A", tensor({4}, {-7, 7, -7, 7}, DType::I64)},
                   {"D", tensor({4}, {2, -2, -2, 2}, DType::I64)},
                   {"G", tensor({4}, {-7.5, 7.5, -7, 7})},
                   {"H", tensor({4}, {2, -2, -2, 2})}});
  expect_data(o.at("C"), {-4, -4, 3, 3});
  expect_data(o.at("E"), {1, -1, -1, 1});
  expect_data(o.at("F"), {-4, -4, 3, 3});
  expect_data(o.at("I"), {0.5, -0.5, -1, 1});
}

TEST(InterpEval, NanPropagatingMaxAndLazyConditional) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto t = make_task(
      "B^{3}_{tx=0}[C^{f32,g}_{tx}=max(A^{f32,g}_{tx},0);D^{f32,g}_{tx}=if_then_else(A^{f32,g}_{tx},1,2);];",
      {in("A", {3}), out("C", {3}), out("D", {3})});
  auto o = run(t, {{"A", tensor({3}, {nan, -1, 0})}});
  EXPECT_TRUE(std::isnan(o.at("C").data[0]));
  EXPECT_EQ(o.at("C").data[1], 0);
  expect_data(o.at("D"), {1, 1, 2});  // NaN counts as true
}

TEST(InterpEval, ShortCircuitAvoidsOutOfBoundsGather) {
  // `&` short-circuits: the gather I[tx] is read only when tx < 2
  auto t = make_task("B^{4}_{tx=0}[C^{f32,g}_{tx}=if_then_else(tx<2&I^{i64,g}_{tx}>0,1.0,0.0);];",
                     {in("I", {4}, DType::I64), out("C", {4})});
  auto o = run(t, {{"I", tensor({4}, {1, 0, 5, 5}, DType::I64)}});
  expect_data(o.at("C"), {1, 0, 0, 0});
}

TEST(InterpEval, ComparisonChain) {
  auto t = make_task("B^{6}_{tx=0}[C^{f32,g}_{tx}=if_then_else(1<=tx<4,A^{f32,g}_{tx},-1.0);];",
                     {in("A", {6}), out("C", {6})});
  auto o = run(t, {{"A", tensor({6}, {10, 11, 12, 13, 14, 15})}});
  expect_data(o.at("C"), {-1, 11, 12, 13, -1, -1});
}

TEST(InterpEval, IntegerWrapAndConversionOnStore) {
  auto t = make_task(
      "B^{2}_{tx=0}[C^{i8,g}_{tx}=A^{i8,g}_{tx}+A^{i8,g}_{tx};D^{i32,g}_{tx}=F^{f32,g}_{tx};E^{bool,g}_{tx}=F^{f32,g}_{tx};];",
      {in("A", {2}, DType::I8), in("F", {2}), out("C", {2}, DType::I8), out("D", {2}, DType::I32),
       out("E", {2}, DType::Bool)});
  auto o = run(t, {{"A", tensor({2}, {100, -100}, DType::I8)}, {"F", tensor({2}, {-2.75, 0.0})}});
  expect_data(o.at("C"), {-56, 56});
  expect_data(o.at("D"), {-2, 0});
  expect_data(o.at("E"), {1, 0});
}

// ---- precision: default f64 vs typed (§8.2)

TEST(InterpTyped, F16AccumulationRoundsAfterEveryOperation) {
  auto t = make_task("B^{1}_{tx=0}L^{3}_{a=0}[C^{f16,g}_{tx}=C^{f16,g}_{tx}+A^{f16,g}_{tx,a};];",
                     {in("A", {1, 3}, DType::F16), out("C", {1}, DType::F16)});
  TensorMap inputs{{"A", tensor({1, 3}, {2048, 1, 1}, DType::F16)}};
  Interpreter it(t);
  RunOptions typed;
  typed.typed = true;
  expect_data(it.run(inputs, typed).at("C"), {2048});  // 2049 rounds to even (2048) twice
  expect_data(it.run(inputs).at("C"), {2050});         // f64: unrounded
}

TEST(InterpTyped, F16InputsAreRoundedInBothModes) {
  auto t = make_task("B^{1}_{tx=0}[C^{f16,g}_{tx}=A^{f16,g}_{tx}*3;];",
                     {in("A", {1}, DType::F16), out("C", {1}, DType::F16)});
  TensorMap inputs{{"A", tensor({1}, {0.1}, DType::F16)}};
  Interpreter it(t);
  RunOptions typed;
  typed.typed = true;
  const double a = 0.0999755859375;  // f16(0.1)
  expect_data(it.run(inputs).at("C"), {a * 3});
  expect_data(it.run(inputs, typed).at("C"), {0.2998046875});  // f16(3*a): 1228.5 ulps, a tie to even
}

TEST(InterpTyped, F32AndBf16) {
  auto t = make_task("B^{1}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}+D^{f32,g}_{tx};E^{bf16,g}_{tx}=F^{bf16,g}_{tx}+1;];",
                     {in("A", {1}), in("D", {1}), in("F", {1}, DType::BF16), out("C", {1}), out("E", {1}, DType::BF16)});
  TensorMap inputs{{"A", tensor({1}, {1})}, {"D", tensor({1}, {std::ldexp(1.0, -25)})},
                   {"F", tensor({1}, {256}, DType::BF16)}};
  Interpreter it(t);
  RunOptions typed;
  typed.typed = true;
  auto o = it.run(inputs, typed);
  expect_data(o.at("C"), {1});    // 1 + 2^-25 rounds to 1 in single precision
  expect_data(o.at("E"), {256});  // 257 is a tie in bf16: to even
  auto d = it.run(inputs);
  expect_data(d.at("C"), {1 + std::ldexp(1.0, -25)});
  expect_data(d.at("E"), {257});
}

}  // namespace
}  // namespace steptp::interp
