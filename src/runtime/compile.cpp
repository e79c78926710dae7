#include "runtime/compile.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>
#include <stdexcept>

#include "ir/task.hpp"
#include "runtime/runner_source.hpp"

namespace steptp::runtime {

namespace fs = std::filesystem;

std::string cache_dir(const std::string& dir) {
  std::string d = dir;
  if (d.empty()) {
    if (const char* e = std::getenv("STEPTP_CACHE"); e && *e) d = e;
  }
  if (d.empty()) {
    const char* home = std::getenv("HOME");
    d = std::string(home && *home ? home : "/tmp") + "/.cache/steptp/so";
  }
  std::error_code ec;
  fs::create_directories(d, ec);
  if (!fs::is_directory(d)) throw std::runtime_error("cannot create cache directory " + d);
  return d;
}

std::string content_hash(const std::vector<std::string>& parts) {
  std::uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
  auto mix = [&](unsigned char c) {
    h1 = (h1 ^ c) * 0x100000001b3ULL;
    h2 = (h2 ^ c) * 0x100000001b3ULL;
    h2 ^= h2 >> 29;
  };
  for (const auto& p : parts) {
    for (unsigned char c : p) mix(c);
    mix(0);
    mix(0xff);
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h1),
                static_cast<unsigned long long>(h2));
  return buf;
}

std::string cxx_command(const CompileOptions& opt) {
  if (!opt.cxx.empty()) return opt.cxx;
  if (const char* e = std::getenv("CXX"); e && *e) return e;
  return "c++";
}

namespace {
std::string shell_quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

/// Runs `cmd` with stderr folded into stdout; returns its exit status (-1 when it cannot start) and the first
/// `limit` bytes of its output.
std::pair<int, std::string> run_captured(const std::string& cmd, std::size_t limit) {
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return {-1, ""};
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    if (out.size() < limit) out.append(buf, n);
  return {pclose(f), out};
}
/// The mutex of one cache entry (entries are never erased: one per distinct program compiled by the process).
std::mutex& key_mutex(const std::string& entry) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<std::mutex>> locks;
  std::lock_guard<std::mutex> lock(mu);
  auto& m = locks[entry];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}
}  // namespace

int compile_timeout_seconds() {
  if (const char* e = std::getenv("STEPTP_COMPILE_TIMEOUT"); e && *e) {
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (end && *end == 0 && v > 0 && v < 86400) return int(v);
  }
  return kCompileTimeoutSeconds;
}

Compiled compile_cached(const std::string& code, const std::string& compiler, const std::string& flags,
                        const std::string& src_ext, const std::string& out_ext, const std::string& dir,
                        const std::string& unkeyed_flags) {
  const std::string d = cache_dir(dir);
  const std::string key = content_hash({code, compiler, flags, out_ext});
  Compiled c;
  c.so_path = d + "/" + key + out_ext;
  if (access(c.so_path.c_str(), R_OK) == 0) {
    c.cache_hit = true;
    return c;
  }
  // One compile of a program per process at a time: threads share the source and temporary paths (named by the
  // process), so a second thread waits for the first and then finds the result in the cache.
  const std::unique_lock<std::mutex> one(key_mutex(d + "/" + key));
  if (access(c.so_path.c_str(), R_OK) == 0) {
    c.cache_hit = true;
    return c;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string src = d + "/" + key + src_ext;
  ir::write_file_atomic(src, code);
  const std::string tmp = d + "/" + key + ".tmp" + std::to_string(getpid()) + out_ext;
  // Generated code can be pathological (a model's fully unrolled loop nest): the compiler runs under a wall-clock
  // limit (coreutils `timeout`, killed 5 s after SIGTERM) and an address-space limit, so one program cannot stall
  // or exhaust the machine.
  const int limit_s = compile_timeout_seconds();
  const std::string cmd = "ulimit -v " + std::to_string(kCompileMemoryKiB) + "; timeout -k 5 " +
                          std::to_string(limit_s) + " " + compiler + " " + flags +
                          (unkeyed_flags.empty() ? "" : " " + unkeyed_flags) + " -o " + shell_quote(tmp) + " " +
                          shell_quote(src);
  const auto [rc, diag] = run_captured(cmd, 16384);
  if (rc == -1) throw std::runtime_error("compile error: cannot run " + compiler);
  if (rc != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    if (WIFEXITED(rc) && (WEXITSTATUS(rc) == 124 || WEXITSTATUS(rc) == 137))
      throw std::runtime_error("compile error: the compiler ran longer than " + std::to_string(limit_s) +
                               " s (generated code too large?)");
    throw std::runtime_error("compile error: " + (diag.empty() ? "exit status " + std::to_string(rc) : diag));
  }
  if (std::rename(tmp.c_str(), c.so_path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
  c.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string fast_link_flags(const std::string& compiler) {
  if (compiler.find("nvcc") != std::string::npos) return "";
  static std::mutex mu;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(compiler); it != known.end()) return it->second;
  // The driver runs the linker it would use, which prints its name.
  const auto [rc, out] = run_captured(compiler + " -fuse-ld=gold -Wl,--version", 4096);
  return known[compiler] = rc == 0 && out.find("GNU gold") != std::string::npos ? "-fuse-ld=gold" : "";
}

std::string runner_path(const CompileOptions& opt) {
  // -ldl for dlopen on older glibc; the runner itself does not use OpenMP (the kernels link libgomp).
  return compile_cached(runner_source(), cxx_command(opt), "-O2 -std=c++17", ".runner.cpp", ".runner", opt.cache_dir)
      .so_path;
}

}  // namespace steptp::runtime
