// SplitMix64 (Steele, Lea, Flood 2014) and the U01 draw of LEIR.md §11 step 2: U01 = (next() >> 11) * 2^-53.
// Header-only, plain C++ with no project dependencies (generated harnesses may include it too).
#ifndef STEPTP_INTERP_SPLITMIX64_HPP
#define STEPTP_INTERP_SPLITMIX64_HPP

#include <cmath>
#include <cstdint>

namespace steptp_num {

struct SplitMix64 {
  std::uint64_t s;  // state; §11 seeds it with 2*seed + d
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform on [0, 1) with 53 random bits.
  double u01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Standard normal by Box-Muller from two U01 draws (u1 first): sqrt(-2 ln(1-u1)) cos(2 pi u2) (§11 step 2, N).
  double normal() {
    const double u1 = u01(), u2 = u01();
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586476925286766559 * u2);
  }
};

}  // namespace steptp_num

#endif  // STEPTP_INTERP_SPLITMIX64_HPP
