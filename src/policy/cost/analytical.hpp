// The analytical cost model of the `cost` policy (DATASET.md §9.3): a roofline per top-level nest, with a
// working-set (capacity) estimate of cache traffic. It is the source of the rule below; features.hpp feeds its
// terms to the learned model too.
//
// Predicted seconds of a program = sum over top-level nests of t = max(compute_s, memory_s, issue_s, latency_s),
// or, when the nest's chain_s exceeds t, chain_s + 0.25 * t (a chain-bound nest does not hide all its other work;
// the share also keeps programs that differ only in their memory access apart).
//
// compute_s = sum over the nest's statements S of
//     instances(S) * max(1, work(S)) / (ghz * 1e9 * flops_per_cycle_scalar * vec(S) * par(S))
//   work(S)   weighted operations per instance: + - * max min abs 1; / sqrt // % 4; exp log erf ** 16
//             (the flop count of DATASET.md §6.1 with costly operations weighted; at least 1 for copies);
//   vec(S)    min(lanes, innermost extent) when the C compiler (-O3 -march=native, no -ffast-math) is assumed
//             to vectorise S's innermost loop, else 1. Assumed vectorised: every access has stride 0 or ±1
//             along the innermost loop (strategies/analysis/affine.hpp normal form of the row-major index) and
//             the write's stride is not 0 (a float reduction into one element is not reassociated without
//             -ffast-math); or the innermost loop is a V loop whose write moves with it and whose accesses are all
//             affine (#pragma omp simd). lanes = vector_lanes_f32 * 4 / max(4, bytes of S's target dtype);
//   par(S)    min(threads, extent of the loop the C lowering parallelises: the outermost non-reducing P loop, or
//             first B header of the top-level nest, of extent > 1), 1 when there is none.
//
// memory_s = T_L1 / (l2_bytes_per_s * p) + T_L2 / (llc_bytes_per_s * p) + T_LLC / (dram_bytes_per_s * min(p, 4))
//   p         par of the nest's statement with the most instances (private caches scale with threads; DRAM
//             bandwidth is assumed to saturate at 4 threads);
//   T_c       bytes moved into a cache of capacity c (l1_bytes, l2_bytes, llc_bytes) from the level below, by the
//             working-set rule:
//   * footprint F_a(L) of access a at loop L = bytes of the cache lines (64 B) a touches while L runs once (all
//     loops at or inside L vary): per subscript entry, an affine entry spans 1 + sum |c_v|(n_v - 1) elements
//     over the inner loops v (at most the dimension), a non-affine one the whole dimension if it mentions an
//     inner loop; the innermost dimension (merged with outer ones while the inner ones are covered whole) is
//     counted in lines, min(distinct elements, ceil(span * element bytes / 64)); a statement with no loop
//     touches one line per access;
//   * working set W(L) = sum of F_a(L) over the distinct accesses (buffer + subscript text) of every statement
//     under L;
//   * walking a statement's loops from the innermost outward, let L be the first loop whose W(L) exceeds c. Every
//     iteration of L reuses what one iteration of its body left in the cache (that body fits), but nothing
//     survives between runs of L: the traffic of a is F_a(L) * (product of the extents of the loops outside L).
//     When the whole nest fits, a is loaded once: F_a(outermost loop). An access shared by several statements
//     under the same L counts once.
// A classic capacity estimate: it ignores associativity conflicts, prefetching and TLB reach.
//
// issue_s = sum over the nest's statements S of
//     instances(S) * mem_ops(S) / (ghz * 1e9 * mem_ops_per_cycle * vec(S) * par(S))
//   (a steptp addition: the load/store ports, which bound a kernel whose operands all hit L1)
//   mem_ops(S) loads and stores per instance: 1 per access, 2 for a read-modify-write (an accumulator), and 0 for
//             an access that stays in a register: one invariant along the innermost loop (stride 0; loaded once
//             per run of it), or a register block — an `l` access whose loops inside the innermost loop r its
//             subscript does not mention are U loops except the innermost, spanning at most half the vector
//             register file (vector_registers / 2 * lanes * 4 bytes). GCC keeps such a fully unrolled,
//             compacted local array (src/lower/compact.hpp) in registers across r. An access that mentions the
//             innermost loop is divided by the iterations of the unrolled band it does not mention: the band is the
//             U loops directly outside the innermost loop, when its iterations times the innermost loop's vectors
//             fit in the vector register file (GCC unrolls it and loads such an access once for all of them: C of
//             a register-blocked GEMM, reused by every row of the block).
//
// latency_s = sum over the nest's statements S whose write is a register block (see mem_ops) accumulated across
//     its reduction loop R (the innermost loop the write does not mention) of
//     instances(S) * lat(S) / (ghz * 1e9 * chains(S) * par(S))
//   chains(S) product of the extents of the loops inside R: independent accumulators, one add of each per
//             iteration of R;
//   lat(S)    add_latency_cycles for a floating-point target, 1 for an integer one.
//   (a steptp addition: the latency bound of a small register block, which the throughput terms miss. A 1 x 32
//   block of GEMM 512^3, two vectors of accumulators, measured 10.7 ms against 1.47 ms for an 8 x 32 block.)
//
// chain_s = the same sum over every other statement whose write is an accumulator read and written across a loop R
//     of its own (the innermost loop the write does not mention), with
//   lat(S)    add_latency_cycles (1 for an integer target) when R is the innermost loop (a scalar GCC keeps in a
//             register: one dependent add per instance, whatever the memory does), else add_latency_cycles +
//             store_forward_cycles (the previous value comes back through the store buffer);
//   chains(S) as above. A naive matrix-vector product (a 32768-long sum per row) measured 5.1 ms: 2 cycles per
//             instance; the same with 16, 32 and 64 partial sums per row (reduction_factorization's lanes variant)
//             2.25, 1.67 and 1.23 ms. (a steptp addition; bench/RESULTS.md "Lane partial sums".)
#pragma once
#include <cstdint>
#include <vector>

#include "core/json_text.hpp"
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
