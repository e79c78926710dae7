// Shared scalar semantics of LEIR (LEIR.md §8.2, §8.3): floor division and modulo, NaN-propagating max/min,
// f16/bf16 rounding, float->integer conversion checks and integer wrapping.
//
// This header is self-contained, header-only, plain C++17 (only <cmath>, <cstdint>, <cstring>, <limits>) and has
// no project dependencies, so the C++/OpenMP lowering can paste or #include it into generated code and the
// interpreter and the generated programs share one definition of every rule. Define STEPTP_NUM_FN before
// including it to change the function qualifier (e.g. `__host__ __device__ inline` for CUDA). Define
// STEPTP_NUM_BUILTINS (GCC and Clang host code) to use the compiler's builtins instead of <cmath>, <cstring> and
// <limits>, the same functions: the C lowering does, since parsing <cmath> was two thirds of a kernel's compile time.
#ifndef STEPTP_INTERP_NUMERIC_HPP
#define STEPTP_INTERP_NUMERIC_HPP

#include <cstdint>
#ifndef STEPTP_NUM_BUILTINS
#include <cmath>
#include <cstring>
#include <limits>
#endif

#ifndef STEPTP_NUM_FN
#define STEPTP_NUM_FN inline
#endif

namespace steptp_num {

// ---------------------------------------------------------------- libm and libc functions used below
#ifdef STEPTP_NUM_BUILTINS
STEPTP_NUM_FN void copy_bytes(void* d, const void* s, unsigned n) { __builtin_memcpy(d, s, n); }
STEPTP_NUM_FN double floor_of(double x) { return __builtin_floor(x); }
STEPTP_NUM_FN float floor_of(float x) { return __builtin_floorf(x); }
STEPTP_NUM_FN double abs_of(double x) { return __builtin_fabs(x); }
STEPTP_NUM_FN double trunc_of(double x) { return __builtin_trunc(x); }
STEPTP_NUM_FN double ldexp_of(double x, int e) { return __builtin_ldexp(x, e); }
STEPTP_NUM_FN bool is_inf(double x) { return __builtin_isinf(x); }
#else
STEPTP_NUM_FN void copy_bytes(void* d, const void* s, unsigned n) { std::memcpy(d, s, n); }
STEPTP_NUM_FN double floor_of(double x) { return std::floor(x); }
STEPTP_NUM_FN float floor_of(float x) { return std::floor(x); }
STEPTP_NUM_FN double abs_of(double x) { return std::fabs(x); }
STEPTP_NUM_FN double trunc_of(double x) { return std::trunc(x); }
STEPTP_NUM_FN double ldexp_of(double x, int e) { return std::ldexp(x, e); }
STEPTP_NUM_FN bool is_inf(double x) { return std::isinf(x); }
#endif
/// The largest finite f32 value (FLT_MAX).
constexpr float kF32Max = 3.40282346638528859811704183484516925e+38f;

// ---------------------------------------------------------------- bit casts
STEPTP_NUM_FN std::uint32_t f32_bits(float f) { std::uint32_t u; copy_bytes(&u, &f, 4); return u; }
STEPTP_NUM_FN float f32_from_bits(std::uint32_t u) { float f; copy_bytes(&f, &u, 4); return f; }
STEPTP_NUM_FN std::uint64_t f64_bits(double d) { std::uint64_t u; copy_bytes(&u, &d, 8); return u; }

// ---------------------------------------------------------------- floor division / modulo (§8.2)
/// Integer floor division, rounding toward -inf. Precondition: b != 0 (the caller reports E303).
/// INT64_MIN // -1 wraps to INT64_MIN (two's complement).
STEPTP_NUM_FN std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == -1) return static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(a));
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
/// Integer floor modulo: the result has the sign of the divisor (-7 % 2 == 1). Precondition: b != 0.
STEPTP_NUM_FN std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
/// Unsigned (u64) division and modulo: truncation and floor coincide. Precondition: b != 0.
STEPTP_NUM_FN std::uint64_t floor_div_u(std::uint64_t a, std::uint64_t b) { return a / b; }
STEPTP_NUM_FN std::uint64_t floor_mod_u(std::uint64_t a, std::uint64_t b) { return a % b; }
/// Float floor division floor(a/b) and modulo a - b*floor(a/b) (§8.2).
STEPTP_NUM_FN double floor_div(double a, double b) { return floor_of(a / b); }
STEPTP_NUM_FN double floor_mod(double a, double b) { return a - b * floor_of(a / b); }
STEPTP_NUM_FN float floor_div(float a, float b) { return floor_of(a / b); }
STEPTP_NUM_FN float floor_mod(float a, float b) { return a - b * floor_of(a / b); }

// ---------------------------------------------------------------- max / min (§8.2: NaN if either is NaN)
template <class T>
STEPTP_NUM_FN T nan_max(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? b : a;
}
template <class T>
STEPTP_NUM_FN T nan_min(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return b < a ? b : a;
}

