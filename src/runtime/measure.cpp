#include "equiv/inputs.hpp"
#include "runtime/measure.hpp"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "base/diag.hpp"
#include "lower/lower.hpp"
#include "runtime/compile.hpp"
#include "runtime/interleaved.hpp"
#include "runtime/kernel.hpp"

namespace steptp::runtime {

CompileOptions kernel_compile_options(bool fp_contract) {
  CompileOptions o;
  if (fp_contract) {
    const std::string off = "-ffp-contract=off";
    o.flags.replace(o.flags.find(off), off.size(), "-ffp-contract=fast");
  }
  return o;
}

Compiled compile_c(const std::string& code, const CompileOptions& opt) {
  const std::string cxx = cxx_command(opt);
  return compile_cached(code, cxx, opt.flags, ".cpp", ".so", opt.cache_dir, fast_link_flags(cxx));
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
  s += ", \"median\": " + num(median) + ", \"q1\": " + num(q1) + ", \"q3\": " + num(q3) + ", \"iqr\": " + num(iqr) +
       ", \"min\": " + num(min) + ", \"repeats\": " + std::to_string(repeats) + ", \"number\": " +
       std::to_string(number) + ", \"redone\": " + (redone ? "true" : "false") + ", \"compile_seconds\": " +
       num(compile_seconds) + ", \"cache_hit\": " + (cache_hit ? "true" : "false") + ", \"unit\": \"seconds\"}";
  return s;
}

std::string CompareResult::to_json() const {
  std::string s = "{\"ok\": " + std::string(ok ? "true" : "false");
  if (!ok) s += ", \"error\": \"" + json_escape(error) + "\"";
  s += ", \"before\": " + before.to_json() + ", \"after\": " + after.to_json() + ", \"speedup\": " + num(speedup) +
       ", \"speedup_q1\": " + num(speedup_q1) + ", \"speedup_q3\": " + num(speedup_q3) + "}";
  return s;
}

namespace {

TimerOptions timer_options(const MeasureOptions& opt) {
  TimerOptions to;
  to.warmup = opt.warmup;
  to.repeats = opt.repeats;
  to.min_repeat_ms = opt.min_repeat_ms;
  to.cold_cache = opt.flush_cache;
  to.threads = opt.threads;
  to.cpus = opt.cpus;
  to.limits = opt.limits;
  to.compile = opt.compile;
  return to;
}

void fill(MeasureResult& r, const ProgramTiming& p, bool redone) {
  r.ok = true;
  r.median = p.stats.median;
  r.q1 = p.stats.q1;
  r.q3 = p.stats.q3;
  r.iqr = p.stats.iqr;
  r.min = p.stats.min;
  r.repeats = p.repeats;
  r.number = p.number;
  r.redone = redone;
}

}  // namespace

MeasureResult measure_so(const std::string& so_path, const std::vector<KernelBuffer>& buffers,
                         const interp::TensorMap& inputs, const MeasureOptions& opt) {
  MeasureResult r;
  const auto t = time_interleaved({so_path}, buffers, inputs, timer_options(opt));
  if (!t.ok) {
    r.error = t.error;
    return r;
  }
  fill(r, t.programs.at(0), t.redone);
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
  const auto inputs = equiv::make_inputs(t, opt.seed, equiv::Distribution::Normal);
  MeasureResult r = measure_so(c.so_path, kernel_buffers(t), inputs, opt);
  r.compile_seconds = c.compile_seconds;
  r.cache_hit = c.cache_hit;
  return r;
}

CompareResult measure_pair(const ir::Task& before, const ir::Task& after, const MeasureOptions& opt) {
  if (before.known != after.known) throw std::invalid_argument("the two programs have different known signatures");
  CompareResult r;
  const std::string cb = lower::lower_c(before), ca = lower::lower_c(after);  // throw LeirError for invalid tasks
  Compiled b, a;
  try {
    b = compile_c(cb, opt.compile);
    a = compile_c(ca, opt.compile);
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  const auto inputs = equiv::make_inputs(before, opt.seed, equiv::Distribution::Normal);
  const auto t = time_interleaved({b.so_path, a.so_path}, kernel_buffers(before), inputs, timer_options(opt));
  if (!t.ok) {
    r.error = t.error;
    return r;
  }
  fill(r.before, t.programs.at(0), t.redone);
  fill(r.after, t.programs.at(1), t.redone);
  r.before.compile_seconds = b.compile_seconds;
  r.after.compile_seconds = a.compile_seconds;
  r.before.cache_hit = b.cache_hit;
  r.after.cache_hit = a.cache_hit;
  const TimeStats q = paired_ratio(t.programs[0], t.programs[1]);
  r.ok = true;
  r.speedup = q.median;
  r.speedup_q1 = q.q1;
  r.speedup_q3 = q.q3;
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
