// Default strategy limits (STRATEGIES.md §5 "Configuration", entry 16). The task format carries no
// StrategyConfig yet, so these defaults are what every strategy uses.
#pragma once
#include <cstdint>

namespace steptp::strategy {

/// How a class-D candidate treats a domain condition that sign analysis cannot prove (STRATEGIES.md §6):
/// Prove (default) offers the candidate only when every condition is proven; Guard compiles each unproven
/// condition c into `if_then_else(c, new, old)`.
enum class DomainPolicy : std::uint8_t { Prove, Guard };

struct StrategyConfig {
  std::int64_t max_new_elements = 2147483647;  // footprint of one new buffer (§7.4)
  std::int64_t max_unroll = 1024;              // loop_unrolling: extent < max_unroll
  std::int64_t vector_width = 4;               // loop_vectorization: 2 <= extent <= vector_width
  // GPU launch limits (entry 16, B19; CUDA limits): threadIdx x/y <= 1024, z <= 64, product <= 1024;
  // blockIdx x <= 2^31-1, y/z <= 65535.
  std::int64_t max_thread_xy = 1024;
  std::int64_t max_thread_z = 64;
  std::int64_t max_threads = 1024;
  std::int64_t max_block_x = 2147483647;
  std::int64_t max_block_yz = 65535;
  DomainPolicy domain_policy = DomainPolicy::Prove;
};

/// The configuration in effect on this thread: the innermost ScopedConfig's, else the defaults above.
const StrategyConfig& default_config();

/// Sets the configuration of this thread for the lifetime of the object (nests; restores the previous one).
/// Generators, the CLI (`--domain-policy`) and tests use it; strategies only read default_config().
class ScopedConfig {
 public:
  explicit ScopedConfig(const StrategyConfig& c);
  ~ScopedConfig();
  ScopedConfig(const ScopedConfig&) = delete;
  ScopedConfig& operator=(const ScopedConfig&) = delete;

 private:
  StrategyConfig cfg_;
  const StrategyConfig* prev_;
};

}  // namespace steptp::strategy
