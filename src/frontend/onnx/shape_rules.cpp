#include "frontend/onnx/shape_rules.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace steptp::frontend::onnx_detail {

Shape reshape_shape(const Node& n, const Shape& in, const Shape& spec, bool allowzero) {
  Shape out = spec;
  std::int64_t known = 1, neg = -1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 0 && !allowzero) {
      if (k >= in.size()) n.fail("shape entry 0 has no matching input dimension");
      out[k] = in[k];
    }
    if (out[k] == -1) {
      if (neg >= 0) n.fail("more than one -1 in the target shape");
      neg = static_cast<std::int64_t>(k);
    } else if (out[k] < 0) {
      n.fail(fmt::format("invalid target dimension {}", out[k]));
    } else if (__builtin_mul_overflow(known, out[k], &known)) {
      n.fail("target shape is too large");
    }
  }
  const std::int64_t total = numel_of(in);
  if (neg >= 0) {
    if (known == 0 || total % known != 0) n.fail("cannot infer the -1 dimension");
    out[static_cast<std::size_t>(neg)] = total / known;
  }
  if (numel_of(out) != total)
    n.fail(fmt::format("cannot reshape [{}] to [{}]", fmt::join(in, ","), fmt::join(out, ",")));
  return out;
}

Shape flatten_shape(const Node& n, const Shape& in, std::int64_t axis) {
  const auto r = static_cast<std::int64_t>(in.size());
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) n.fail(fmt::format("axis {} out of range", axis));
  std::int64_t a = 1, b = 1;
  for (std::int64_t k = 0; k < r; ++k) (k < axis ? a : b) *= in[static_cast<std::size_t>(k)];
  return {a, b};
}

Shape squeeze_shape(const Node& n, const Shape& in, const Shape& axes) {
  const auto r = static_cast<std::int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (axes.empty()) {
    for (std::size_t k = 0; k < in.size(); ++k) drop[k] = in[k] == 1;
  } else {
    for (auto a : axes) {
      auto k = static_cast<std::size_t>(norm_axis(n, a, r));
      if (in[k] != 1) n.fail(fmt::format("cannot squeeze axis {} of extent {}", a, in[k]));
      drop[k] = true;
    }
  }
  Shape out;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (!drop[k]) out.push_back(in[k]);
  return out;
}

Shape unsqueeze_shape(const Node& n, const Shape& in, const Shape& axes) {
  const auto r = static_cast<std::int64_t>(in.size() + axes.size());
  std::vector<bool> ins(static_cast<std::size_t>(r), false);
  for (auto a : axes) {
    auto k = static_cast<std::size_t>(norm_axis(n, a, r));
    if (ins[k]) n.fail("repeated axis");
    ins[k] = true;
  }
  Shape out;
  std::size_t j = 0;
  for (std::size_t k = 0; k < ins.size(); ++k) out.push_back(ins[k] ? 1 : in[j++]);
  return out;
}

Shape transpose_perm(const Node& n, std::size_t rank) {
  Shape perm = n.attr_ints("perm");
  if (perm.empty())
    for (std::size_t k = rank; k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
  if (perm.size() != rank) n.fail("perm has the wrong length");
  std::vector<bool> seen(rank, false);
  for (auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(p)]) n.fail("invalid perm");
    seen[static_cast<std::size_t>(p)] = true;
  }
  return perm;
}

