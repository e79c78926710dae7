// Progress reporting on stderr: on a TTY one self-updating line "[stage] done/total (pct%) rate elapsed m:ss ETA m:ss"
// (rate per second, or per minute below 1/s); otherwise
// plain lines at most every 10 % or 10 s. Thread-safe. Never writes to stdout or output files.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace steptp::dataset {

class Progress {
 public:
  Progress(std::string stage, std::int64_t total, bool enabled);
  ~Progress();
  void tick(std::int64_t n = 1);
  void finish();

 private:
  void draw(bool force);
  std::string stage_;
  std::int64_t total_, done_ = 0, last_reported_ = -1;
  bool enabled_, tty_, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  std::mutex mu_;
};

}  // namespace steptp::dataset
