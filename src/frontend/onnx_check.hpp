// `import-onnx --check`: import DIR/model.onnx, run it in the reference interpreter (LEIR.md §8) on the ONNX
// backend test data DIR/test_data_set_0/input_K.pb (graph inputs in order) plus the imported weights, and compare
// every output with output_K.pb using the per-dtype tolerances of LEIR.md §11 (f32: |a-b| <= 1e-5 + 1e-4*|b|;
// NaN matches NaN only; integer/bool outputs exactly). When an element fails, the comparison is repeated with the
// rounding allowance of §11 step 4b: the framework computed in f32, so its rounding error is estimated by the
// interpreter's own typed (f32) run against its f64 run on the same inputs.
#pragma once
#include <string>
#include <vector>

#include "equiv/inputs.hpp"
#include "frontend/onnx_import.hpp"
#include "interp/interpreter.hpp"

namespace steptp::frontend {

struct OnnxCheckResult {
  bool match = false;
  std::int64_t elements = 0, mismatches = 0;
  double max_abs_err = 0, max_rel_err = 0;  // over finite pairs; rel over b != 0
  std::string worst;                        // "output 0 [flat index]: got a, expected b" for the largest violation
  std::uint64_t steps = 0;                  // interpreter statement executions
  bool rounding_allowance = false;          // the verdict needed §11 step 4b (the plain rule failed somewhere)
};

/// `dir` holds model.onnx and test_data_set_0/. Throws std::runtime_error (unreadable/malformed model or .pb,
/// missing or mis-shaped test data, unsupported op) or ir::LeirError (validation or run-time error).
OnnxCheckResult check_onnx_dir(const std::string& dir, const interp::RunOptions& opt = {});

/// Compares one output (`got` from the interpreter, `want` from the .pb); accumulates into `r`. `allowance`:
/// per-element rounding allowance (equiv::rounding_allowance, same size as `want`), or null.
void compare_tensor(const interp::Tensor& got, const interp::Tensor& want, const std::string& what,
                    OnnxCheckResult& r, const std::vector<double>* allowance = nullptr);

}  // namespace steptp::frontend
