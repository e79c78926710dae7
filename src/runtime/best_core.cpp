#include "runtime/best_core.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "base/file_io.hpp"
#include "base/rng.hpp"
#include "runtime/library_baseline.hpp"
#include "runtime/sandbox.hpp"

#ifdef STEPTP_WITH_CBLAS
#include <cblas.h>
#endif

namespace steptp::runtime {
namespace {

const std::vector<std::string> kForcingVars(std::begin(kBlasForcingVars), std::end(kBlasForcingVars));

std::string& self_executable() {
  static std::string path;
  return path;
}

core::ojson forcing_vars_set() {
  core::ojson set = core::ojson::object();
  for (const auto& v : kForcingVars)
    if (const char* x = std::getenv(v.c_str())) set[v] = x;
  return set;
}

/// Runs `steptp library-baseline ARGS` without the forcing variables; its last output line parsed, or null.
core::ojson run_child(const std::vector<std::string>& args, std::string* why) {
  std::vector<std::string> argv{self_executable(), "library-baseline"};
  argv.insert(argv.end(), args.begin(), args.end());
  const SandboxResult r = run_sandboxed(argv, {}, 600.0, 0, kForcingVars);
  if (!r.ok) {
    *why = "the child without the variables failed: " + r.reason;
    return nullptr;
  }
  std::string out = r.output;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  const auto nl = out.rfind('\n');
  try {
    return core::ojson::parse(nl == std::string::npos ? out : out.substr(nl + 1));
  } catch (const std::exception& e) {
    *why = std::string("the child's output is not JSON: ") + e.what();
    return nullptr;
  }
}

core::ojson in_process(const std::string& kept_reason) {
  return {{"library", blas_library_info()}, {"core_check_max_rel_err", blas_core_check()},
          {"dropped", core::ojson::object()}, {"kept_reason", kept_reason.empty() ? core::ojson() : core::ojson(kept_reason)}};
}

core::ojson probe() {
  const core::ojson forced = forcing_vars_set();
  if (forced.empty()) return in_process("");
  if (self_executable().empty()) return in_process("this program cannot start a steptp child");
  std::string why;
  core::ojson child = run_child({}, &why);
  if (child.is_object() && child.value("core_check_max_rel_err", 1.0) <= kBlasCheckTolerance &&
      child.value("core_check_max_rel_err", -1.0) >= 0) {
    child["dropped"] = forced;
    child["kept_reason"] = nullptr;
    return child;
  }
  if (why.empty())
    why = fmt::format("the core OpenBLAS detects without the variables failed the sgemm check (max rel err {})",
                      child.is_object() ? child.value("core_check_max_rel_err", -1.0) : -1.0);
  return in_process(why);
}

}  // namespace

double blas_core_check() {
#ifdef STEPTP_WITH_CBLAS
  const int m = 192, n = 160, k = 224;
  core::Rng g{20261206};
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n);
  for (auto& x : a) x = float(2.0 * g.real01() - 1.0);
  for (auto& x : b) x = float(2.0 * g.real01() - 1.0);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
  double diff = 0, scale = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int p = 0; p < k; ++p) ref += double(a[std::size_t(i) * k + p]) * double(b[std::size_t(p) * n + j]);
      diff = std::max(diff, std::fabs(ref - double(c[std::size_t(i) * n + j])));
      scale = std::max(scale, std::fabs(ref));
    }
  return scale > 0 ? diff / scale : 0.0;
#else
  return -1;
#endif
}

void set_self_executable(const std::string& path) { self_executable() = path; }

core::ojson baseline_library() {
  if (!cblas_available()) return nullptr;
  static std::once_flag once;
  static core::ojson probed;
  std::call_once(once, [] { probed = probe(); });
  return probed;
}

core::ojson time_library_baseline_best(const std::string& workload, const ir::Task& t, int repeats, int threads) {
  const core::ojson lib = baseline_library();
  if (!lib.is_object() || lib["dropped"].empty() || !library_call(workload, t))
    return time_library_baseline(workload, t, repeats, threads);
  const std::string dir = std::filesystem::temp_directory_path() / fmt::format("steptp-baseline-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string task_path = dir + "/task.json";
  ir::write_file_atomic(task_path, ir::task_to_json(t));
  std::string why;
  core::ojson child = run_child({"--workload", workload, "--task", task_path, "--repeats", std::to_string(repeats),
                                 "--threads", std::to_string(threads)},
                                &why);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (child.is_object() && child.contains("timing")) return child["timing"];
  core::ojson own = time_library_baseline(workload, t, repeats, threads);
  if (own.is_object()) own["note"] = "timed in this process, under the forcing variables: " + why;
  return own;
}

}  // namespace steptp::runtime
