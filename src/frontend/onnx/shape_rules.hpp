// Static shape rules of ONNX data-movement ops (ONNX operator spec: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Slice, Concat, Gather), shared by constant folding (fold.cpp) and LEIR emission (ops_shape.cpp).
#pragma once
#include <vector>

#include "frontend/onnx/context.hpp"

namespace steptp::frontend::onnx_detail {

/// Reshape target: `spec` may hold one -1 and zeros (copy the input dim unless allowzero).
Shape reshape_shape(const Node& n, const Shape& in, const Shape& spec, bool allowzero);
Shape flatten_shape(const Node& n, const Shape& in, std::int64_t axis);
/// Squeeze: `axes` empty means every extent-1 dim.
Shape squeeze_shape(const Node& n, const Shape& in, const Shape& axes);
Shape unsqueeze_shape(const Node& n, const Shape& in, const Shape& axes);
/// Transpose permutation (default: reversed); validated.
Shape transpose_perm(const Node& n, std::size_t rank);

struct SliceDim {
  std::int64_t start = 0, step = 1, count = 0;
};
/// Per input dim: first index, step and element count after ONNX clamping.
std::vector<SliceDim> slice_plan(const Node& n, const Shape& in, const Shape& starts, const Shape& ends,
                                 const Shape& axes, const Shape& steps);

/// Axes of a Reduce*/Squeeze-style op from the attribute or (newer opsets) input `input_index`.
Shape axes_from(const Context& ctx, const Node& n, std::size_t input_index);

}  // namespace steptp::frontend::onnx_detail
