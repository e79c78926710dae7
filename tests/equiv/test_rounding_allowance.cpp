// Rounding allowance of LEIR.md §11 step 4b (as amended for issue #14) and given (fixed) input values.
#include <cmath>
#include <string>

#include "equiv/compare.hpp"
#include "equiv/equivalence.hpp"
#include "interp/interp_helpers.hpp"

namespace steptp::equiv {
namespace {
using namespace interp::testing;
using interp::RunOptions;

TEST(RoundingAllowance, HandComputed) {
  // errors 0, 0.5, 0.3, 0 -> rho = RMS over the changed elements = sqrt((0.25 + 0.09) / 2) = 0.41231056;
  // allowance = 4 * max(e_i, rho)
  const auto a = rounding_allowance({1.0, 2.0, 3.0, 4.0}, {1.0, 2.5, 3.3, 4.0});
  ASSERT_EQ(a.size(), 4u);
  const double rho = std::sqrt(0.17);
  EXPECT_NEAR(a[0], 4 * rho, 1e-12);
  EXPECT_DOUBLE_EQ(a[1], 2.0);
  EXPECT_NEAR(a[2], 4 * rho, 1e-12);
  EXPECT_NEAR(a[3], 4 * rho, 1e-12);
}

TEST(RoundingAllowance, RoundingLevelIsKappaTimesTheRmsOverChangedFinitePairs) {
  // the same errors as above: 4 * rho, one value for the whole output
  EXPECT_NEAR(rounding_level({1.0, 2.0, 3.0, 4.0}, {1.0, 2.5, 3.3, 4.0}), 4 * std::sqrt(0.17), 1e-12);
  // an infinite and a NaN pair do not enter it, nor the exact pair: finite changed errors 0.5 and 0.25
  EXPECT_NEAR(rounding_level({INFINITY, 1.0, NAN, 1.0, 2.0}, {1.0, 1.0, 2.0, 1.5, 2.25}),
              4 * std::sqrt((0.25 + 0.0625) / 2), 1e-12);
  EXPECT_EQ(rounding_level({1.0, 2.0}, {1.0, 2.0}), 0.0);
  EXPECT_EQ(rounding_level({}, {}), 0.0);
  EXPECT_THROW(rounding_level({1.0}, {1.0, 2.0}), std::invalid_argument);
}

TEST(RoundingAllowance, NonFinitePairsGetNoneAndDoNotEnterRho) {
  const double inf = INFINITY, nan = NAN;
  const auto a = rounding_allowance({inf, nan, 1.0, 1.0, 3.0}, {inf, nan, 1.0, 1.5, 3.0});
  EXPECT_EQ(a[0], 0.0);
  EXPECT_EQ(a[1], 0.0);
  // one changed finite pair, error 0.5: rho = 0.5
  EXPECT_DOUBLE_EQ(a[2], 2.0);
  EXPECT_DOUBLE_EQ(a[3], 2.0);
  EXPECT_DOUBLE_EQ(a[4], 2.0);
}

TEST(RoundingAllowance, SaturatedElementsDoNotShrinkIt) {
  // A clamp's output: 999 elements at the bound (exact in any type) and one that rounding moved by 1e-3. The
  // level is that element's, not 1e-3/sqrt(1000): exact elements say nothing of the error level.
  std::vector<double> rounded(1000, 1.0), exact(1000, 1.0);
  rounded[7] = -0.048;
  exact[7] = -0.049;
  EXPECT_NEAR(rounding_level(rounded, exact), 4e-3, 1e-15);
  EXPECT_NEAR(rounding_allowance(rounded, exact)[0], 4e-3, 1e-15);
}

TEST(RoundingAllowance, HugeErrorsDoNotOverflowTheRms) {
  const auto a = rounding_allowance({1e300, -1e300}, {0.0, 0.0});
  EXPECT_TRUE(std::isfinite(a[0]));
  EXPECT_DOUBLE_EQ(a[0], 4e300);
}

TEST(RoundingAllowance, SizeMismatchThrows) {
  EXPECT_THROW(rounding_allowance({1.0}, {1.0, 2.0}), std::invalid_argument);
}

TEST(RoundingAllowance, ElementsMatchAddsIt) {
  EXPECT_FALSE(elements_match(0.0, 1e-3, ir::DType::F32));             // 1e-3 > 1e-5 + 1e-7
  EXPECT_TRUE(elements_match(0.0, 1e-3, ir::DType::F32, 1.0, 1e-3));  // within the allowance
  EXPECT_FALSE(elements_match(1.0, 2.0, ir::DType::I32, 1.0, 10.0));  // integers stay exact
}

// Near-zero results of long f32 sums (issue #14): O = S - T where S and T are the same 4096-term dot product summed
// forward and backward. In exact arithmetic O = 0; in f32, O is the rounding noise of the two orders. The candidate
// swaps the orders (O' = T - S = -O), which is equivalent, yet |O' - O| = 2|O| fails 1e-5 + 1e-4*|O| wherever the
// noise exceeds 1e-5. Typed equivalence accepts it thanks to step 4b, and still rejects a candidate whose T drops
// one term (O' = one product, ~1, far above the noise).
const std::vector<ir::KnownBuffer> kDotKnown{in("A", {64, 4096}), in("W", {4096}), out("O", {64})};
std::string dot_program(const std::string& s_index, const std::string& t_index, int t_terms) {
  return "L^{64}_{a=0}[S^{f32,g}_{a}=0;R^{f32,g}_{a}=0;];L^{64}_{a=0}L^{4096}_{c=0}[S^{f32,g}_{a}=S^{f32,g}_{a}+"
         "A^{f32,g}_{a," + s_index + "}*W^{f32,g}_{" + s_index + "};];L^{64}_{a=0}L^{" + std::to_string(t_terms) +
         "}_{c=0}[R^{f32,g}_{a}=R^{f32,g}_{a}+A^{f32,g}_{a," + t_index + "}*W^{f32,g}_{" + t_index +
         "};];L^{64}_{a=0}[O^{f32,g}_{a}=S^{f32,g}_{a}-R^{f32,g}_{a};];";
}

TEST(RoundingAllowance, ReorderedLongSumNeedsItAndPassesTyped) {
  const ir::Task a = make_task(dot_program("c", "4095-c", 4096), kDotKnown);
  const ir::Task b = make_task(dot_program("4095-c", "c", 4096), kDotKnown);
  // The scenario is real: without the allowance elements fail the per-dtype rule.
  Interpreter ia(a), ib(b);
  RunOptions typed;
  typed.typed = true;
  const TensorMap inp = make_inputs(ia, 0, Distribution::Normal);
  const Tensor ya = ia.run(inp, typed).at("O"), yb = ib.run(inp, typed).at("O");
  int plain_fail = 0;
  for (std::size_t i = 0; i < ya.data.size(); ++i) plain_fail += !elements_match(yb.data[i], ya.data[i], ir::DType::F32);
  EXPECT_GT(plain_fail, 10);
  Options opt;
  opt.typed = true;
  opt.dists = {Distribution::Normal, Distribution::Uniform};
  const auto r = check_equivalence(a, b, opt);
  EXPECT_TRUE(r.equivalent) << r.message;
}

TEST(RoundingAllowance, DroppedTermIsStillRejected) {
  Options opt;
  opt.typed = true;
  opt.dists = {Distribution::Normal, Distribution::Uniform};
  const auto r = check_equivalence(make_task(dot_program("c", "4095-c", 4096), kDotKnown),
                                   make_task(dot_program("c", "4094-c", 4095), kDotKnown), opt);
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.code, "E504");
}

// ---- given values (a model's weights) ----

TEST(FixedInputs, ReplaceOnlyTheirBuffers) {
  const std::vector<ir::KnownBuffer> k{in("A", {256, 4096}), in("W", {4096}), out("S", {256})};
  const ir::Task t = make_task("L^{256}_{a=0}L^{4096}_{c=0}[S^{f32,g}_{a}=S^{f32,g}_{a}+A^{f32,g}_{a,c}*W^{f32,g}_{c};];", k);
  TensorMap fixed;
  fixed["W"] = Tensor{ir::DType::F32, {4096}, std::vector<double>(4096, 0.5)};
  check_fixed_inputs(t, fixed);
  TensorMap drawn = make_inputs(t, 3, Distribution::Normal);
  TensorMap given = drawn;
  apply_fixed_inputs(given, fixed);
  EXPECT_EQ(given.at("A").data, drawn.at("A").data);  // the other draws are untouched
  EXPECT_EQ(given.at("W").data, std::vector<double>(4096, 0.5));
  // The checker uses them: with W = 0.5 everywhere, S = 0.5 * row sums, and a candidate computing exactly that from
  // A alone is equivalent under the fixed W (but not in general).
  const ir::Task c = make_task("L^{256}_{a=0}L^{4096}_{c=0}[S^{f32,g}_{a}=S^{f32,g}_{a}+A^{f32,g}_{a,c}*0.5;];", k);
  Options opt;
  opt.dists = {Distribution::Normal};
  EXPECT_FALSE(check_equivalence(t, c, opt).equivalent);
  opt.fixed = std::make_shared<const TensorMap>(fixed);
  EXPECT_TRUE(check_equivalence(t, c, opt).equivalent);
}

TEST(FixedInputs, MisfitsAreNamed) {
  const std::vector<ir::KnownBuffer> k{in("A", {256, 4096}), in("W", {4096}), out("S", {256})};
  const ir::Task t = make_task("L^{256}_{a=0}L^{4096}_{c=0}[S^{f32,g}_{a}=S^{f32,g}_{a}+A^{f32,g}_{a,c}*W^{f32,g}_{c};];", k);
  auto err = [&](TensorMap m) {
    try {
      check_fixed_inputs(t, m);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err({{"Q", Tensor{ir::DType::F32, {1}, {0.0}}}}), "params: Q: not a known buffer of the task");
  EXPECT_EQ(err({{"S", Tensor{ir::DType::F32, {256}, std::vector<double>(256)}}}),
            "params: S: an output buffer cannot be given values");
  EXPECT_EQ(err({{"W", Tensor{ir::DType::F64, {4096}, std::vector<double>(4096)}}}),
            "params: W: dtype f64 but the task declares f32");
  EXPECT_EQ(err({{"W", Tensor{ir::DType::F32, {4095}, std::vector<double>(4095)}}}),
            "params: W: shape [4095] but the task declares [4096]");
  EXPECT_EQ(err({{"W", Tensor{ir::DType::F32, {4096}, std::vector<double>(7)}}}),
            "params: W: element count does not match its shape");
}

}  // namespace
}  // namespace steptp::equiv
