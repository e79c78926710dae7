// Static shape rules of ONNX data-movement ops (ONNX operator spec: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Slice, Concat, Gather, Split), shared by constant folding (fold.cpp) and LEIR emission (ops_shape.cpp).
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

/// Split: the extent of each of the node's outputs along `axis` (extent `dim`). The sizes come from the `split`
/// input (opset >= 13, must be a constant) or attribute (opset < 13); without them, `num_outputs` (opset 18:
/// ceil(dim/num_outputs) each, the last one smaller) or the number of outputs (equal parts, `dim` divisible).
/// Fails naming the node when the sizes are negative, do not sum to `dim`, or disagree with the output count.
Shape split_sizes(const Context& ctx, const Node& n, std::int64_t dim);

/// ScatterND (reduction 'none' order): for each update row (indices viewed as [rows, k]), the row-major flat index
/// of the data slice it replaces among the data's first k dims (negative indices wrapped). Fails naming the node
/// when k exceeds the data rank, an index is out of range, or `updates_shape` is not indices[:-1] + data[k:].
Shape scatter_nd_targets(const Node& n, const Shape& data_shape, const interp::Tensor& indices,
                         const Shape& updates_shape);

/// Axes of a Reduce*/Squeeze-style op from the attribute or (newer opsets) input `input_index`.
Shape axes_from(const Context& ctx, const Node& n, std::size_t input_index);

}  // namespace steptp::frontend::onnx_detail
