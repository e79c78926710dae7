#include "runtime/best_core.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
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

/// Runs `steptp library-baseline ARGS` without the forcing variables, with `env` set (a core forced by
/// probe()); its last output line parsed, or null.
core::ojson run_child(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                      std::string* why) {
  std::vector<std::string> argv{self_executable(), "library-baseline"};
  argv.insert(argv.end(), args.begin(), args.end());
  const SandboxResult r = run_sandboxed(argv, env, 600.0, 0, kForcingVars);
  if (!r.ok) {
    *why = (env.empty() ? "the child without the variables failed: " : "the child with a forced core failed: ") +
           r.reason;
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

bool check_passes(const core::ojson& child) {
  return child.is_object() && child.value("core_check_max_rel_err", 1.0) <= kBlasCheckTolerance &&
         child.value("core_check_max_rel_err", -1.0) >= 0;
}

double check_error(const core::ojson& child) {
  return child.is_object() ? child.value("core_check_max_rel_err", -1.0) : -1.0;
}

/// The core OpenBLAS detects: in a child without the forcing variables when they are set and its sgemm check
/// passes, else in this process.
core::ojson detected_core(const core::ojson& forced) {
  if (forced.empty()) return in_process("");
  if (self_executable().empty()) return in_process("this program cannot start a steptp child");
  std::string why;
  core::ojson child = run_child({}, {}, &why);
  if (check_passes(child)) {
    child["dropped"] = forced;
    child["kept_reason"] = nullptr;
    return child;
  }
  if (why.empty())
    why = fmt::format("the core OpenBLAS detects without the variables failed the sgemm check (max rel err {})",
                      check_error(child));
  return in_process(why);
}

/// detected_core(), unless OpenBLAS detected a core below the CPU's vector ISA (a guest that hides its CPU model:
/// OpenBLAS 0.3.21 falls back to Prescott's SSE3 kernels on an AVX-512 Xeon): then a child with
/// OPENBLAS_CORETYPE set to openblas_core_for_cpu(), if its sgemm check passes.
core::ojson probe() {
  const core::ojson forced = forcing_vars_set();
  core::ojson chosen = detected_core(forced);
  const std::string want = openblas_core_for_cpu();
  const std::string got = chosen.is_object() ? chosen["library"].value("openblas_core", "") : "";
  if (want.empty() || openblas_core_level(got) >= openblas_core_level(want) || self_executable().empty())
    return chosen;
  std::string why;
  core::ojson child = run_child({}, {{"OPENBLAS_CORETYPE", want}}, &why);
  if (check_passes(child)) {
    child["dropped"] = forced;
    child["kept_reason"] = nullptr;
    child["forced"] = {{"OPENBLAS_CORETYPE", want}};
    child["forced_reason"] = fmt::format("OpenBLAS detected {} on a CPU whose widest kernels are {}'s", got, want);
    return child;
  }
  chosen["forced_reason"] =
      fmt::format("OPENBLAS_CORETYPE={} was not used: {}", want,
                  why.empty() ? fmt::format("its sgemm check failed (max rel err {})", check_error(child)) : why);
  return chosen;
}

const char* const kAvx512Cores[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
const char* const kAvx2Cores[] = {"Haswell", "Zen"};

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

std::string openblas_core_for_cpu() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

int openblas_core_level(const std::string& core) {
  for (const char* c : kAvx512Cores)
    if (core == c) return 3;
  for (const char* c : kAvx2Cores)
    if (core == c) return 2;
  return 1;
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
  const bool child = lib.is_object() && (!lib["dropped"].empty() || lib.contains("forced"));
  if (!child || !library_call(workload, t)) return time_library_baseline(workload, t, repeats, threads);
  std::map<std::string, std::string> env;
  if (lib.contains("forced"))
    for (const auto& [k, v] : lib["forced"].items()) env[k] = v.get<std::string>();
  const std::string dir = std::filesystem::temp_directory_path() / fmt::format("steptp-baseline-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string task_path = dir + "/task.json";
  ir::write_file_atomic(task_path, ir::task_to_json(t));
  std::string why;
  core::ojson timed = run_child({"--workload", workload, "--task", task_path, "--repeats", std::to_string(repeats),
                                 "--threads", std::to_string(threads)},
                                env, &why);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (timed.is_object() && timed.contains("timing")) return timed["timing"];
  core::ojson own = time_library_baseline(workload, t, repeats, threads);
  if (own.is_object()) own["note"] = "timed in this process, under the forcing variables: " + why;
  return own;
}

}  // namespace steptp::runtime
