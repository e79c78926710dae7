// The calibrated, interleaved timer (runtime/interleaved.hpp; DATASET.md §2.7) on hand-written kernels of known
// duration: busy-wait kernels that spin on the monotonic clock for a fixed time, so the expected `number`, the
// measured per-call time and the paired ratio are known in advance.
#include <gtest/gtest.h>

#include "runtime/compile.hpp"
#include "runtime/interleaved.hpp"
#include "runtime/kernel.hpp"
#include "../lower/lower_test_util.hpp"
#include "runtime_test_util.hpp"

namespace steptp {
namespace {


runtime::CompileOptions copts() {
  runtime::CompileOptions o;
  o.cache_dir = testing::test_cache_dir();
  return o;
}

/// A kernel that busy-waits `us` microseconds on CLOCK_MONOTONIC, then writes the CPU it ran on to C[0].
std::string spin_kernel(double us) {
  const std::string code = "#include <time.h>\n#include <sched.h>\nstatic double now() { timespec t; "
                           "clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }\n"
                           "extern \"C\" void leir_run_packed(void* const* b) {\n  const double t0 = now();\n"
                           "  while (now() - t0 < " +
                           std::to_string(us) + ") {}\n  ((float*)b[1])[0] = (float)sched_getcpu();\n}\n";
  return runtime::compile_c(code, copts()).so_path;
}

runtime::TimerOptions topts(int repeats, double min_repeat_ms) {
  runtime::TimerOptions o;
  o.warmup = 1;
  o.repeats = repeats;
  o.min_repeat_ms = min_repeat_ms;
  o.redo_above = 1e9;  // no redo: these tests check one run
  o.limits.timeout_seconds = 30;
  o.compile = copts();
  return o;
}

/// Times `sos` up to 10 times until every kernel's calibrated `number` equals `expected`, and checks that no run
/// exceeds it. A spin kernel is exact except when the OS preempts it during calibration (e.g. under `ctest -j2`):
/// that lengthens a batch, so it can only lower `number`, never raise it. Returns the last timing.
runtime::InterleavedTiming calibrated(const std::vector<std::string>& sos, const runtime::TimerOptions& o,
                                      const std::vector<std::int64_t>& expected) {
  runtime::InterleavedTiming t;
  for (int attempt = 0; attempt < 10; ++attempt) {
    t = runtime::time_interleaved(sos, testing::vec4_buffers(), testing::vec4_inputs(), o);
    if (!t.ok || t.programs.size() != expected.size()) return t;
    bool all = true;
    for (std::size_t k = 0; k < expected.size(); ++k) {
      EXPECT_LE(t.programs[k].number, expected[k]) << "kernel " << k << ": calibration overshot";
      all = all && t.programs[k].number == expected[k];
    }
    if (all) break;
  }
  return t;
}

TEST(RuntimeTimer, CalibrationPicksTheSmallestPowerOfTwoReachingTheMinimumRepeat) {
  // 300 µs per call, repeats of >= 2 ms: 4 calls last 1.2 ms (too short), 8 calls 2.4 ms -> number = 8
  const auto t = calibrated({spin_kernel(300)}, topts(5, 2.0), {8});
  ASSERT_TRUE(t.ok) << t.error;
  ASSERT_EQ(t.programs.size(), 1u);
  EXPECT_EQ(t.programs[0].number, 8);
  EXPECT_EQ(t.programs[0].repeats, 5);
  EXPECT_EQ(t.programs[0].per_call.size(), 5u);
  // a call longer than the minimum repeat runs once per repeat
  const auto l = runtime::time_interleaved({spin_kernel(1500)}, testing::vec4_buffers(), testing::vec4_inputs(), topts(3, 1.0));
  ASSERT_TRUE(l.ok) << l.error;
  EXPECT_EQ(l.programs[0].number, 1);
  // min_repeat_ms = 0: no calibration
  const auto z = runtime::time_interleaved({spin_kernel(50)}, testing::vec4_buffers(), testing::vec4_inputs(), topts(3, 0.0));
  ASSERT_TRUE(z.ok) << z.error;
  EXPECT_EQ(z.programs[0].number, 1);
}

TEST(RuntimeTimer, SpinOfKnownDurationIsMeasuredWithinTenPercent) {
  // A 400 µs spin. Another process preempting it (ctest -j2 on 2 cores; CI saw 0.90 ms once) moves the median by
  // more than 10%, so up to 20 timings (~15 ms each) are taken, as in InterleavedPairGivesThePairedRatio: a correct
  // timer gets one within 10% on a core that is free for 15 ms, a wrong one never does.
  double med = 0;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const auto t =
        runtime::time_interleaved({spin_kernel(400)}, testing::vec4_buffers(), testing::vec4_inputs(), topts(9, 1.0));
    ASSERT_TRUE(t.ok) << t.error;
    med = t.programs[0].stats.median;
    EXPECT_LE(t.programs[0].stats.q1, med);
    EXPECT_GE(t.programs[0].stats.q3, med);
    EXPECT_DOUBLE_EQ(t.programs[0].stats.iqr, t.programs[0].stats.q3 - t.programs[0].stats.q1);
    if (med > 400e-6 * 0.9 && med < 400e-6 * 1.1) break;
  }
  EXPECT_GT(med, 400e-6 * 0.9);
  EXPECT_LT(med, 400e-6 * 1.1);
}

TEST(RuntimeTimer, InterleavedPairGivesThePairedRatio) {
  // before spins 400 µs, after 200 µs: the paired speedup is 2. Another process preempting a spin (ctest -j2 on 2
  // cores) moves the median by more than 10%, so up to 20 timings (~60 ms each) are taken: a correct timer gets one
  // within 10% on a core that is free for 20 ms, a wrong one never does (5 were not enough while the real-model
  // tests loaded both cores).
  double median = 0;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const auto t = calibrated({spin_kernel(400), spin_kernel(200)}, topts(8, 1.0), {4, 8});
    ASSERT_TRUE(t.ok) << t.error;
    ASSERT_EQ(t.programs.size(), 2u);
    EXPECT_EQ(t.programs[0].number, 4);  // 4 x 400 µs >= 1 ms
    EXPECT_EQ(t.programs[1].number, 8);  // 8 x 200 µs >= 1 ms
    ASSERT_EQ(t.programs[0].per_call.size(), 8u);
    ASSERT_EQ(t.programs[1].per_call.size(), 8u);
    median = runtime::paired_ratio(t.programs[0], t.programs[1]).median;
    if (median > 2.0 * 0.9 && median < 2.0 * 1.1) break;
  }
  EXPECT_GT(median, 2.0 * 0.9);
  EXPECT_LT(median, 2.0 * 1.1);
}

