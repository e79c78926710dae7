// The host math of the C lowering (LEIR.md §10.2): f32 erf is inline arithmetic, within 8 ulp of libm's f64 erf
// rounded to f32 over every 16th f32 in [-4.5, 4.5] and exact at its special values, and a loop calling it
// vectorises (no libmvec call).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "lower/c_emit.hpp"
#include "lower_test_util.hpp"
#include "runtime/measure.hpp"

namespace steptp {
namespace {

// Compiled after the prelude: sweeps the f32 bit patterns of [-4.5, 4.5] in steps of 16 and prints the largest
// distance in ulp of f32(erf(double)) and the special values, one per line.
const char* const kErfDriver = R"DRV(
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static double ulp_of(float r) {  // the f32 spacing at |r| (erf is below 1 in magnitude)
  uint32_t u; float a = r < 0 ? -r : r; memcpy(&u, &a, 4); return (double)from_bits(u + 1) - (double)a;
}
__attribute__((noinline)) void erf_loop(const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = leir::erf(x[i]);
}
int main() {
  double worst = 0; float worst_at = 0; long n = 0;
  for (int sign = 0; sign < 2; ++sign)
    for (uint32_t u = 0; u <= 0x40900000u; u += 16) {  // 0x40900000 = 4.5f
      const float x = from_bits(u | (sign ? 0x80000000u : 0u));
      const float r = leir::erf(x), e = (float)::erf((double)x);
      const double d = ((double)r - (double)e) / (e == 0 ? 1e-45 : ulp_of(e));
      if ((d < 0 ? -d : d) > worst) { worst = d < 0 ? -d : d; worst_at = x; }
      ++n;
    }
  float xs[4] = {0.5f, -1.25f, 3.0f, -3.5f}, ys[4];
  erf_loop(xs, ys, 4);
  printf("worst %.3f at %.9g over %ld\n", worst, worst_at, n);
  printf("zero %a %a\n", leir::erf(0.0f), leir::erf(-0.0f));
  printf("inf %a %a nan %d big %a\n", leir::erf(INFINITY), leir::erf(-INFINITY), leir::erf(NAN) != leir::erf(NAN),
         leir::erf(10.0f));
  printf("tiny %a sub %a\n", leir::erf(0x1p-60f), leir::erf(0x1p-140f));
  printf("loop %.7f %.7f %.7f %.7f\n", ys[0], ys[1], ys[2], ys[3]);
  return 0;
}
)DRV";

TEST(LowerCMath, F32ErfIsWithinEightUlpAndVectorises) {
  char dir[] = "/tmp/steptp-erf-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d(dir), src = d + "/erf.cpp";
  const std::string text = lower::tu_prelude(false) + kErfDriver;
  FILE* f = std::fopen(src.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  std::string flags = runtime::kernel_compile_options(true).flags, build, out;
  flags.replace(flags.find("-shared"), 7, "");  // an executable, with the kernels' code generation flags
  const int rc = testing::run_command("c++ -x c++ " + flags +
                                          " -fopt-info-vec-optimized " + src + " -o " + d + "/erf -lm",
                                      &build);
  ASSERT_EQ(rc, 0) << build;
  ASSERT_EQ(testing::run_command(d + "/erf", &out), 0) << out;
  std::string symbols;
  testing::run_command("nm " + d + "/erf", &symbols);
  testing::run_command("rm -rf " + d);
  EXPECT_EQ(symbols.find("erff"), std::string::npos) << "f32 erf calls libm";
  // the loop of erf_loop (driver line 8) is vectorised: erf is arithmetic, not a scalar libm call
  EXPECT_NE(build.find("loop vectorized"), std::string::npos) << build;
  double worst = 99;
  float at = 0;
  long n = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "worst %lf at %f over %ld", &worst, &at, &n), 3) << out;
  EXPECT_EQ(n, 2L * (0x40900000 / 16 + 1));
  EXPECT_LE(worst, 8.0) << "at " << at;
  EXPECT_GT(worst, 0.0);  // it is an approximation: some value differs from libm's
  EXPECT_NE(out.find("zero 0x0p+0 -0x0p+0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("inf 0x1p+0 -0x1p+0 nan 1 big 0x1p+0\n"), std::string::npos) << out;
  // erf(x) = 2x/sqrt(pi) near 0: 1.1283792 x = 0x1.20dd76p0 x; a subnormal 2^-140 keeps 9 bits: 578/512 = 0x1.21
  EXPECT_NE(out.find("tiny 0x1.20dd76p-60 "), std::string::npos) << out;
  EXPECT_NE(out.find("sub 0x1.21p-140\n"), std::string::npos) << out;
  // erf(0.5), erf(-1.25), erf(3), erf(-3.5) to 7 decimals (A&S table 7.1)
  EXPECT_NE(out.find("loop 0.5204999 -0.9229001 0.9999779 -0.9999993\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace steptp
