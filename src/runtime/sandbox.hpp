// Running a program in a sandboxed child process: fork + exec, own process group, RLIMIT_AS memory limit, no core
// dumps, wall-clock timeout (SIGKILL to the whole group). A crash, hang or OOM of the child is reported, never
// propagated to steptp.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace steptp::runtime {

struct SandboxResult {
  bool ok = false;            // exited with status 0
  int exit_status = -1;       // when exited normally
  int signal = 0;             // when killed by a signal
  bool timed_out = false;
  double wall_seconds = 0;
  std::string output;         // stdout + stderr of the child (truncated to 64 KiB)
  /// "" when ok; else "timeout after 2 s", "signal 11 (SIGSEGV)", "out of memory" (exit status 99, the
  /// lowerings' allocation-failure code), or "exit status 3", followed by ": <last line of output>" if any.
  std::string reason;
};

/// Runs argv[0] (absolute path) with `argv`, extra environment variables `env` and without the variables `unset`.
/// `memory_bytes` = 0: no limit. Throws std::runtime_error only if fork itself fails.
SandboxResult run_sandboxed(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                            double timeout_seconds, std::uint64_t memory_bytes,
                            const std::vector<std::string>& unset = {});

/// Exit status used by generated code and the runner for allocation failures.
constexpr int kExitOutOfMemory = 99;

}  // namespace steptp::runtime