// ---------------------------------------------------------------- f16 / bf16 (round to nearest even)
/// float -> IEEE binary16 bits, round to nearest even; overflow gives +-inf; NaN stays NaN (quiet).
STEPTP_NUM_FN std::uint16_t f16_bits_from_f32(float f) {
  std::uint32_t x = f32_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<std::uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (x < 0x38800000u) {  // below 2^-14: a subnormal half (or zero); scale by 2^24 and round to integer (RNE)
    float t = f32_from_bits(x) * 16777216.0f;        // exact: power-of-two scaling of a normal float
    volatile float big = 8388608.0f;                  // 2^23: t + 2^23 - 2^23 rounds t to an integer (RNE)
    float r = (t + big) - big;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(r));
  }
  std::uint32_t h = (x - 0x38000000u + 0xfffu + ((x >> 13) & 1u)) >> 13;
  return static_cast<std::uint16_t>(sign | h);
}
/// IEEE binary16 bits -> float (exact).
STEPTP_NUM_FN float f32_from_f16_bits(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    float v = static_cast<float>(m) * 5.9604644775390625e-08f;  // m * 2^-24
    return sign ? -v : v;
  }
  if (e == 31) return f32_from_bits(sign | 0x7f800000u | (m << 13));
  return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}
/// float -> bfloat16 bits, round to nearest even; NaN stays NaN (quiet).
STEPTP_NUM_FN std::uint16_t bf16_bits_from_f32(float f) {
  std::uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}
STEPTP_NUM_FN float f32_from_bf16_bits(std::uint16_t h) { return f32_from_bits(static_cast<std::uint32_t>(h) << 16); }

/// Rounds a float to the nearest f16 / bf16 value (returned as float, exactly representable).
STEPTP_NUM_FN float round_f16(float f) { return f32_from_f16_bits(f16_bits_from_f32(f)); }
STEPTP_NUM_FN float round_bf16(float f) { return f32_from_bf16_bits(bf16_bits_from_f32(f)); }

/// double -> float rounding to odd (sticky): a following rounding to a format with at most 22 significand bits
/// (f16, bf16) then equals a single correct rounding of the double.
STEPTP_NUM_FN float f32_round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && d == d && abs_of(f) <= kF32Max) {
    std::uint32_t b = f32_bits(f);
    if ((b & 1u) == 0) {
      if (abs_of(static_cast<double>(f)) > abs_of(d)) b -= 1; else b += 1;
      f = f32_from_bits(b);
    }
  }
  return f;
}
/// Rounds a double once to the nearest f32 / f16 / bf16 value (returned as double).
STEPTP_NUM_FN double round_f32(double d) { return static_cast<double>(static_cast<float>(d)); }
STEPTP_NUM_FN double round_f16(double d) { return static_cast<double>(round_f16(f32_round_to_odd(d))); }
STEPTP_NUM_FN double round_bf16(double d) { return static_cast<double>(round_bf16(f32_round_to_odd(d))); }

// ---------------------------------------------------------------- integers (§8.3)
/// Wraps an i64 value to a `bits`-wide integer (two's complement), signed or unsigned. bits in {8,16,32,64}.
/// The result is returned as i64 (u64 values keep their bit pattern).
STEPTP_NUM_FN std::int64_t wrap_int(std::int64_t v, int bits, bool is_signed) {
  if (bits >= 64) return v;
  const std::uint64_t mask = (1ull << bits) - 1ull;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (is_signed && (u >> (bits - 1)) != 0) u |= ~mask;
  return static_cast<std::int64_t>(u);
}
/// Float -> integer conversion (§8.3): truncates toward zero. Returns false (E304) for NaN, +-inf and values whose
/// truncation is outside the range of the `bits`-wide signed/unsigned type; otherwise stores the value in *out
/// (u64 values as their bit pattern).
STEPTP_NUM_FN bool float_to_int(double v, int bits, bool is_signed, std::int64_t* out) {
  if (!(v == v) || is_inf(v)) return false;
  const double t = trunc_of(v);
  if (is_signed) {
    const double lo = -ldexp_of(1.0, bits - 1), hi = ldexp_of(1.0, bits - 1);  // [lo, hi)
    if (t < lo || t >= hi) return false;
    *out = static_cast<std::int64_t>(t);
  } else {
    const double hi = ldexp_of(1.0, bits);
    if (t < 0.0 || t >= hi) return false;  // note: -0.5 truncates to -0.0, which compares equal to 0.0
    *out = static_cast<std::int64_t>(static_cast<std::uint64_t>(t));
  }
  return true;
}
/// Smallest and largest value of a `bits`-wide integer type (the ∓inf identities of §8.4 for integers).
STEPTP_NUM_FN std::int64_t int_type_min(int bits, bool is_signed) {
  return is_signed ? (bits >= 64 ? INT64_MIN : -(std::int64_t{1} << (bits - 1))) : 0;
}
STEPTP_NUM_FN std::int64_t int_type_max(int bits, bool is_signed) {
  if (is_signed) return bits >= 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1;
  return bits >= 64 ? -1 /* bit pattern of UINT64_MAX */ : (std::int64_t{1} << bits) - 1;
}

}  // namespace steptp_num

#endif  // STEPTP_INTERP_NUMERIC_HPP
