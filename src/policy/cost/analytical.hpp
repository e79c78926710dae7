// The analytical cost model of the `cost` policy: a roofline per top-level nest (compute, memory by a working-set
// rule, load/store issue, register-block latency and accumulation chains). The rule, term by term, is
// docs/DATASET.md §9.3.1; features.hpp feeds the same terms to the learned model.
#pragma once
#include <cstdint>
#include <vector>

#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::policy::cost {

struct ProgramView;

/// The machine the analytical model assumes. Rates in operations or bytes per second, sizes in bytes.
struct MachineModel {
  double flops_per_cycle_scalar = 2.0;  // scalar floating-point operations retired per cycle, per core
  double ghz = 3.0;                     // core clock (GHz)
  int vector_lanes_f32 = 8;             // f32 lanes the compiler uses (AVX2: 8, AVX-512: 16)
  double mem_ops_per_cycle = 2.0;       // vector loads + stores issued per cycle, per core (a steptp addition)
  double add_latency_cycles = 4.0;      // latency of a floating-point add (a steptp addition)
  double store_forward_cycles = 6.0;    // store-to-load forwarding latency (a steptp addition)
  std::int64_t l1_bytes = 32 * 1024, l2_bytes = 1024 * 1024, llc_bytes = 16 * 1024 * 1024;  // data cache sizes
  double dram_bytes_per_s = 12e9;       // one thread's DRAM bandwidth
  double llc_bytes_per_s = 60e9;        // one core's bandwidth from the last-level cache into L2
  double l2_bytes_per_s = 120e9;        // one core's bandwidth from L2 into L1 (a steptp addition to the brief)
  int threads = 1;                      // threads the program runs with (OpenMP)

  /// This machine: cache sizes from sysconf(_SC_LEVEL{1_D,2,3}CACHE_SIZE), else
  /// /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}, else the defaults above; the clock from
  /// cpufreq's cpuinfo_max_freq, else /proc/cpuinfo "cpu MHz", else 3 GHz; 16 lanes with AVX-512F (GCC's
  /// -march=native uses 512-bit vectors on AMD Zen 4/5; on Intel cores that prefer 256-bit vectors this
  /// overstates the width), 8 with AVX2, 4 without; on AMD Zen (CPUID family 17h-1Ah) flops_per_cycle_scalar 4
  /// (two multiply and two add pipes) and add_latency_cycles 3, or 2 on Zen 5. Bandwidths and mem_ops_per_cycle
  /// keep their defaults. `threads` is clamped to at least 1. Never throws.
  static MachineModel detect(int threads);

  /// {"flops_per_cycle_scalar", "ghz", "vector_lanes_f32", "l1_bytes", "l2_bytes", "llc_bytes",
  /// "dram_bytes_per_s", "llc_bytes_per_s", "l2_bytes_per_s", "threads", "mem_ops_per_cycle", "add_latency_cycles",
  /// "store_forward_cycles"}.
  core::ojson to_json() const;
  /// Inverse of to_json. Throws std::runtime_error on a missing member or a non-positive value;
  /// "mem_ops_per_cycle", "add_latency_cycles" and "store_forward_cycles" may be missing (files written before they
  /// existed) and then keep their defaults.
  static MachineModel from_json(const core::ojson& j);
};

/// The model's terms for one top-level nest (seconds, bytes).
struct NestEstimate {
  double compute_s = 0, memory_s = 0, issue_s = 0, latency_s = 0, chain_s = 0, seconds = 0;
  double traffic_l1 = 0, traffic_l2 = 0, traffic_llc = 0;  // T_c of the header comment, bytes
  int parallelism = 1;                                       // p of the header comment
};

/// The model's terms for a program: per nest and summed (seconds = sum of the nests' seconds, header comment).
struct Estimate {
  std::vector<NestEstimate> nests;
  double compute_s = 0, memory_s = 0, issue_s = 0, latency_s = 0, chain_s = 0, seconds = 0;
  double traffic_l1 = 0, traffic_l2 = 0, traffic_llc = 0;
};

/// The analytical estimate of `t` on machine `m`. Throws ir::LeirError when t does not validate.
Estimate analytical_estimate(const ir::Task& t, const MachineModel& m);
/// The same on an already validated view (features.cpp shares one view).
Estimate analytical_estimate(const ProgramView& v, const MachineModel& m);

}  // namespace steptp::policy::cost
