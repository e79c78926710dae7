// Tests of the shared scalar semantics (src/interp/numeric.hpp, LEIR.md §8.2-§8.3).
#include "interp/numeric.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace {
using namespace steptp_num;

TEST(Numeric, FloorDivModIntegers) {
  EXPECT_EQ(floor_div(std::int64_t{-7}, std::int64_t{2}), -4);
  EXPECT_EQ(floor_mod(std::int64_t{-7}, std::int64_t{2}), 1);
  EXPECT_EQ(floor_div(std::int64_t{7}, std::int64_t{-2}), -4);
  EXPECT_EQ(floor_mod(std::int64_t{7}, std::int64_t{-2}), -1);
  EXPECT_EQ(floor_div(std::int64_t{-8}, std::int64_t{2}), -4);
  EXPECT_EQ(floor_mod(std::int64_t{-8}, std::int64_t{2}), 0);
  EXPECT_EQ(floor_div(std::int64_t{7}, std::int64_t{2}), 3);
  EXPECT_EQ(floor_mod(std::int64_t{7}, std::int64_t{3}), 1);
  const auto mn = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(floor_div(mn, std::int64_t{-1}), mn);
  EXPECT_EQ(floor_mod(mn, std::int64_t{-1}), 0);
}

TEST(Numeric, FloorDivModFloats) {
  EXPECT_EQ(floor_div(-7.0, 2.0), -4.0);
  EXPECT_EQ(floor_mod(-7.0, 2.0), 1.0);
  EXPECT_EQ(floor_mod(7.5, -2.0), -0.5);
  EXPECT_EQ(floor_div(7.5f, 2.0f), 3.0f);
}

TEST(Numeric, NanPropagatingMaxMin) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(nan_max(nan, 1.0)));
  EXPECT_TRUE(std::isnan(nan_max(1.0, nan)));
  EXPECT_TRUE(std::isnan(nan_min(nan, 1.0)));
  EXPECT_TRUE(std::isnan(nan_min(1.0, nan)));
  EXPECT_EQ(nan_max(1.0, 2.0), 2.0);
  EXPECT_EQ(nan_min(1.0, 2.0), 1.0);
  EXPECT_EQ(nan_max(-std::numeric_limits<double>::infinity(), 3.0), 3.0);
}

TEST(Numeric, F16RoundingKnownValues) {
  EXPECT_EQ(round_f16(1.0f), 1.0f);
  EXPECT_EQ(round_f16(65504.0f), 65504.0f);
  EXPECT_EQ(round_f16(65519.0f), 65504.0f);
  EXPECT_TRUE(std::isinf(round_f16(65520.0f)));
  EXPECT_EQ(round_f16(1.0f + 1.0f / 2048), 1.0f);              // tie: to even
  EXPECT_EQ(round_f16(1.0f + 3.0f / 2048), 1.0f + 2.0f / 1024);  // tie: to even (up)
  EXPECT_EQ(round_f16(5.9604644775390625e-08f), 5.9604644775390625e-08f);  // smallest subnormal 2^-24
  EXPECT_EQ(round_f16(2.98023223876953125e-08f), 0.0f);                    // 2^-25: tie to even (0)
  EXPECT_EQ(round_f16(3.0e-08f), 5.9604644775390625e-08f);
  EXPECT_EQ(f16_bits_from_f32(-2.0f), 0xc000);
  EXPECT_TRUE(std::isnan(round_f16(std::nanf(""))));
}

#if defined(__FLT16_MAX__)
TEST(Numeric, F16RoundingMatchesCompilerFloat16) {
  std::mt19937 rng(7);
  for (int k = 0; k < 2000000; ++k) {
    const std::uint32_t bits = rng();
    const float f = f32_from_bits(bits);
    if (std::isnan(f)) continue;
    const float want = static_cast<float>(static_cast<_Float16>(f));
    ASSERT_EQ(f32_bits(round_f16(f)), f32_bits(want)) << std::hexfloat << f;
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {  // every f16 value converts back exactly
    const float f = f32_from_f16_bits(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f16_bits_from_f32(f), h);
  }
}
TEST(Numeric, F16FromDoubleRoundsOnce) {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 1000000; ++k) {
    const double d = std::ldexp(static_cast<double>(rng() >> 11) * 0x1p-53 + 0.5, static_cast<int>(rng() % 40) - 25);
    ASSERT_EQ(round_f16(d), static_cast<double>(static_cast<_Float16>(d))) << std::hexfloat << d;
  }
}
#endif

TEST(Numeric, Bf16Rounding) {
  EXPECT_EQ(round_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_bf16(1.0f + 1.0f / 256), 1.0f);                     // tie: to even
  EXPECT_EQ(round_bf16(1.0f + 3.0f / 256), 1.0f + 4.0f / 256);        // tie: to even (up)
  EXPECT_EQ(round_bf16(1.0f + 1.0f / 256 + 1.0f / 65536), 1.0f + 2.0f / 256);
  EXPECT_TRUE(std::isnan(round_bf16(std::nanf(""))));
  EXPECT_TRUE(std::isinf(round_bf16(3.4e38f)));
}

TEST(Numeric, FloatToIntConversion) {
  std::int64_t v = 0;
  EXPECT_TRUE(float_to_int(-2.7, 64, true, &v));
  EXPECT_EQ(v, -2);
  EXPECT_TRUE(float_to_int(2.7, 8, true, &v));
  EXPECT_EQ(v, 2);
  EXPECT_FALSE(float_to_int(NAN, 32, true, &v));
  EXPECT_FALSE(float_to_int(INFINITY, 64, true, &v));
  EXPECT_FALSE(float_to_int(128.0, 8, true, &v));
  EXPECT_TRUE(float_to_int(127.9, 8, true, &v));
  EXPECT_EQ(v, 127);
  EXPECT_TRUE(float_to_int(-128.5, 8, true, &v));
  EXPECT_EQ(v, -128);
  EXPECT_FALSE(float_to_int(-1.0, 8, false, &v));
  EXPECT_TRUE(float_to_int(-0.5, 8, false, &v));
  EXPECT_EQ(v, 0);
  EXPECT_FALSE(float_to_int(9.3e18, 64, true, &v));
  EXPECT_TRUE(float_to_int(1.8e19, 64, false, &v));
  EXPECT_EQ(static_cast<std::uint64_t>(v), 18000000000000000000ull);
}

TEST(Numeric, IntegerWrap) {
  EXPECT_EQ(wrap_int(300, 8, false), 44);
  EXPECT_EQ(wrap_int(200, 8, true), -56);
  EXPECT_EQ(wrap_int(-1, 16, false), 65535);
  EXPECT_EQ(wrap_int(std::int64_t{1} << 31, 32, true), -(std::int64_t{1} << 31));
  EXPECT_EQ(int_type_min(8, true), -128);
  EXPECT_EQ(int_type_max(16, false), 65535);
  EXPECT_EQ(int_type_min(64, true), std::numeric_limits<std::int64_t>::min());
}

}  // namespace
