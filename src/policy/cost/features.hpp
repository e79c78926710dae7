// Program features of the learned cost model: a fixed-length numeric vector computed from the program alone
// (plus the machine model, for the cache-traffic and analytical terms). Per-nest and per-statement quantities are
// summed, maxed or instance-weighted over top-level nests, so the length never depends on the program.
//
// Features, in vector order (units in brackets; "inst-weighted" = weighted by statement instances):
//   flops, iterations, min_traffic_bytes, footprint_bytes, parallel_iterations  step/facts.hpp program_metrics
//   stmt_instances       sum over statements of the product of their loop extents
//   work                 sum of instances * weighted operations (analytical.hpp work(S))
//   expensive_op_instances  instances * (/ sqrt exp log erf **) per instance, summed
//   intensity            flops / min_traffic_bytes [flop/B]
//   nests, statements, intermediates, intermediate_bytes
//   max_depth            deepest loop chain of any statement
//   mean_depth           inst-weighted loop depth
//   heavy_inner_extent   innermost extent of the statement with the most instances
//   frac_inner_unit      inst-weighted fraction of statements whose accesses all have stride 0 or ±1 along their
//                        innermost loop
//   frac_vectorised      inst-weighted fraction with vec(S) > 1 (analytical.hpp)
//   mean_vector_width    inst-weighted vec(S)
//   nonunit_inner_accesses   sum over statements of accesses with another (or unknown) innermost stride
//   nonunit_inner_instances  sum of instances * that count
//   frac_inner_reduction inst-weighted fraction whose write has stride 0 along the innermost loop
//   gather_accesses      accesses with a buffer read in a subscript
//   loops_P, loops_V, loops_U, loops_B   loop headers of each kind
//   frac_parallel        inst-weighted fraction under a loop the C lowering parallelises
//   frac_inner_V, frac_inner_U          inst-weighted fraction whose innermost loop is V / U
//   max_unroll_extent    largest U extent (0 without U loops)
//   traffic_l1_bytes, traffic_l2_bytes, traffic_llc_bytes   analytical.hpp T_c summed over nests
//   analytical_compute_s, analytical_memory_s, analytical_s  analytical.hpp terms [s]
//   heavy_nest_share     the largest nest's share of analytical_s
#pragma once
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "policy/cost/analytical.hpp"

namespace steptp::policy::cost {

/// Names of the features, in vector order (the length of every feature vector).
const std::vector<std::string>& feature_names();

/// The feature vector of `t` for machine `m`. Throws ir::LeirError when t does not validate.
std::vector<double> program_features(const ir::Task& t, const MachineModel& m);

}  // namespace steptp::policy::cost
