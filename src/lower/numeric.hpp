// LEIR numeric helpers (LEIR.md §8.2, §8.3): floor division/modulo, NaN-propagating max/min, conversions with
// defined behaviour, and f16/bf16 rounding. This one header is compiled into steptp (host conversions of buffers)
// AND its text is embedded verbatim at the top of every generated C++/CUDA translation unit, so the generated
// code is self-contained (lower/prelude.hpp). It must therefore only include standard C headers and define
// everything `inline` in namespace `leir`. In CUDA, the includer defines LEIR_HD as `__host__ __device__`.
//
// Storage of f16/bf16: 16-bit bit patterns (IEEE binary16 / bfloat16) in uint16_t; arithmetic is done in float
// and rounded to the type after every operation (round_f16/round_bf16), round to nearest even, overflow → ±inf.
// Conversions from double to f16/bf16 go through float (double rounding possible in rare ties).
//
// Differences from the interpreter on *invalid* inputs only: integer division/modulo by zero yields 0 (the
// interpreter raises E303) and an invalid float→integer conversion yields 0 (E304).
#ifndef STEPTP_LEIR_NUMERIC_HPP
#define STEPTP_LEIR_NUMERIC_HPP
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef LEIR_HD
#define LEIR_HD
#endif

namespace leir {

LEIR_HD inline uint32_t bits_of(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
LEIR_HD inline float float_of(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }

/// float → IEEE binary16 bits, round to nearest even; overflow gives ±inf; NaN stays NaN (quiet).
LEIR_HD inline uint16_t float_to_f16(float f) {
  const uint32_t x = bits_of(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);       // ≥ 65520 rounds to inf
  if (ax < 0x38800000u) {                                          // below 2^-14: subnormal or zero
    const float a = float_of(ax) * 16777216.0f;                    // exact scaling by 2^24
    return (uint16_t)(sign | (uint32_t)rintf(a));                  // default rounding mode: nearest even
  }
  const uint32_t r = ax - 0x38000000u;                             // rebias exponent 127 → 15
  uint32_t h = r >> 13;
  const uint32_t rem = r & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)(sign | h);
}
/// IEEE binary16 bits → float (exact).
LEIR_HD inline float f16_to_float(uint16_t h) {
  const uint32_t s = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = (float)m * 5.9604644775390625e-08f;           // m · 2^-24
    return s ? -v : v;
  }
  if (e == 31) return float_of(s | 0x7f800000u | (m << 13));
  return float_of(s | ((e + 112u) << 23) | (m << 13));
}
/// float → bfloat16 bits, round to nearest even; NaN stays NaN.
LEIR_HD inline uint16_t float_to_bf16(float f) {
  const uint32_t x = bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
LEIR_HD inline float bf16_to_float(uint16_t h) { return float_of((uint32_t)h << 16); }

/// Round a float to f16 / bf16 precision, staying in float (the "compute in f32, round after every op" rule).
LEIR_HD inline float round_f16(float x) { return f16_to_float(float_to_f16(x)); }
LEIR_HD inline float round_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

/// Floor division / modulo (sign of the divisor): -7//2 = -4, -7%2 = 1. Division by zero gives 0.
LEIR_HD inline int64_t floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
LEIR_HD inline int64_t floormod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
LEIR_HD inline uint64_t floordiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
LEIR_HD inline uint64_t floormod(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }
LEIR_HD inline float floordiv(float a, float b) { return floorf(a / b); }
LEIR_HD inline double floordiv(double a, double b) { return floor(a / b); }
LEIR_HD inline float floormod(float a, float b) { return a - b * floorf(a / b); }
LEIR_HD inline double floormod(double a, double b) { return a - b * floor(a / b); }

/// NaN-propagating max/min (LEIR.md §8.2): NaN if either operand is NaN.
template <class T>
LEIR_HD inline T max(T a, T b) { return (a != a) ? a : (b != b) ? b : (a > b ? a : b); }
template <class T>
LEIR_HD inline T min(T a, T b) { return (a != a) ? a : (b != b) ? b : (a < b ? a : b); }

/// Math library per type (float versions for f32/f16/bf16).
LEIR_HD inline float exp(float x) { return expf(x); }
LEIR_HD inline double exp(double x) { return ::exp(x); }
LEIR_HD inline float log(float x) { return logf(x); }
LEIR_HD inline double log(double x) { return ::log(x); }
LEIR_HD inline float sqrt(float x) { return sqrtf(x); }
LEIR_HD inline double sqrt(double x) { return ::sqrt(x); }
LEIR_HD inline float erf(float x) { return erff(x); }
LEIR_HD inline double erf(double x) { return ::erf(x); }
LEIR_HD inline float pow(float a, float b) { return powf(a, b); }
LEIR_HD inline double pow(double a, double b) { return ::pow(a, b); }
LEIR_HD inline float abs(float x) { return fabsf(x); }
LEIR_HD inline double abs(double x) { return fabs(x); }
LEIR_HD inline int64_t abs(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }
LEIR_HD inline uint64_t abs(uint64_t x) { return x; }

/// Float → integer type I: truncation toward zero; NaN, ±inf and out-of-range values give 0 (E304 in the
/// interpreter).
template <class I>
LEIR_HD inline I f2i(double v) {
  if (!(v == v) || v >= 18446744073709551616.0 || v <= -9223372036854775809.0) return (I)0;
  const double t = trunc(v);
  if (t < 0) return (I)(int64_t)t;
  if (t >= 9223372036854775808.0) return (I)(uint64_t)t;
  return (I)(int64_t)t;
}

}  // namespace leir
#endif  // STEPTP_LEIR_NUMERIC_HPP
