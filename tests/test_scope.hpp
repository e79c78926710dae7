// How much of an exhaustive suite `make test` runs. The Slow suites that walk every built-in workload or shared
// model check a deterministic stride sample by default (every family is still reached: the lists are ordered by
// family) and every item under STEPTP_CHECK_ALL=1, which `make check-all` sets. CI's 50-minute budget for a fresh
// `make test` on 2 cores is the reason; the full runs' figures are in bench/RESULTS.md.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <string>

namespace steptp::testing {

/// True when STEPTP_CHECK_ALL is set to anything but "" or "0".
inline bool check_all() {
  const char* e = std::getenv("STEPTP_CHECK_ALL");
  return e && *e && std::string(e) != "0";
}

/// Whether item `i` of a list is checked: every item under check_all(), otherwise items 0, stride, 2*stride, ...
inline bool sampled(std::size_t i, std::size_t stride) { return check_all() || stride <= 1 || i % stride == 0; }

/// The number of items sampled() selects from a list of n.
inline std::size_t sample_size(std::size_t n, std::size_t stride) {
  return check_all() || stride <= 1 ? n : (n + stride - 1) / stride;
}

}  // namespace steptp::testing
