// The host math of the C lowering (LEIR.md §10.2): f32 erf and exp are inline arithmetic, checked against libm's
// f64 results rounded to f32 over every 16th f32 of their range and at their special values; a loop calling them
// vectorises and the executable calls no libm erff/expf.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "lower/c_emit.hpp"
#include "lower_test_util.hpp"
#include "runtime/measure.hpp"

namespace steptp {
namespace {

// Compiled between the prelude and each driver: bit casts and the f32 spacing at a result (2^-149 at 0).
const char* const kDriverHelpers = R"DRV(
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static double ulp_of(float r) {
  uint32_t u; float a = r < 0 ? -r : r; memcpy(&u, &a, 4);
  return a == 0 ? 0x1p-149 : (double)from_bits(u + 1) - (double)a;
}
)DRV";

// Compiled after the prelude: sweeps the f32 bit patterns of [-4.5, 4.5] in steps of 16 and prints the largest
// distance in ulp of f32(erf(double)) and the special values, one per line.
const char* const kErfDriver = R"DRV(
__attribute__((noinline)) void erf_loop(const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = leir::erf(x[i]);
}
int main() {
  double worst = 0; float worst_at = 0; long n = 0;
  for (int sign = 0; sign < 2; ++sign)
    for (uint32_t u = 0; u <= 0x40900000u; u += 16) {  // 0x40900000 = 4.5f
      const float x = from_bits(u | (sign ? 0x80000000u : 0u));
      const float r = leir::erf(x), e = (float)::erf((double)x);
      const double d = ((double)r - (double)e) / ulp_of(e);
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

// Sweeps every 16th f32 in [-104.5, 89.5] against libm's f64 exp rounded to f32 (ulp distance; an infinity must
// match exactly) and prints the special values.
const char* const kExpDriver = R"DRV(
__attribute__((noinline)) void exp_loop(const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = leir::exp(x[i]);
}
int main() {
  double worst = 0; float worst_at = 0; long n = 0, inf_mismatch = 0;
  const uint32_t top[2] = {0x42B30000u, 0x42D10000u};  // 89.5f, 104.5f
  for (int sign = 0; sign < 2; ++sign)
    for (uint32_t u = 0; u <= top[sign]; u += 16) {
      const float x = from_bits(u | (sign ? 0x80000000u : 0u));
      const float r = leir::exp(x), e = (float)::exp((double)x);
      ++n;
      if (e > 3.4e38f * 2 || r > 3.4e38f * 2) { inf_mismatch += (r != e); continue; }
      const double d = ((double)r - (double)e) / ulp_of(e);
      if ((d < 0 ? -d : d) > worst) { worst = d < 0 ? -d : d; worst_at = x; }
    }
  float xs[4] = {1.0f, -1.0f, 10.0f, -20.0f}, ys[4];
  exp_loop(xs, ys, 4);
  printf("worst %.3f at %.9g over %ld inf %ld\n", worst, worst_at, n, inf_mismatch);
  printf("zero %a %a\n", leir::exp(0.0f), leir::exp(-0.0f));
  printf("inf %a %a nan %d\n", leir::exp(INFINITY), leir::exp(-INFINITY), leir::exp(NAN) != leir::exp(NAN));
  printf("edges %a %a %a %a\n", leir::exp(88.72f), leir::exp(88.73f), leir::exp(-103.97f), leir::exp(-103.99f));
  printf("loop %.7g %.7g %.7g %.7g\n", ys[0], ys[1], ys[2], ys[3]);
  return 0;
}
)DRV";

struct Built {
  std::string build, out, symbols;
};

// Compiles the prelude and the helpers followed by `driver` as an executable with the kernels' code generation
// flags, runs it and lists its symbols.
Built build_and_run(const char* driver) {
  Built b;
  char dir[] = "/tmp/steptp-math-XXXXXX";
  if (!mkdtemp(dir)) return b;
  const std::string d(dir), src = d + "/m.cpp";
  const std::string text = lower::tu_prelude(false) + kDriverHelpers + driver;
  if (FILE* f = std::fopen(src.c_str(), "w")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  std::string flags = runtime::kernel_compile_options(true).flags;
  flags.replace(flags.find("-shared"), 7, "");
  if (testing::run_command("c++ -x c++ " + flags + " -fopt-info-vec-optimized " + src + " -o " + d + "/m -lm",
                           &b.build) == 0 &&
      testing::run_command(d + "/m", &b.out) == 0)
    testing::run_command("nm " + d + "/m", &b.symbols);
  testing::run_command("rm -rf " + d);
  return b;
}

// Did GCC report the loop on the driver's line holding `marker` as vectorised?
bool vectorized_at(const Built& b, const char* driver, const std::string& marker) {
  const std::string prelude = lower::tu_prelude(false) + kDriverHelpers, d(driver);
  const auto lines = [](const std::string& t, std::size_t end) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < end && i < t.size(); ++i) n += t[i] == '\n';
    return n;
  };
  const std::size_t line = lines(prelude, prelude.size()) + lines(d, d.find(marker)) + 1;
  const std::string tag = "m.cpp:" + std::to_string(line) + ":";
  for (std::size_t at = b.build.find(tag); at != std::string::npos; at = b.build.find(tag, at + 1))
    if (b.build.compare(b.build.find_first_of(' ', at) + 1, 10, "optimized:") == 0 &&
        b.build.find("loop vectorized", at) < b.build.find('\n', at))
      return true;
  return false;
}

TEST(LowerCMath, F32ErfIsWithinEightUlpAndVectorises) {
  const Built b = build_and_run(kErfDriver);
  const std::string& build = b.build;
  const std::string& out = b.out;
  ASSERT_NE(b.symbols, "") << build << out;
  EXPECT_EQ(b.symbols.find("erff"), std::string::npos) << "f32 erf calls libm";
  // the loop of erf_loop is vectorised: erf is arithmetic, not a libm call
  EXPECT_TRUE(vectorized_at(b, kErfDriver, "for (int i = 0; i < n; ++i) y[i] = leir::erf")) << build;
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

// f32 exp (LEIR.md §10.2): within 2 ulp of libm's f64 exp rounded to f32 from -104.5 to 89.5, subnormal results
// included; +inf from 88.73 on (88.7228 is where exp overflows), +0 below -103.98; a vectorised loop.
TEST(LowerCMath, F32ExpIsWithinTwoUlpAndVectorises) {
  const Built b = build_and_run(kExpDriver);
  const std::string& out = b.out;
  ASSERT_NE(b.symbols, "") << b.build << out;
  EXPECT_EQ(b.symbols.find("expf"), std::string::npos) << "f32 exp calls libm";
  EXPECT_TRUE(vectorized_at(b, kExpDriver, "for (int i = 0; i < n; ++i) y[i] = leir::exp")) << b.build;
  EXPECT_FALSE(vectorized_at(b, kExpDriver, "printf(\"zero"));  // the report is read at the marker's line
  double worst = 99;
  float at = 0;
  long n = 0, inf_mismatch = -1;
  ASSERT_EQ(std::sscanf(out.c_str(), "worst %lf at %f over %ld inf %ld", &worst, &at, &n, &inf_mismatch), 4)
      << out;
  EXPECT_EQ(n, (0x42B30000L / 16 + 1) + (0x42D10000L / 16 + 1));
  EXPECT_LE(worst, 2.0) << "at " << at;
  EXPECT_EQ(inf_mismatch, 0);
  EXPECT_NE(out.find("zero 0x1p+0 0x1p+0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("inf inf 0x0p+0 nan 1\n"), std::string::npos) << out;
  // exp(88.72) = 0x1.fe8c9p+127 is finite, exp(88.73) overflows; exp(-103.97) rounds up to the smallest subnormal
  EXPECT_NE(out.find("edges 0x1.fe8c9p+127 inf 0x1p-149 0x0p+0\n"), std::string::npos) << out;
  // e, 1/e, e^10 (22026.4658 -> f32 22026.4648), e^-20
  EXPECT_NE(out.find("loop 2.718282 0.3678795 22026.46 2.061154e-09\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace steptp