std::vector<SliceDim> slice_plan(const Node& n, const Shape& in, const Shape& starts, const Shape& ends,
                                 const Shape& axes_in, const Shape& steps_in) {
  const auto r = static_cast<std::int64_t>(in.size());
  std::vector<SliceDim> plan(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) plan[k] = {0, 1, in[k]};
  Shape axes = axes_in;
  if (axes.empty())
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  if (starts.size() != ends.size() || axes.size() != starts.size() || (!steps_in.empty() && steps_in.size() != starts.size()))
    n.fail("starts/ends/axes/steps lengths differ");
  for (std::size_t i = 0; i < axes.size(); ++i) {
    auto k = static_cast<std::size_t>(norm_axis(n, axes[i], r));
    const std::int64_t d = in[k];
    const std::int64_t step = steps_in.empty() ? 1 : steps_in[i];
    if (step == 0) n.fail("step 0");
    std::int64_t s = starts[i], e = ends[i];
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, d);
      e = std::clamp<std::int64_t>(e, 0, d);
    } else {
      s = std::clamp<std::int64_t>(s, 0, d - 1);
      e = std::clamp<std::int64_t>(e, -1, d - 1);
    }
    if (step == INT64_MIN) n.fail("invalid step");
    std::int64_t cnt = step > 0 ? (e > s ? 1 + (e - s - 1) / step : 0) : (s > e ? 1 + (s - e - 1) / (-step) : 0);
    if (cnt <= 0) n.fail("the slice is empty (zero-size tensors are not supported)");
    plan[k] = {s, step, cnt};
  }
  return plan;
}

Shape axes_from(const Context& ctx, const Node& n, std::size_t input_index) {
  if (n.has_attr("axes")) return n.attr_ints("axes");
  if (n.has_in(input_index)) return ctx.const_ints(n, input_index);
  return {};
}

Shape split_sizes(const Context& ctx, const Node& n, std::int64_t dim) {
  const auto outs = static_cast<std::int64_t>(n.n_out());
  if (outs < 1) n.fail("no outputs");
  Shape sizes;
  if (n.has_in(1)) sizes = ctx.const_ints(n, 1);
  else if (n.has_attr("split")) sizes = n.attr_ints("split");
  if (!sizes.empty()) {
    if (static_cast<std::int64_t>(sizes.size()) != outs)
      n.fail(fmt::format("split has {} entries for {} outputs", sizes.size(), outs));
    std::int64_t sum = 0;
    for (auto s : sizes) {
      if (s < 0 || s > dim) n.fail(fmt::format("split size {} out of range for extent {}", s, dim));
      sum += s;
    }
    if (sum != dim) n.fail(fmt::format("split sizes sum to {}, not the extent {}", sum, dim));
    return sizes;
  }
  if (n.has_attr("num_outputs")) {
    const std::int64_t k = n.attr_i("num_outputs", 0);
    if (k != outs) n.fail(fmt::format("num_outputs {} but the node has {} outputs", k, outs));
    const std::int64_t chunk = (dim + k - 1) / k;
    if (chunk * (k - 1) >= dim) n.fail(fmt::format("extent {} cannot be split into {} non-empty parts", dim, k));
    Shape out(static_cast<std::size_t>(k), chunk);
    out.back() = dim - chunk * (k - 1);
    return out;
  }
  if (dim % outs != 0) n.fail(fmt::format("extent {} is not divisible into {} equal parts", dim, outs));
  return Shape(static_cast<std::size_t>(outs), dim / outs);
}

Shape scatter_nd_targets(const Node& n, const Shape& data_shape, const interp::Tensor& indices,
                         const Shape& updates_shape) {
  if (indices.shape.empty()) n.fail("indices must have rank 1 or more");
  const auto k = static_cast<std::size_t>(indices.shape.back());
  if (k < 1 || k > data_shape.size()) n.fail(fmt::format("index depth {} for data of rank {}", k, data_shape.size()));
  Shape want(indices.shape.begin(), indices.shape.end() - 1);
  want.insert(want.end(), data_shape.begin() + static_cast<std::ptrdiff_t>(k), data_shape.end());
  if (updates_shape != want)
    n.fail(fmt::format("updates have shape [{}], expected [{}]", fmt::join(updates_shape, ","), fmt::join(want, ",")));
  Shape targets;
  for (std::size_t r = 0; r * k < indices.data.size(); ++r) {
    std::int64_t flat = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const double dv = indices.data[r * k + j];
      const std::int64_t d = data_shape[j];
      if (!(dv >= static_cast<double>(-d) && dv < static_cast<double>(d)))
        n.fail(fmt::format("index {} out of range for extent {}", dv, d));
      const auto v = static_cast<std::int64_t>(dv);
      flat = flat * d + (v < 0 ? v + d : v);
    }
    targets.push_back(flat);
  }
  return targets;
}

}  // namespace steptp::frontend::onnx_detail
