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
//   ideal_s              ideal_seconds below: the same for every program of a task (up to algebraic rewrites);
//                        the learned model predicts log2(latency / ideal_s)
//   analytical_issue_s, analytical_latency_s, analytical_chain_s   analytical.hpp terms [s]
//   rel_analytical_s, rel_compute_s, rel_memory_s, rel_issue_s, rel_latency_s, rel_chain_s   those terms / ideal_s
//   rel_traffic_l1, rel_traffic_l2, rel_traffic_llc   T_c / min_traffic_bytes
//   rel_instances, rel_work   stmt_instances / flops, work / flops
//   inner_invariant_accesses, inner_unit_accesses, inner_partial_line_accesses, inner_line_accesses,
//   inner_unknown_accesses   inst-weighted accesses per statement by stride along its innermost loop: 0, ±1,
//                        under 64 bytes, 64 bytes or more, unknown (gather or non-affine)
//   inner_entries_per_instance   inst-weighted 1 / innermost extent (loop overhead)
//   heavy_vector_width, heavy_depth   vec(S) and loop depth of the statement with the most instances
// Features that scale with the shape (the absolute ones) let trees learn one workload's sizes; the rel_* and
// per-instance ones carry over to held-out shapes.
#pragma once
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "policy/cost/analytical.hpp"

namespace steptp::policy::cost {

/// Names of the features, in vector order (the length of every feature vector).
const std::vector<std::string>& feature_names();

/// A lower bound on the latency of any program of a task: max(flops at full vector width and every thread,
/// min_traffic at DRAM bandwidth), at least 1 ns (seconds).
double ideal_seconds(std::int64_t flops, std::int64_t min_traffic, const MachineModel& m);

/// Index of feature `name` in feature_names() (its size when there is none).
std::size_t feature_index(const std::string& name);

/// The feature vector of `t` for machine `m`. Throws ir::LeirError when t does not validate.
std::vector<double> program_features(const ir::Task& t, const MachineModel& m);

}  // namespace steptp::policy::cost
