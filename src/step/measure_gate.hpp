// A quiet machine for S7 (DATASET.md §2.7 "one measurement per machine at a time", issue #9): worker threads hold a
// compute section while they run strategies, the interpreter and the compiler; a measurement waits until every
// compute section has ended, blocks new ones (writer preference, so measurements never starve) and runs alone.
// Without it, a compile on the neighbouring core doubled the share of noisy records (bench/RESULTS.md).
#pragma once
#include <condition_variable>
#include <mutex>

namespace steptp::dataset {

class MeasureGate {
 public:
  /// Begins a compute section of this thread (re-entrant per thread). Waits while a measurement runs or waits.
  void enter_compute();
  /// Ends the innermost compute section of this thread.
  void leave_compute();
  /// A point where this thread's compute sections may pause: when a measurement waits, they are suspended until it
  /// has run (so it waits for one step of the other threads' work, not for their whole unit). A no-op outside a
  /// compute section or when nothing waits. Call between steps that hold no lock another thread's measurement needs.
  static void yield_current();
  /// Runs `fn` alone: suspends this thread's compute sections (if any), waits for the others to end, runs `fn`,
  /// then restores this thread's sections. Measurements are serialised.
  template <class Fn>
  auto exclusive(Fn&& fn) {
    struct Restore {
      MeasureGate& g;
      int depth;
      ~Restore() { g.end_exclusive(depth); }
    } restore{*this, begin_exclusive()};
    return fn();
  }

  /// RAII compute section.
  class Compute {
   public:
    explicit Compute(MeasureGate* g) : g_(g) {
      if (g_) g_->enter_compute();
    }
    ~Compute() {
      if (g_) g_->leave_compute();
    }
    Compute(const Compute&) = delete;
    Compute& operator=(const Compute&) = delete;

   private:
    MeasureGate* g_;
  };

 private:
  void yield();
  int begin_exclusive();          // returns this thread's compute depth that was suspended
  void end_exclusive(int depth);

  std::mutex mu_;
  std::condition_variable cv_;
  int computing_ = 0;             // threads inside a compute section
  int waiting_ = 0;               // measurements waiting
  bool measuring_ = false;
};

}  // namespace steptp::dataset
