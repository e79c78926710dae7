// MeasureGate (DATASET.md §2.7 "one measurement per machine at a time"): a measurement runs alone, and a thread in a
// long compute section lets a waiting measurement run at its yield points instead of at the section's end.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "step/measure_gate.hpp"

namespace {
using steptp::dataset::MeasureGate;
using Clock = std::chrono::steady_clock;

TEST(MeasureGate, AWaitingMeasurementRunsAtTheNextYieldPoint) {
  MeasureGate gate;
  std::atomic<int> phase{0};
  std::atomic<bool> measured{false}, waiting{false};
  std::atomic<int> phase_seen{-1};
  std::thread worker([&] {
    MeasureGate::Compute section(&gate);
    phase = 1;
    while (!waiting) std::this_thread::yield();
    // Still inside the section: only the yield points let the measurement in. Without them it would wait for the
    // section's end, and this loop would run out its 20 s.
    const auto until = Clock::now() + std::chrono::seconds(20);
    while (!measured && Clock::now() < until) {
      MeasureGate::yield_current();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    phase = 2;
  });
  while (phase != 1) std::this_thread::yield();
  waiting = true;
  gate.exclusive([&] {
    phase_seen = phase.load();
    measured = true;
    return 0;
  });
  worker.join();
  EXPECT_TRUE(measured);
  EXPECT_EQ(phase_seen, 1);  // ran while the worker was paused inside its section
}

TEST(MeasureGate, YieldOutsideASectionOrWithNothingWaitingReturnsAtOnce) {
  MeasureGate gate;
  MeasureGate::yield_current();  // no section
  int done = 0;
  {
    MeasureGate::Compute section(&gate);
    MeasureGate::yield_current();  // nothing waits
    done = 1;
  }
  EXPECT_EQ(done, 1);
  // After the section the gate is free: a measurement runs without waiting.
  EXPECT_EQ(gate.exclusive([] { return 7; }), 7);
}

}  // namespace