TEST(RuntimeTimer, PairedRatioStatistics) {
  runtime::ProgramTiming a, b;
  a.per_call = {2, 4, 6, 8, 10};
  b.per_call = {1, 1, 1, 1, 1};
  const auto r = runtime::paired_ratio(a, b);
  EXPECT_DOUBLE_EQ(r.median, 6);
  EXPECT_DOUBLE_EQ(r.q1, 4);
  EXPECT_DOUBLE_EQ(r.q3, 8);
  EXPECT_DOUBLE_EQ(r.iqr, 4);
}

TEST(RuntimeTimer, ChildIsPinnedToTheMeasurementCpu) {
  const std::vector<int> cpus = runtime::measure_cpus(1);
  ASSERT_EQ(cpus.size(), 1u);
  runtime::KernelRunOptions ko;
  ko.cpus = cpus;
  ko.repeats = 3;
  ko.compile = copts();
  const auto r = runtime::run_kernel(spin_kernel(10), testing::vec4_buffers(), testing::vec4_inputs(), ko);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.outputs.at("C").data[0], double(cpus[0]));
}

TEST(RuntimeTimer, NoisyFirstRunIsRedoneWithTwiceTheRepeats) {
  // a kernel whose calls alternate between 100 µs and 500 µs is noisy (relative IQR far above 0.05)
  const std::string code =
      "#include <time.h>\nstatic double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + "
      "t.tv_nsec * 1e-3; }\nstatic long calls = 0;\nextern \"C\" void leir_run_packed(void* const*) {\n"
      "  const double t0 = now();\n  const double us = (calls++ % 2) ? 500 : 100;\n  while (now() - t0 < us) {}\n}\n";
  auto o = topts(6, 0.0);
  o.redo_above = 0.05;
  const auto t = runtime::time_interleaved({runtime::compile_c(code, copts()).so_path}, testing::vec4_buffers(), testing::vec4_inputs(), o);
  ASSERT_TRUE(t.ok) << t.error;
  EXPECT_TRUE(t.redone);
  EXPECT_EQ(t.programs[0].repeats, 12);
}

