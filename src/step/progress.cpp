#include "step/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace steptp::dataset {

Progress::Progress(std::string stage, std::int64_t total, bool enabled)
    : stage_(std::move(stage)), total_(total), enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_(start_) {
  draw(true);
}

Progress::~Progress() { finish(); }

void Progress::tick(std::int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ += n;
  draw(false);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  finished_ = true;
  if (tty_ || done_ != last_reported_) draw(true);
  if (enabled_ && tty_) std::fputs("\n", stderr);
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_).count();
  if (tty_) {
    if (!force && since < 0.1) return;
  } else {
    bool step = total_ > 0 && (done_ * 10 / total_) != (last_reported_ < 0 ? -1 : last_reported_ * 10 / total_);
    if (!force && !step && since < 10) return;
    if (done_ == last_reported_ && !force) return;
  }
  last_ = now;
  last_reported_ = done_;
  double el = std::chrono::duration<double>(now - start_).count();
  double rate = el > 0 ? double(done_) / el : 0;
  std::string eta = "--:--";
  if (rate > 0 && total_ >= done_) {
    auto s = std::int64_t(double(total_ - done_) / rate);
    eta = fmt::format("{}:{:02d}", s / 60, int(s % 60));
  }
  const int pct = total_ > 0 ? int(done_ * 100 / total_) : 100;
  std::string r = rate >= 1.0 ? fmt::format("{:.1f}/s", rate) : fmt::format("{:.1f}/min", rate * 60.0);
  std::string line = fmt::format("[{}] {}/{} ({}%) {} elapsed {}:{:02d} ETA {}", stage_, done_, total_, pct, r,
                                 std::int64_t(el) / 60, int(std::int64_t(el) % 60), eta);
  if (tty_) fmt::print(stderr, "\r{}\x1b[K", line);
  else fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
}

}  // namespace steptp::dataset
