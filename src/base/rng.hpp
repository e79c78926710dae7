// Portable seeded randomness (DATASET.md §11): std::mt19937_64 plus our own integer/real/shuffle rules, because the
// standard library's distributions and std::shuffle differ between implementations.
#pragma once
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace steptp::core {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  std::uint64_t next() { return g_(); }
  /// Uniform integer in [0, n) by rejection sampling on 64-bit draws; n > 0.
  std::uint64_t below(std::uint64_t n) {
    std::uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;  // largest multiple of n, minus 1
    for (;;) {
      std::uint64_t x = g_();
      if (x <= limit) return x % n;
    }
  }
  /// Uniform real in [0, 1) from the top 53 bits.
  double real01() { return double(g_() >> 11) * (1.0 / 9007199254740992.0); }
  /// Bernoulli(p).
  bool chance(double p) { return real01() < p; }
  /// Fisher–Yates running down from the last index.
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) {
      std::size_t j = below(i);
      std::swap(v[i - 1], v[j]);
    }
  }

 private:
  std::mt19937_64 g_;
};

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
