// Helpers for the lowering tests: the task files under tests/lower and small process utilities.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/task.hpp"

namespace steptp::testing {

inline std::string lower_test_dir() { return std::string(STEPTP_SOURCE_DIR) + "/tests/lower"; }

/// Tasks of a JSONL file under tests/lower (asserting that every line parses).
inline std::vector<ir::Task> load_tasks(const std::string& rel) {
  std::vector<ir::Task> r;
  for (auto& t : ir::read_tasks_jsonl(lower_test_dir() + "/" + rel))
    if (t.ok) r.push_back(std::move(t.task));
    else throw std::runtime_error("bad test task: " + t.error.headline());
  return r;
}

/// The task of `ts` whose workload is `w`; throws std::runtime_error when there is none.
inline const ir::Task& task_named(const std::vector<ir::Task>& ts, const std::string& w) {
  for (const auto& t : ts)
    if (t.workload == w) return t;
  throw std::runtime_error("no task " + w);
}

/// Runs a shell command; returns its exit status and captures stdout+stderr.
inline int run_command(const std::string& cmd, std::string* out = nullptr) {
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  std::string s;
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  const int rc = pclose(f);
  if (out) *out = s;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// A per-user cache directory for compiled test kernels (kept between runs, so reruns are fast).
inline std::string test_cache_dir() { return "/tmp/steptp-test-cache-" + std::to_string(getuid()); }

}  // namespace steptp::testing
