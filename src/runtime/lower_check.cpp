#include "runtime/lower_check.hpp"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "equiv/compare.hpp"
#include "interp/interpreter.hpp"
#include "base/diag.hpp"
#include "lower/lower.hpp"
#include "runtime/compile.hpp"
#include "runtime/kernel.hpp"

namespace steptp::runtime {

std::string LowerCheckResult::to_json() const {
  nlohmann::json j{{"ok", ok},           {"message", message}, {"max_abs_err", max_abs_err},
                   {"max_rel_err", max_rel_err}, {"runs", runs}, {"compile_seconds", compile_seconds}};
  return j.dump();
}

namespace {
std::string nvcc_command(const CompileOptions& c) {
  if (!c.cxx.empty()) return c.cxx;
  if (const char* e = std::getenv("NVCC"); e && *e) return e;
  return "nvcc";
}
std::string error_text(const std::exception& e) {
  if (auto* le = dynamic_cast<const ir::LeirError*>(&e)) return le->diag().headline();
  return e.what();
}
}  // namespace

LowerCheckResult check_lowering(const ir::Task& t, LowerTarget target, const LowerCheckOptions& opt) {
  LowerCheckResult r;
  const std::string code = target == LowerTarget::C ? lower::lower_c(t) : lower::lower_cuda(t);
  std::unique_ptr<interp::Interpreter> ip;
  try {
    ip = std::make_unique<interp::Interpreter>(t);
  } catch (const std::exception& e) {
    r.message = "interpreter: " + error_text(e);
    return r;
  }
  Compiled so;
  try {
    so = target == LowerTarget::C
             ? compile_c(code, opt.compile)
             : compile_cached(code, nvcc_command(opt.compile), opt.nvcc_flags, ".cu", ".so", opt.compile.cache_dir);
  } catch (const std::exception& e) {
    r.message = e.what();
    return r;
  }
  r.compile_seconds = so.compile_seconds;
  const auto buffers = kernel_buffers(t);
  KernelRunOptions ko;
  ko.limits = opt.limits;
  ko.compile = CompileOptions{};  // the runner is always built with the host C++ compiler
  ko.compile.cache_dir = opt.compile.cache_dir;
  for (auto seed : opt.seeds) {
    for (auto dist : {equiv::Distribution::Normal, equiv::Distribution::Uniform}) {
      const char* dn = dist == equiv::Distribution::Normal ? "N" : "U";
      auto inputs = equiv::make_inputs(t, seed, dist);
      if (opt.fixed) equiv::apply_fixed_inputs(inputs, *opt.fixed);
      interp::TensorMap ref;
      try {
        interp::RunOptions ro = opt.interp;
        ro.typed = true;
        ref = ip->run(inputs, ro);
      } catch (const std::exception& e) {
        r.message = "interpreter (seed " + std::to_string(seed) + " " + dn + "): " + error_text(e);
        return r;
      }
      const auto kr = run_kernel(so.so_path, buffers, inputs, ko);
      if (!kr.ok) {
        r.message = "generated code failed (seed " + std::to_string(seed) + " " + dn + "): " + kr.error;
        return r;
      }
      ++r.runs;
      interp::TensorMap exact;  // §11 step 4b: the interpreter in f64 on this draw, run on the first failure
      for (const auto& [name, want] : ref) {
        const auto& got = kr.outputs.at(name);
        std::vector<double> allowance;
        for (std::size_t i = 0; i < want.data.size(); ++i) {
          const double a = got.data[i], b = want.data[i];
          if (std::isfinite(a) && std::isfinite(b)) {
            r.max_abs_err = std::max(r.max_abs_err, std::fabs(a - b));
            if (b != 0) r.max_rel_err = std::max(r.max_rel_err, std::fabs(a - b) / std::fabs(b));
          }
          bool match = equiv::elements_match(a, b, want.dtype, opt.tol_scale);
          if (!match && ir::is_float(want.dtype)) {
            if (allowance.empty()) {
              if (exact.empty()) {
                try {
                  interp::RunOptions ro = opt.interp;
                  ro.typed = false;
                  exact = ip->run(inputs, ro);
                } catch (const std::exception& e) {
                  r.message = "interpreter in f64 (seed " + std::to_string(seed) + " " + dn + "): " + error_text(e);
                  return r;
                }
              }
              allowance = equiv::rounding_allowance(want.data, exact.at(name).data);
            }
            match = equiv::elements_match(a, b, want.dtype, opt.tol_scale, allowance[i]);
          }
          if (!match && r.message.empty()) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "mismatch in %s[%zu] (seed %llu %s): got %.9g, interpreter %.9g",
                          name.c_str(), i, static_cast<unsigned long long>(seed), dn, a, b);
            r.message = buf;
          }
        }
      }
    }
  }
  r.ok = r.message.empty();
  return r;
}

}  // namespace steptp::runtime
