#include "runtime/sandbox.hpp"

#include <algorithm>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace steptp::runtime {
namespace {

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return "signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : std::string());
}

std::string last_line(const std::string& s) {
  std::size_t end = s.find_last_not_of("\n\r ");
  if (end == std::string::npos) return {};
  std::size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

}  // namespace

SandboxResult run_sandboxed(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                            double timeout_seconds, std::uint64_t memory_bytes, const std::vector<std::string>& unset) {
  SandboxResult r;
  char tmpl[] = "/tmp/steptp-sandbox-XXXXXX";
  const int out_fd = mkstemp(tmpl);
  if (out_fd < 0) throw std::runtime_error("sandbox: cannot create output file");
  unlink(tmpl);

  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    const std::string name = kv.substr(0, kv.find('='));
    if (!env.count(name) && std::find(unset.begin(), unset.end(), name) == unset.end()) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(out_fd);
    throw std::runtime_error("sandbox: fork failed: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    // child: only async-signal-safe calls until exec
    setpgid(0, 0);
    // Die with the parent: the child is in its own process group, so a Ctrl-C or a `timeout` that kills steptp
    // would otherwise leave it running (pinned to the measurement CPU, distorting every later timing). The
    // getppid() check closes the race of a parent that died before prctl.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (memory_bytes) {
      struct rlimit rl{memory_bytes, memory_bytes};
      setrlimit(RLIMIT_AS, &rl);
    }
    struct rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, to avoid the race with the child's own call

  int status = 0;
  auto sleep_for = std::chrono::microseconds(200);
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (el > timeout_seconds) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(sleep_for);
    if (sleep_for < std::chrono::milliseconds(10)) sleep_for *= 2;
  }
  kill(-pid, SIGKILL);  // stray grandchildren, if any
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // collect output
  lseek(out_fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(out_fd, buf, sizeof buf)) > 0 && r.output.size() < 65536) r.output.append(buf, static_cast<std::size_t>(n));
  close(out_fd);

  if (r.timed_out) {
    char t[64];
    std::snprintf(t, sizeof t, "timeout after %g s", timeout_seconds);
    r.reason = t;
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.reason = signal_name(r.signal);
  } else if (WIFEXITED(status)) {
    r.exit_status = WEXITSTATUS(status);
    r.ok = r.exit_status == 0;
    if (!r.ok) r.reason = r.exit_status == kExitOutOfMemory ? "out of memory" : "exit status " + std::to_string(r.exit_status);
  }
  if (!r.ok) {
    const std::string ll = last_line(r.output);
    if (!ll.empty()) r.reason += ": " + ll;
  }
  return r;
}

}  // namespace steptp::runtime
