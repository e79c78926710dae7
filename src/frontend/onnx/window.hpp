// Sliding-window geometry shared by Conv and pooling (ONNX Conv/MaxPool/AveragePool: kernel_shape, strides,
// dilations, pads, auto_pad, ceil_mode) and the padded copy nest of the reference corpus:
// `P_{..,c}=if_then_else(pb<=c<pb+D,X_{..,c-pb},pad)`.
#pragma once
#include <vector>

#include "frontend/onnx/context.hpp"

namespace steptp::frontend::onnx_detail {

struct Window {
  std::int64_t in = 1, k = 1, s = 1, d = 1, pb = 0, pe = 0, out = 1;
};

/// Per spatial dim (`in_spatial` = input dims after N, C) from the node's attributes; `kernel` from the weights
/// or kernel_shape. Fails on an empty output.
std::vector<Window> windows(const Node& n, const Shape& in_spatial, const Shape& kernel, bool allow_ceil);

/// Value whose spatial index `o*s + k*d` (padded coordinates) reads the input: `x` itself if no padding is
/// read, else a new padded-copy buffer filled with `pad_value` outside the input.
Value padded(Context& ctx, const Value& x, const std::vector<Window>& w, double pad_value);

}  // namespace steptp::frontend::onnx_detail
