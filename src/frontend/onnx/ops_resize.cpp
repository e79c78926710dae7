// Resize (opsets 10, 11, 13, 18, 19) and the deprecated Upsample (opsets 7, 9): modes `nearest` (nearest_mode
// round_prefer_floor, round_prefer_ceil, floor, ceil) and `linear` (N-linear), coordinate_transformation_mode
// half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn (ONNX operator spec).
// Scales/sizes must be constants, so the source coordinates are known at import time: each resized axis gets
// constant tables (LEIR `constant` buffers) of source indices (and, for linear, the two neighbours' weights),
// and the output is one nest of gathers through them. Linear nests the axes outermost-first,
// w0*(inner at i0) + w1*(inner at i1), the order of PyTorch's upsample kernels.
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

constexpr std::int64_t kMaxExtent = std::int64_t{1} << 24;  // per resized axis (the tables are built here)

struct ResizeSpec {
  bool linear = false;
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor";
  std::vector<double> scales;  // per input dim
  Shape out;                   // output shape
};

std::vector<double> attr_floats(const Node& n, const std::string& name) {
  for (const auto& a : n.proto().attribute())
    if (a.name() == name) {
      if (a.type() != onnx::AttributeProto::FLOATS) n.fail(fmt::format("attribute '{}' is not a list of floats", name));
      return {a.floats().begin(), a.floats().end()};
    }
  return {};
}

/// Constant float input `i` (absent or empty: no values).
std::vector<double> const_floats(const Context& ctx, const Node& n, std::size_t i) {
  const Value* v = ctx.opt_in(n, i);
  if (!v || v->numel() == 0) return {};
  if (!v->is_const) n.fail(fmt::format("input {} must be a constant (computed at import time)", i));
  return v->t.data;
}

/// Attributes and scale/size inputs of all opsets, validated; output shape from scales (floor(in*scale)) or sizes.
ResizeSpec resize_spec(const Context& ctx, const Node& n, const Shape& in) {
  ResizeSpec s;
  const std::string mode = n.attr_s("mode", "nearest");
  if (mode == "linear" || mode == "bilinear" || mode == "trilinear") s.linear = true;
  else if (mode != "nearest") n.fail(fmt::format("unsupported mode '{}' (supported: nearest, linear)", mode));
  const bool legacy = n.op() == "Upsample" || ctx.opset < 11;  // Upsample, Resize-10: asymmetric, floor
  Shape sizes;
  if (legacy) {
    s.coord = "asymmetric";
    s.nearest = "floor";
    s.scales = n.op() == "Upsample" && ctx.opset < 9 ? attr_floats(n, "scales") : const_floats(ctx, n, 1);
  } else {
    s.coord = n.attr_s("coordinate_transformation_mode", "half_pixel");
    s.nearest = n.attr_s("nearest_mode", "round_prefer_floor");
    if (n.attr_i("exclude_outside", 0) != 0) n.fail("unsupported exclude_outside != 0");
    if (n.attr_i("antialias", 0) != 0) n.fail("unsupported antialias != 0");
    const std::string policy = n.attr_s("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") n.fail(fmt::format("unsupported keep_aspect_ratio_policy '{}'", policy));
    s.scales = const_floats(ctx, n, 2);
    if (n.has_in(3) && ctx.in(n, 3).numel() > 0) sizes = ctx.const_ints(n, 3);
  }
  static const std::set<std::string> kCoord = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                               "tf_half_pixel_for_nn"};
  if (!kCoord.count(s.coord)) n.fail(fmt::format("unsupported coordinate_transformation_mode '{}'", s.coord));
  if (s.coord == "tf_half_pixel_for_nn" && s.linear) n.fail("tf_half_pixel_for_nn needs mode nearest");
  static const std::set<std::string> kNearest = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!kNearest.count(s.nearest)) n.fail(fmt::format("unsupported nearest_mode '{}'", s.nearest));
  if (s.scales.empty() == sizes.empty()) n.fail("needs exactly one of scales and sizes");
  // opset 18 `axes`: scales/sizes list only those axes; the others keep scale 1.
  const auto r = static_cast<std::int64_t>(in.size());
  Shape axes = n.attr_ints("axes");
  if (axes.empty())
    for (std::int64_t k = 0; k < r; ++k) axes.push_back(k);
  const std::size_t given = s.scales.empty() ? sizes.size() : s.scales.size();
  if (given != axes.size()) n.fail(fmt::format("{} scales/sizes for {} axes", given, axes.size()));
  std::vector<double> scales(in.size(), 1.0);
  s.out = in;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto k = static_cast<std::size_t>(norm_axis(n, axes[i], r));
    if (!s.scales.empty()) {
      if (!(s.scales[i] > 0)) n.fail(fmt::format("scale {} is not positive", s.scales[i]));
      scales[k] = s.scales[i];
      const double o = std::floor(static_cast<double>(in[k]) * s.scales[i]);
      if (!(o >= 1 && o <= kMaxExtent)) n.fail(fmt::format("scale {} gives an output extent outside [1, 2^24]", s.scales[i]));
      s.out[k] = static_cast<std::int64_t>(o);
    } else {
      if (sizes[i] < 1 || sizes[i] > kMaxExtent) n.fail(fmt::format("size {} is outside [1, 2^24]", sizes[i]));
      s.out[k] = sizes[i];
      scales[k] = static_cast<double>(sizes[i]) / static_cast<double>(in[k]);
    }
  }
  s.scales = scales;
  return s;
}

