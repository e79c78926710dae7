#include "runtime/interleaved.hpp"

#include <sched.h>

#include <algorithm>
#include <stdexcept>

#include "runtime/node_slots.hpp"

namespace steptp::runtime {

std::vector<double> paired_ratios(const ProgramTiming& a, const ProgramTiming& b) {
  std::vector<double> r;
  const std::size_t n = std::min(a.per_call.size(), b.per_call.size());
  for (std::size_t i = 0; i < n; ++i)
    if (b.per_call[i] > 0) r.push_back(a.per_call[i] / b.per_call[i]);
  return r;
}

TimeStats paired_ratio(const ProgramTiming& a, const ProgramTiming& b) { return time_stats(paired_ratios(a, b)); }

std::vector<int> measure_cpus(int threads) {
  std::vector<int> allowed;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) allowed.push_back(c);
  if (allowed.empty()) return {};
  const std::size_t n = std::min<std::size_t>(allowed.size(), std::size_t(std::max(1, threads)));
  return std::vector<int>(allowed.end() - std::ptrdiff_t(n), allowed.end());
}

namespace {

InterleavedTiming run_once(const std::vector<std::string>& so_paths, const std::vector<KernelBuffer>& buffers,
                           const StagedInputs& inputs, const TimerOptions& opt, int repeats) {
  InterleavedTiming out;
  KernelRunOptions ko;
  ko.warmup = opt.warmup;
  ko.repeats = repeats;
  ko.threads = opt.threads;
  ko.flush_cache = opt.cold_cache;
  ko.number = 1;
  ko.min_batch_seconds = opt.cold_cache ? 0.0 : opt.min_repeat_ms / 1000.0;
  ko.max_number = opt.max_number;
  ko.budget_seconds = opt.kernel_budget_s;
  ko.more_kernels.assign(so_paths.begin() + 1, so_paths.end());
  // With --measure-jobs, hold a node-wide slot while the child runs and pin it to that slot's CPUs.
  NodeSlotLease slot = acquire_node_measure_slot();
  ko.cpus = !opt.cpus.empty() ? opt.cpus : slot.held() ? slot.cpus() : measure_cpus(opt.threads);
  ko.limits = opt.limits;
  ko.want_outputs = false;
  ko.compile = opt.compile;
  const auto kr = run_kernel(so_paths.at(0), buffers, inputs, ko);
  if (!kr.ok) {
    out.error = kr.error;
    return out;
  }
  for (std::size_t k = 0; k < kr.kernel_times.size(); ++k) {
    ProgramTiming p;
    p.number = kr.numbers[k];
    p.per_call = kr.kernel_times[k];
    p.repeats = int(p.per_call.size());
    p.stats = time_stats(p.per_call);
    if (p.repeats < 1 || p.repeats > repeats) {
      out.error = "runner reported " + std::to_string(p.repeats) + " of " + std::to_string(repeats) + " rounds";
      return out;
    }
    out.programs.push_back(std::move(p));
  }
  out.ok = true;
  return out;
}

bool too_noisy(const InterleavedTiming& t, double limit) {
  for (const auto& p : t.programs)
    if (p.rel_iqr() > limit) return true;
  if (t.programs.size() >= 2) {
    const TimeStats r = paired_ratio(t.programs.front(), t.programs.back());
    if (r.median > 0 && r.iqr / r.median > limit) return true;
  }
  return false;
}

}  // namespace

InterleavedTiming time_interleaved(const std::vector<std::string>& so_paths, const std::vector<KernelBuffer>& buffers,
                                   const interp::TensorMap& inputs, const TimerOptions& opt) {
  try {
    const StagedInputs staged(buffers, inputs);
    return time_interleaved(so_paths, buffers, staged, opt);
  } catch (const std::invalid_argument& e) {
    return {false, e.what(), {}, false};
  }
}

InterleavedTiming time_interleaved(const std::vector<std::string>& so_paths, const std::vector<KernelBuffer>& buffers,
                                   const StagedInputs& inputs, const TimerOptions& opt) {
  if (so_paths.empty()) return {false, "no kernel to time", {}, false};
  const int repeats = std::max(1, opt.repeats);
  InterleavedTiming t = run_once(so_paths, buffers, inputs, opt, repeats);
  if (t.ok && too_noisy(t, opt.redo_above)) {
    t = run_once(so_paths, buffers, inputs, opt, 2 * repeats);
    t.redone = true;
  }
  return t;
}

}  // namespace steptp::runtime
