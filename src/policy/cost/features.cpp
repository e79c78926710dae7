#include "policy/cost/features.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include "step/facts.hpp"
#include "ir/dtype.hpp"
#include "policy/cost/program_view.hpp"

namespace steptp::policy::cost {

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = {
      "flops", "iterations", "min_traffic_bytes", "footprint_bytes", "parallel_iterations",
      "stmt_instances", "work", "expensive_op_instances", "intensity",
      "nests", "statements", "intermediates", "intermediate_bytes",
      "max_depth", "mean_depth", "heavy_inner_extent",
      "frac_inner_unit", "frac_vectorised", "mean_vector_width",
      "nonunit_inner_accesses", "nonunit_inner_instances", "frac_inner_reduction", "gather_accesses",
      "loops_P", "loops_V", "loops_U", "loops_B",
      "frac_parallel", "frac_inner_V", "frac_inner_U", "max_unroll_extent",
      "traffic_l1_bytes", "traffic_l2_bytes", "traffic_llc_bytes",
      "analytical_compute_s", "analytical_memory_s", "analytical_s", "heavy_nest_share",
      "ideal_s", "analytical_issue_s", "analytical_latency_s", "analytical_chain_s",
      "rel_analytical_s", "rel_compute_s", "rel_memory_s", "rel_issue_s", "rel_latency_s", "rel_chain_s",
      "rel_traffic_l1", "rel_traffic_l2", "rel_traffic_llc", "rel_instances", "rel_work",
      "inner_invariant_accesses", "inner_unit_accesses", "inner_partial_line_accesses", "inner_line_accesses",
      "inner_unknown_accesses", "inner_entries_per_instance", "heavy_vector_width", "heavy_depth"};
  return names;
}

