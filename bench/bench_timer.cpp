// Timer quality benchmark (issue #9; figures in bench/RESULTS.md, "Grounded measurement"): each program is
// timed against itself, so the true speedup is exactly 1 and every deviation is measurement error. For a few
// built-in workloads at the shapes `make run` measures (grown to target_root_ops = 2^20) and at the old small
// shapes, it compares
//   * the anchor, the timer before issue #9: before and after in two separate children, one call per repeat,
//     15 repeats, speedup = ratio of medians;
//   * the calibrated ABBA timer of runtime/interleaved.hpp at min_repeat_ms = 0.25, 1, 4 (15 rounds),
// reporting per setting the median |speedup - 1| over trials, the median relative IQR of the paired ratios, the
// share of trials whose 95% CI half-width 1.57·IQR/sqrt(15) exceeds the noise limit 0.03 (the first condition of
// the `noisy` rule), and the wall time per measurement.
// Usage: bench_timer [trials=7]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <algorithm>

#include "dataset/units.hpp"
#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "lower/lower.hpp"
#include "runtime/compile.hpp"
#include "runtime/interleaved.hpp"
#include "runtime/kernel.hpp"

using namespace steptp;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Row {
  double err = 0, rel_iqr = 0, noisy = 0, ms = 0, root_us = 0;
};

Row run(const ir::Task& t, double min_ms, bool anchor, int trials) {
  const std::string so = runtime::compile_c(lower::lower_c(t)).so_path;
  const auto bufs = runtime::kernel_buffers(t);
  const auto in = equiv::make_inputs(t, 0, equiv::Distribution::Normal);
  std::vector<double> errs, iqrs, times, roots;
  int noisy = 0;
  for (int k = 0; k < trials; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    runtime::TimerOptions o;
    o.repeats = 15;
    o.redo_above = 1e9;
    double sp = 0, riqr = 0;
    if (anchor) {
      o.min_repeat_ms = 0;  // one call per repeat, each program in its own child
      const auto a = runtime::time_interleaved({so}, bufs, in, o), b = runtime::time_interleaved({so}, bufs, in, o);
      if (!a.ok || !b.ok) continue;
      sp = a.programs[0].stats.median / b.programs[0].stats.median;
      riqr = std::max(a.programs[0].rel_iqr(), b.programs[0].rel_iqr());
      roots.push_back(a.programs[0].stats.median * 1e6);
    } else {
      o.min_repeat_ms = min_ms;
      const auto a = runtime::time_interleaved({so, so}, bufs, in, o);
      if (!a.ok) continue;
      const auto r = runtime::paired_ratio(a.programs[0], a.programs[1]);
      sp = r.median;
      riqr = r.median > 0 ? r.iqr / r.median : 0;
      roots.push_back(a.programs[0].stats.median * 1e6);
    }
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    errs.push_back(std::fabs(sp - 1));
    iqrs.push_back(riqr);
    noisy += 1.57 * riqr / std::sqrt(15.0) > 0.03;  // CI half-width over the noise limit (timing.cpp noisy_pair)
  }
  return {median(errs), median(iqrs), double(noisy) / std::max(1, trials), median(times), median(roots)};
}

}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 7;
  std::printf("| workload | shape | timer | root µs | median abs(speedup-1) | median rel. IQR of ratios | share with CI "
              "half-width > 0.03 | ms per measurement |\n|---|---|---|---|---|---|---|---|\n");
  for (const char* w : {"ReLU", "softmax", "Matmul3D"}) {
    for (std::int64_t target : {std::int64_t(0), std::int64_t(1) << 20}) {
      dataset::GenConfig c;
      c.workloads = {w};
      c.instances_per_workload = 1;
      c.target_root_ops = target;
      std::vector<dataset::Reject> rej;
      const auto units = dataset::plan_units(c, rej);
      if (units.empty()) continue;
      const ir::Task t = dataset::emit_root_task(units[0]);
      const char* shape = target ? "grown (2^20)" : "small";
      auto print = [&](const char* timer, const Row& r) {
        std::printf("| %s | %s | %s | %.1f | %.4f | %.4f | %.2f | %.1f |\n", w, shape, timer, r.root_us, r.err, r.rel_iqr,
                    r.noisy, r.ms);
        std::fflush(stdout);
      };
      print("anchor: 1 call/repeat, separate children", run(t, 0, true, trials));
      for (double ms : {0.25, 1.0, 4.0}) {
        char name[64];
        std::snprintf(name, sizeof name, "ABBA, min_repeat_ms %.2f", ms);
        print(name, run(t, ms, false, trials));
      }
    }
  }
}
