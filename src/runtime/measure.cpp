#include "runtime/measure.hpp"

#include <cstdio>
#include <stdexcept>

#include "ir/diag.hpp"
#include "lower/lower.hpp"
#include "runtime/compile.hpp"
#include "runtime/kernel.hpp"

namespace steptp::runtime {

Compiled compile_c(const std::string& code, const CompileOptions& opt) {
  return compile_cached(code, cxx_command(opt), opt.flags, ".cpp", ".so", opt.cache_dir);
}

namespace {
std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\t': r += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          r += b;
        } else {
          r += c;
        }
    }
  }
  return r;
}
std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6e", v);
  return b;
}
}  // namespace

std::string MeasureResult::to_json() const {
  std::string s = "{\"ok\": " + std::string(ok ? "true" : "false");
  if (!ok) s += ", \"error\": \"" + json_escape(error) + "\"";
  s += ", \"median\": " + num(median) + ", \"iqr\": " + num(iqr) + ", \"min\": " + num(min) +
       ", \"repeats\": " + std::to_string(repeats) + ", \"compile_seconds\": " + num(compile_seconds) +
       ", \"cache_hit\": " + (cache_hit ? "true" : "false") + ", \"unit\": \"seconds\"}";
  return s;
}

MeasureResult measure_so(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                         const interp::TensorMap& inputs, const MeasureOptions& opt) {
  MeasureResult r;
  KernelRunOptions ko;
  ko.warmup = opt.warmup;
  ko.repeats = opt.repeats;
  ko.threads = opt.threads;
  ko.flush_cache = opt.flush_cache;
  ko.limits = opt.limits;
  ko.want_outputs = false;
  ko.compile = opt.compile;
  const auto kr = run_kernel(so_path, buffers, inputs, ko);
  if (!kr.ok) {
    r.error = kr.error;
    return r;
  }
  const auto st = time_stats(kr.times);
  r.ok = true;
  r.median = st.median;
  r.iqr = st.iqr;
  r.min = st.min;
  r.repeats = static_cast<int>(kr.times.size());
  return r;
}

MeasureResult measure(const ir::Task& t, const MeasureOptions& opt) {
  const std::string code = lower::lower_c(t);  // throws LeirError for invalid tasks
  Compiled c;
  try {
    c = compile_c(code, opt.compile);
  } catch (const std::exception& e) {
    MeasureResult r;
    r.error = e.what();
    return r;
  }
  const auto inputs = interp::make_inputs(t, opt.seed, interp::Distribution::Normal);
  MeasureResult r = measure_so(c.so_path, kernel_buffers(t), inputs, opt);
  r.compile_seconds = c.compile_seconds;
  r.cache_hit = c.cache_hit;
  return r;
}

interp::TensorMap run_compiled(const ir::Task& t, const interp::TensorMap& inputs, const SandboxLimits& lim,
                               const CompileOptions& copt) {
  const Compiled c = compile_c(lower::lower_c(t), copt);
  KernelRunOptions ko;
  ko.limits = lim;
  ko.compile = copt;
  auto kr = run_kernel(c.so_path, kernel_buffers(t), inputs, ko);
  if (!kr.ok) throw std::runtime_error("generated code failed: " + kr.error);
  return std::move(kr.outputs);
}

}  // namespace steptp::runtime
