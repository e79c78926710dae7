// Driver-side candidate sampling (STRATEGIES.md §5 "Sampling"): strategies never draw; callers that want a
// subset draw it here with an explicit seed.
#pragma once
#include <cstdint>
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy {

/// Up to `k` candidates drawn without replacement with std::mt19937_64{seed} (partial Fisher-Yates over the
/// indices), returned in enumeration order. k >= size returns all of them.
std::vector<Candidate> sample_candidates(const std::vector<Candidate>& all, std::size_t k, std::uint64_t seed);

/// Indices version of sample_candidates (ascending).
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t k, std::uint64_t seed);

}  // namespace steptp::strategy
