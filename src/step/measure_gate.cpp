#include "step/measure_gate.hpp"

namespace steptp::dataset {

namespace {
thread_local int t_depth = 0;  // compute-section nesting of this thread (any gate: a run must use one gate, see Timer)
thread_local MeasureGate* t_gate = nullptr;  // the gate of this thread's outermost compute section
}

void MeasureGate::enter_compute() {
  if (t_depth++ > 0) return;
  t_gate = this;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return waiting_ == 0 && !measuring_; });
  ++computing_;
}

void MeasureGate::leave_compute() {
  if (--t_depth > 0) return;
  t_gate = nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  --computing_;
  cv_.notify_all();
}

void MeasureGate::yield_current() {
  if (t_depth > 0 && t_gate) t_gate->yield();
}

void MeasureGate::yield() {
  std::unique_lock<std::mutex> lock(mu_);
  if (waiting_ == 0) return;
  --computing_;
  cv_.notify_all();
  cv_.wait(lock, [&] { return waiting_ == 0 && !measuring_; });
  ++computing_;
}

int MeasureGate::begin_exclusive() {
  const int depth = t_depth;
  std::unique_lock<std::mutex> lock(mu_);
  if (depth > 0) {
    --computing_;
    t_depth = 0;
  }
  ++waiting_;
  cv_.wait(lock, [&] { return computing_ == 0 && !measuring_; });
  --waiting_;
  measuring_ = true;
  return depth;
}

void MeasureGate::end_exclusive(int depth) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    measuring_ = false;
    cv_.notify_all();
  }
  if (depth > 0) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return waiting_ == 0 && !measuring_; });
    ++computing_;
    t_depth = depth;
  }
}

}  // namespace steptp::dataset
