#include "frontend/onnx_check.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/onnx/import_error.hpp"
#include "frontend/onnx/onnx_tensor.hpp"
#include "equiv/compare.hpp"
#include "equiv/equivalence.hpp"
#include "base/diag.hpp"

namespace steptp::frontend {

void compare_tensor(const interp::Tensor& got, const interp::Tensor& want, const std::string& what,
                    OnnxCheckResult& r, const std::vector<double>* allowance) {
  if (got.shape != want.shape)
    throw ir::LeirError(kImportTestData, fmt::format("{}: shape [{}] but the test data has [{}]", what,
                                                     fmt::join(got.shape, ","), fmt::join(want.shape, ",")));
  const bool exact = !ir::is_float(want.dtype);
  auto [rtol, atol] = exact ? std::pair<double, double>{0, 0} : equiv::tolerance(want.dtype);
  double worst_excess = -1;
  for (std::size_t i = 0; i < want.data.size(); ++i) {
    const double a = got.data[i], b = want.data[i];
    ++r.elements;
    bool ok;
    if (std::isnan(a) || std::isnan(b)) ok = std::isnan(a) && std::isnan(b);
    else if (std::isinf(a) || std::isinf(b)) ok = a == b;
    else {
      const double d = std::fabs(a - b);
      r.max_abs_err = std::max(r.max_abs_err, d);
      if (b != 0) r.max_rel_err = std::max(r.max_rel_err, d / std::fabs(b));
      const double tol = atol + rtol * std::fabs(b) + (allowance && !exact ? (*allowance)[i] : 0.0);
      ok = exact ? a == b : d <= tol;
      if (!ok && d - tol > worst_excess) {
        worst_excess = d - tol;
        r.worst = fmt::format("{} [{}]: got {}, expected {}", what, i, a, b);
      }
    }
    if (!ok) {
      ++r.mismatches;
      if (r.worst.empty()) r.worst = fmt::format("{} [{}]: got {}, expected {}", what, i, a, b);
    }
  }
}

OnnxCheckResult check_onnx_dir(const std::string& dir, const interp::RunOptions& opt) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  OnnxImport imp = import_onnx((d / "model.onnx").string());
  const fs::path data = d / "test_data_set_0";
  interp::TensorMap inputs = imp.params;
  std::size_t k = 0;
  for (const auto& kb : imp.task.known) {
    if (kb.role != ir::Role::Input) continue;
    const std::string p = (data / fmt::format("input_{}.pb", k)).string();
    if (!fs::exists(p))
      throw ir::LeirError(kImportTestData, fmt::format("missing test data for graph input '{}'", imp.inputs[k]), 0, p);
    interp::Tensor t = read_tensor_pb(p);
    if (t.shape != kb.shape)
      throw ir::LeirError(kImportTestData,
                          fmt::format("shape [{}] but graph input '{}' has [{}]", fmt::join(t.shape, ","),
                                      imp.inputs[k], fmt::join(kb.shape, ",")),
                          0, p);
    t.dtype = kb.dtype;
    inputs[kb.name] = std::move(t);
    ++k;
  }
  interp::Interpreter in(imp.task);
  interp::TensorMap outs = in.run(inputs, opt);
  const std::uint64_t steps = in.last_steps();
  std::vector<interp::Tensor> want;
  k = 0;
  for (const auto& kb : imp.task.known)
    if (kb.role == ir::Role::Output) want.push_back(read_tensor_pb((data / fmt::format("output_{}.pb", k++)).string()));
  // First the per-dtype rule; if an element fails it, once more with the rounding allowance of LEIR.md §11 step 4b:
  // the framework computed in the declared types, so its error is estimated by our own typed-vs-f64 spread.
  interp::TensorMap typed, exact;
  for (int pass = 0; pass < 2; ++pass) {
    OnnxCheckResult r;
    r.steps = steps;
    k = 0;
    for (const auto& kb : imp.task.known) {
      if (kb.role != ir::Role::Output) continue;
      std::vector<double> allowance;
      if (pass == 1 && ir::is_float(kb.dtype))
        allowance = equiv::rounding_allowance(typed.at(kb.name).data, exact.at(kb.name).data);
      compare_tensor(outs.at(kb.name), want[k], fmt::format("output {} ('{}')", k, imp.outputs[k]), r,
                     pass == 1 ? &allowance : nullptr);
      ++k;
    }
    r.match = r.mismatches == 0;
    r.rounding_allowance = pass == 1;
    if (r.match || pass == 1) return r;
    interp::RunOptions t = opt, f = opt;
    t.typed = true;
    f.typed = false;
    typed = in.run(inputs, t);
    exact = opt.typed ? in.run(inputs, f) : outs;
  }
  throw std::logic_error("unreachable");
}

}  // namespace steptp::frontend
