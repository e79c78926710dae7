#include "strategies/sample.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace steptp::strategy {

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t k, std::uint64_t seed) {
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  if (k >= n) return idx;
  std::mt19937_64 rng{seed};
  for (std::size_t i = 0; i < k; ++i) {
    std::uniform_int_distribution<std::size_t> d(i, n - 1);
    std::swap(idx[i], idx[d(rng)]);
  }
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

std::vector<Candidate> sample_candidates(const std::vector<Candidate>& all, std::size_t k, std::uint64_t seed) {
  std::vector<Candidate> out;
  for (std::size_t i : sample_indices(all.size(), k, seed)) out.push_back(all[i]);
  return out;
}

}  // namespace steptp::strategy