std::size_t feature_index(const std::string& name) {
  const auto& names = feature_names();
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

namespace {

void count_headers(const ir::Nest& n, double& p, double& v, double& u, double& b, double& max_u) {
  for (const auto& l : n.loops) {
    if (l.kind == ir::LoopKind::P) p += 1;
    if (l.kind == ir::LoopKind::V) v += 1;
    if (l.kind == ir::LoopKind::B) b += 1;
    if (l.kind == ir::LoopKind::U) {
      u += 1;
      max_u = std::max(max_u, static_cast<double>(l.extent));
    }
  }
  for (const auto& it : n.body)
    if (it.is_nest()) count_headers(it.nest(), p, v, u, b, max_u);
}

/// Accesses of `s` per stride class along its innermost loop (features.hpp): invariant, unit, within a cache
/// line, a line or more apart, unknown (a gather or a non-affine entry).
std::array<double, 5> inner_stride_classes(const StmtView& s) {
  std::array<double, 5> c{};
  if (s.loops.empty()) return c;
  for (const auto& a : s.accesses) {
    const auto st = a.gather ? std::nullopt : a.stride(s.loops.back()->var);
    const std::int64_t bytes = st ? std::llabs(*st) * a.elem_bytes : 0;
    c[!st ? 4 : *st == 0 ? 0 : std::llabs(*st) == 1 ? 1 : bytes < 64 ? 2 : 3] += 1;
  }
  return c;
}

}  // namespace

double ideal_seconds(std::int64_t flops, std::int64_t min_traffic, const MachineModel& m) {
  const double rate = m.ghz * 1e9 * m.flops_per_cycle_scalar * m.vector_lanes_f32 * m.threads;
  return std::max({static_cast<double>(flops) / rate, static_cast<double>(min_traffic) / m.dram_bytes_per_s, 1e-9});
}

std::vector<double> program_features(const ir::Task& t, const MachineModel& m) {
  const ProgramView v(t);
  const dataset::ProgramMetrics pm = dataset::program_metrics(t);
  const Estimate est = analytical_estimate(v, m);

  double instances = 0, work = 0, expensive = 0, max_depth = 0, depth_w = 0, unit_w = 0, vec_w = 0, width_w = 0,
         nonunit = 0, nonunit_inst = 0, red_w = 0, gathers = 0, par_w = 0, inner_v = 0, inner_u = 0, entries = 0;
  std::array<double, 5> strides{};
  const StmtView* heavy = nullptr;
  for (const auto& s : v.stmts) {
    const double n = static_cast<double>(s.instances);
    instances += n;
    work += n * std::max(1.0, s.work);
    expensive += n * s.expensive_ops;
    max_depth = std::max(max_depth, static_cast<double>(s.loops.size()));
    depth_w += n * static_cast<double>(s.loops.size());
    if (inner_unit_or_invariant(s)) unit_w += n;
    const int w = vector_width(s, m.vector_lanes_f32);
    if (w > 1) vec_w += n;
    width_w += n * w;
    const int nu = nonunit_inner_accesses(s);
    nonunit += nu;
    nonunit_inst += n * nu;
    for (const auto& a : s.accesses) gathers += a.gather ? 1 : 0;
    if (!s.loops.empty()) {
      auto ws = s.accesses.front().stride(s.loops.back()->var);
      if (ws && *ws == 0) red_w += n;
      if (s.loops.back()->kind == ir::LoopKind::V) inner_v += n;
      if (s.loops.back()->kind == ir::LoopKind::U) inner_u += n;
    }
    if (s.parallel_loop >= 0) par_w += n;
    const auto cls = inner_stride_classes(s);
    for (std::size_t i = 0; i < cls.size(); ++i) strides[i] += n * cls[i];
    if (!s.loops.empty()) entries += n / static_cast<double>(std::max<std::int64_t>(1, s.loops.back()->extent));
    if (!heavy || s.instances > heavy->instances) heavy = &s;
  }
  auto frac = [&](double x) { return instances > 0 ? x / instances : 0.0; };

  double inter = 0, inter_bytes = 0;
  for (const auto& b : v.analysis.buffers)
    if (!b.known) {
      inter += 1;
      inter_bytes += static_cast<double>(b.numel()) * ir::dtype_bytes(b.dtype);
    }
  double lp = 0, lv = 0, lu = 0, lb = 0, max_u = 0;
  for (const auto& n : v.task.program.nests) count_headers(n, lp, lv, lu, lb, max_u);
  double heavy_nest = 0;
  for (const auto& ne : est.nests) heavy_nest = std::max(heavy_nest, ne.seconds);

  const double flops = static_cast<double>(pm.flops), min_traffic = static_cast<double>(pm.min_traffic);
  std::vector<double> f = {
      flops, static_cast<double>(pm.iterations), min_traffic, static_cast<double>(pm.footprint),
      static_cast<double>(pm.parallel_iterations),
      instances, work, expensive, min_traffic > 0 ? flops / min_traffic : 0.0,
      static_cast<double>(v.nests), static_cast<double>(v.stmts.size()), inter, inter_bytes,
      max_depth, frac(depth_w), heavy && !heavy->loops.empty() ? static_cast<double>(heavy->loops.back()->extent) : 0.0,
      frac(unit_w), frac(vec_w), frac(width_w),
      nonunit, nonunit_inst, frac(red_w), gathers,
      lp, lv, lu, lb,
      frac(par_w), frac(inner_v), frac(inner_u), max_u,
      est.traffic_l1, est.traffic_l2, est.traffic_llc,
      est.compute_s, est.memory_s, est.seconds, est.seconds > 0 ? heavy_nest / est.seconds : 0.0};
  const double ideal = ideal_seconds(pm.flops, pm.min_traffic, m), mt = std::max(1.0, min_traffic),
               fl = std::max(1.0, flops);
  const std::vector<double> more = {
      ideal, est.issue_s, est.latency_s, est.chain_s,
      est.seconds / ideal, est.compute_s / ideal, est.memory_s / ideal, est.issue_s / ideal, est.latency_s / ideal,
      est.chain_s / ideal,
      est.traffic_l1 / mt, est.traffic_l2 / mt, est.traffic_llc / mt, instances / fl, work / fl,
      frac(strides[0]), frac(strides[1]), frac(strides[2]), frac(strides[3]), frac(strides[4]), frac(entries),
      heavy ? static_cast<double>(vector_width(*heavy, m.vector_lanes_f32)) : 1.0,
      heavy ? static_cast<double>(heavy->loops.size()) : 0.0};
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

}  // namespace steptp::policy::cost