TEST(RuntimeTimer, SlowKernelGetsFewerRoundsWithinItsBudget) {
  // budget 0.21 s per kernel: the 40 ms kernel runs floor(0.21 / 0.040x) = 5 rounds, the 1 ms one all 10. The
  // rounds are sized from the first (timed) call; a preemption during it can only lower them, and one of the 1 ms
  // spins can move the ratio, so up to 10 attempts.
  auto o = topts(10, 1.0);
  o.kernel_budget_s = 0.21;
  runtime::InterleavedTiming t;
  runtime::TimeStats r;
  for (int attempt = 0; attempt < 10; ++attempt) {
    t = runtime::time_interleaved({spin_kernel(1000), spin_kernel(40000)}, testing::vec4_buffers(), testing::vec4_inputs(), o);
    ASSERT_TRUE(t.ok) << t.error;
    EXPECT_LE(t.programs[1].repeats, 5);
    r = runtime::paired_ratio(t.programs[1], t.programs[0]);  // over the common rounds
    if (t.programs[1].repeats == 5 && r.median > 40 * 0.9 && r.median < 40 * 1.1) break;
  }
  EXPECT_EQ(t.programs[0].repeats, 10);
  EXPECT_EQ(t.programs[1].repeats, 5);
  EXPECT_GT(r.median, 40 * 0.9);
  EXPECT_LT(r.median, 40 * 1.1);
  // a kernel far over the budget still gets 1 round
  o.kernel_budget_s = 0.01;
  const auto u = runtime::time_interleaved({spin_kernel(40000)}, testing::vec4_buffers(), testing::vec4_inputs(), o);
  ASSERT_TRUE(u.ok) << u.error;
  EXPECT_EQ(u.programs[0].repeats, 1);
}

TEST(RuntimeTimer, ColdCacheTimesOneCallPerRepeatAndFlushesTwiceTheLastLevelCache) {
  auto o = topts(3, 1.0);
  o.cold_cache = true;
  const auto t = runtime::time_interleaved({spin_kernel(20)}, testing::vec4_buffers(), testing::vec4_inputs(), o);
  ASSERT_TRUE(t.ok) << t.error;
  EXPECT_EQ(t.programs[0].number, 1);
  EXPECT_GE(runtime::flush_bytes(), 8ull << 20);
}

/// A kernel that counts its calls and writes the count to C[slot] (each shared object has its own counter).
std::string counting_kernel(int slot) {
  return runtime::compile_c("static long calls = 0;\nextern \"C\" void leir_run_packed(void* const* b) { ((float*)b[1])[" +
                                std::to_string(slot) + "] = (float)++calls; }\n",
                            copts())
      .so_path;
}

TEST(RuntimeTimer, InterleavedKernelsSettleOneUntimedRoundEachWayBeforeTiming) {
  // runner_source.hpp: W warm-up calls, then with two or more kernels one untimed call per kernel in each order, then
  // R timed rounds of `number` calls. W = 1, R = 3, number = 1: 1 + 2 + 3 = 6 calls per kernel; alone, 1 + 3 = 4.
  runtime::KernelRunOptions ko;
  ko.warmup = 1;
  ko.repeats = 3;
  ko.number = 1;
  ko.limits.timeout_seconds = 30;
  ko.compile = copts();
  ko.more_kernels = {counting_kernel(1)};
  const auto two = runtime::run_kernel(counting_kernel(0), testing::vec4_buffers(), testing::vec4_inputs(), ko);
  ASSERT_TRUE(two.ok) << two.error;
  EXPECT_EQ(two.outputs.at("C").data[0], 6.0);
  EXPECT_EQ(two.outputs.at("C").data[1], 6.0);
  EXPECT_EQ(two.kernel_times.at(0).size(), 3u);
  ko.more_kernels.clear();
  const auto one = runtime::run_kernel(counting_kernel(0), testing::vec4_buffers(), testing::vec4_inputs(), ko);
  ASSERT_TRUE(one.ok) << one.error;
  EXPECT_EQ(one.outputs.at("C").data[0], 4.0);
}

TEST(RuntimeTimer, CrashingKernelIsAnErrorResult) {
  const auto so = runtime::compile_c("extern \"C\" void leir_run_packed(void* const*) { __builtin_trap(); }\n", copts());
  const auto t = runtime::time_interleaved({spin_kernel(10), so.so_path}, testing::vec4_buffers(), testing::vec4_inputs(), topts(3, 1.0));
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.error.find("SIGILL"), std::string::npos) << t.error;
}

}  // namespace
}  // namespace steptp