/// Source coordinate of output index x on an axis of extent `in` -> `out` (ONNX coordinate_transformation_mode).
double source_coord(const ResizeSpec& s, double x, std::int64_t in, std::int64_t out, double scale) {
  if (s.coord == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (s.coord == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (s.coord == "align_corners") return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / static_cast<double>(out - 1);
  if (s.coord == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  return x / scale;  // asymmetric
}

std::int64_t nearest_index(const std::string& mode, double c, std::int64_t in) {
  const double f = std::floor(c);
  double i = f;
  if (mode == "ceil") i = std::ceil(c);
  else if (mode == "round_prefer_floor") i = c - f == 0.5 ? f : std::round(c);
  else if (mode == "round_prefer_ceil") i = c - f == 0.5 ? f + 1 : std::round(c);
  return static_cast<std::int64_t>(std::clamp(i, 0.0, static_cast<double>(in - 1)));
}

/// Per-axis tables: indices [out] (nearest) or [out, 2] with weights [out, 2] (linear). False when the axis is
/// the identity (nothing to gather).
bool axis_tables(const ResizeSpec& s, std::int64_t in, std::int64_t out, double scale, interp::Tensor& idx,
                 interp::Tensor& wt, ir::DType dt) {
  bool identity = in == out;
  idx = {ir::DType::I64, s.linear ? Shape{out, 2} : Shape{out}, {}};
  wt = {dt, {out, 2}, {}};
  for (std::int64_t x = 0; x < out; ++x) {
    const double c = source_coord(s, static_cast<double>(x), in, out, scale);
    if (!s.linear) {
      const std::int64_t i = nearest_index(s.nearest, c, in);
      identity = identity && i == x;
      idx.data.push_back(static_cast<double>(i));
      continue;
    }
    const double cc = std::clamp(c, 0.0, static_cast<double>(in - 1));
    const auto i0 = static_cast<std::int64_t>(std::floor(cc));
    const std::int64_t i1 = std::min(i0 + 1, in - 1);
    const double w1 = cc - static_cast<double>(i0);
    identity = identity && i0 == x && w1 == 0.0;
    idx.data.insert(idx.data.end(), {static_cast<double>(i0), static_cast<double>(i1)});
    wt.data.insert(wt.data.end(), {1.0 - w1, w1});
  }
  return !identity;
}

void op_resize(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const ResizeSpec s = resize_spec(ctx, n, x.shape());
  if (s.linear && !ir::is_float(x.dtype())) n.fail("linear mode needs a floating-point input");
  struct Axis { std::size_t k; Value idx, wt; };
  std::vector<Axis> axes;
  for (std::size_t k = 0; k < x.rank(); ++k) {
    interp::Tensor idx, wt;
    if (!axis_tables(s, x.shape()[k], s.out[k], s.scales[k], idx, wt, x.dtype())) continue;
    const std::string base = fmt::format("{}#resize{}", n.out_name(0), k);
    ctx.set_const(base + "i", std::move(idx), false);
    if (s.linear) ctx.set_const(base + "w", std::move(wt), false);
    axes.push_back({k, ctx.value(base + "i"), s.linear ? ctx.value(base + "w") : Value{}});
  }
  std::string out = ctx.def_out(n, 0, x.dtype(), s.out);
  Loops l = ctx.loops(s.out);
  std::vector<Expr> idx = l.sp;
  if (!s.linear) {
    for (auto& a : axes) idx[a.k] = ctx.read(a.idx, {l.sp[a.k]});
    ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), ctx.read(x, idx));
    return;
  }
  // N-linear: interp(j) = w[.,0]*interp(j+1 at i0) + w[.,1]*interp(j+1 at i1), axes outermost first.
  std::function<Expr(std::size_t)> interp = [&](std::size_t j) -> Expr {
    if (j == axes.size()) return ctx.read(x, idx);
    const Axis& a = axes[j];
    const Expr v = l.sp[a.k];
    Expr e[2];
    for (int c = 0; c < 2; ++c) {
      idx[a.k] = ctx.read(a.idx, {v, ilit(c)});
      e[c] = mul(ctx.read(a.wt, {v, ilit(c)}), interp(j + 1));
    }
    idx[a.k] = v;
    return add(e[0], e[1]);
  };
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), interp(0));
}

}  // namespace

void register_resize_ops(OpTable& t) {
  t["Resize"] = op_resize;
  t["Upsample"] = op_resize;
}

}  // namespace steptp::frontend::onnx_detail
