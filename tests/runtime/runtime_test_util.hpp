// Helpers shared by the runtime tests: the 4-element f32 kernel interface (A in, C out) their hand-written C
// kernels use, and its input.
#pragma once
#include <vector>

#include "interp/interpreter.hpp"
#include "runtime/kernel.hpp"

namespace steptp::testing {

/// Buffers of the hand-written test kernels: A (f32[4], input) and C (f32[4], output).
inline const std::vector<runtime::KernelBuffer>& vec4_buffers() {
  static const std::vector<runtime::KernelBuffer> b{{"A", ir::DType::F32, {4}, false}, {"C", ir::DType::F32, {4}, true}};
  return b;
}

/// A = {1, 2, 3, 4}.
inline interp::TensorMap vec4_inputs() {
  interp::TensorMap m;
  m["A"] = interp::Tensor{ir::DType::F32, {4}, {1, 2, 3, 4}};
  return m;
}

}  // namespace steptp::testing
