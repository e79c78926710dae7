#include "runtime/compile.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
}  // namespace

Compiled compile_cached(const std::string& code, const std::string& compiler, const std::string& flags,
                        const std::string& src_ext, const std::string& out_ext, const std::string& dir) {
  const std::string d = cache_dir(dir);
  const std::string key = content_hash({code, compiler, flags, out_ext});
  Compiled c;
  c.so_path = d + "/" + key + out_ext;
  if (access(c.so_path.c_str(), R_OK) == 0) {
    c.cache_hit = true;
    return c;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string src = d + "/" + key + src_ext;
  ir::write_file_atomic(src, code);
  const std::string tmp = d + "/" + key + ".tmp" + std::to_string(getpid()) + out_ext;
  const std::string cmd = compiler + " " + flags + " -o " + shell_quote(tmp) + " " + shell_quote(src) + " 2>&1";
  std::string diag;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) throw std::runtime_error("compile error: cannot run " + compiler);
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    if (diag.size() < 16384) diag.append(buf, n);
  const int rc = pclose(f);
  if (rc != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw std::runtime_error("compile error: " + (diag.empty() ? "exit status " + std::to_string(rc) : diag));
  }
  if (std::rename(tmp.c_str(), c.so_path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
  c.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string runner_path(const CompileOptions& opt) {
  // -ldl for dlopen on older glibc; the runner itself does not use OpenMP (the kernels link libgomp).
  return compile_cached(runner_source(), cxx_command(opt), "-O2 -std=c++17", ".runner.cpp", ".runner", opt.cache_dir)
      .so_path;
}

}  // namespace steptp::runtime
