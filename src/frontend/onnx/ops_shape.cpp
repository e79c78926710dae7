// Data-movement ONNX ops on buffers: Reshape/Flatten/Squeeze/Unsqueeze (one copy nest with affine index maps
// where the reshape only splits or merges dims), Transpose, Slice, Concat, Pad (constant mode), Expand, Tile,
// Gather, plus the import-time ops Constant, Shape, Size, ConstantOfShape (ONNX operator spec).
#include <algorithm>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/onnx_tensor.hpp"
#include "frontend/onnx/shape_rules.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

/// Row-major linear index of `idx` over `dims`.
Expr linear(const std::vector<Expr>& idx, const Shape& dims) {
  Expr e = ilit(0);
  bool first = true;
  std::int64_t stride = 1;
  std::vector<std::pair<Expr, std::int64_t>> terms;
  for (std::size_t k = dims.size(); k-- > 0;) {
    terms.emplace_back(idx[k], stride);
    stride *= dims[k];
  }
  std::reverse(terms.begin(), terms.end());
  for (auto& [x, s] : terms) {
    if (is_int(x, 0)) continue;
    Expr t = scale(x, s);
    e = first ? t : add(e, t);
    first = false;
  }
  return e;
}

/// Copy `x` into a new buffer of shape `out_shape` with the same row-major element order.
void emit_reshape(Context& ctx, const Node& n, const Value& x, const Shape& out_shape) {
  std::string out = ctx.def_out(n, 0, x.dtype(), out_shape);
  const Shape& in_shape = x.shape();
  // Non-1 dims of each side, with their positions.
  std::vector<std::size_t> ip, op;
  for (std::size_t k = 0; k < in_shape.size(); ++k)
    if (in_shape[k] != 1) ip.push_back(k);
  for (std::size_t k = 0; k < out_shape.size(); ++k)
    if (out_shape[k] != 1) op.push_back(k);
  // Group them so that each group has equal products.
  struct Group { std::vector<std::size_t> in, out; };
  std::vector<Group> groups;
  std::size_t i = 0, j = 0;
  while (i < ip.size() || j < op.size()) {
    Group g;
    std::int64_t pa = 1, pb = 1;
    do {
      if (pa <= pb && i < ip.size()) { pa *= in_shape[ip[i]]; g.in.push_back(ip[i++]); }
      else if (j < op.size()) { pb *= out_shape[op[j]]; g.out.push_back(op[j++]); }
      else { pa *= in_shape[ip[i]]; g.in.push_back(ip[i++]); }
    } while (pa != pb);
    groups.push_back(std::move(g));
  }
  // Loop dims: per group, the finer side.
  Shape ext;
  std::vector<bool> loop_out;  // per group: loop over out dims?
  for (auto& g : groups) {
    bool over_out = g.in.size() == 1 || g.out.size() != 1;
    loop_out.push_back(over_out);
    for (auto k : over_out ? g.out : g.in) ext.push_back(over_out ? out_shape[k] : in_shape[k]);
  }
  Loops l = ctx.loops(ext);
  std::vector<Expr> in_idx(in_shape.size(), ilit(0)), out_idx(out_shape.size(), ilit(0));
  std::size_t v = 0;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    auto& g = groups[gi];
    std::vector<Expr> vars;
    Shape dims;
    const auto& fine = loop_out[gi] ? g.out : g.in;
    for (auto k : fine) {
      vars.push_back(l.sp[v++]);
      dims.push_back(loop_out[gi] ? out_shape[k] : in_shape[k]);
    }
    auto& fine_idx = loop_out[gi] ? out_idx : in_idx;
    for (std::size_t q = 0; q < fine.size(); ++q) fine_idx[fine[q]] = vars[q];
    const auto& coarse = loop_out[gi] ? g.in : g.out;
    const Shape& cshape = loop_out[gi] ? in_shape : out_shape;
    auto& coarse_idx = loop_out[gi] ? in_idx : out_idx;
    Expr lin = linear(vars, dims);
    if (coarse.size() == 1) {
      coarse_idx[coarse[0]] = lin;
      continue;
    }
    // general regrouping (both sides split): index arithmetic with // and %
    std::int64_t stride = 1;
    for (std::size_t q = coarse.size(); q-- > 0;) {
      const std::int64_t d = cshape[coarse[q]];
      Expr e = stride == 1 ? lin : fdiv(lin, ilit(stride));
      if (q > 0) e = mod(e, ilit(d));
      coarse_idx[coarse[q]] = e;
      stride *= d;
    }
  }
  Expr rhs = ctx.read(x, in_idx);
  ctx.emit1(l, Context::ref(out, x.dtype(), out_idx), rhs);
}

void op_reshape(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  Shape s;
  if (n.op() == "Reshape") {
    Shape spec = n.has_in(1) ? ctx.const_ints(n, 1) : n.attr_ints("shape");
    s = reshape_shape(n, x.shape(), spec, n.attr_i("allowzero", 0) != 0);
  } else if (n.op() == "Flatten") {
    s = flatten_shape(n, x.shape(), n.attr_i("axis", 1));
  } else if (n.op() == "Squeeze") {
    s = squeeze_shape(n, x.shape(), axes_from(ctx, n, 1));
  } else {
    s = unsqueeze_shape(n, x.shape(), axes_from(ctx, n, 1));
  }
  emit_reshape(ctx, n, x, s);
}

void op_transpose(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  Shape perm = transpose_perm(n, x.rank());
  Shape os;
  for (auto p : perm) os.push_back(x.shape()[static_cast<std::size_t>(p)]);
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  Loops l = ctx.loops(os);
  std::vector<Expr> idx(x.rank());
  for (std::size_t k = 0; k < perm.size(); ++k) idx[static_cast<std::size_t>(perm[k])] = l.sp[k];
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), ctx.read(x, idx));
}

void op_slice(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  Shape starts, ends, axes, steps;
  if (n.has_in(1)) {
    starts = ctx.const_ints(n, 1);
    ends = ctx.const_ints(n, 2);
    if (n.has_in(3)) axes = ctx.const_ints(n, 3);
    if (n.has_in(4)) steps = ctx.const_ints(n, 4);
  } else {
    starts = n.attr_ints("starts");
    ends = n.attr_ints("ends");
    axes = n.attr_ints("axes");
  }
  auto plan = slice_plan(n, x.shape(), starts, ends, axes, steps);
  Shape os;
  for (auto& p : plan) os.push_back(p.count);
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  Loops l = ctx.loops(os);
  std::vector<Expr> idx;
  for (std::size_t k = 0; k < plan.size(); ++k) idx.push_back(offset(scale(l.sp[k], plan[k].step), plan[k].start));
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), ctx.read(x, idx));
}

void op_concat(Context& ctx, const Node& n) {
  std::vector<Value> xs;
  for (std::size_t i = 0; i < n.n_in(); ++i)
    if (n.has_in(i)) xs.push_back(ctx.in(n, i));
  if (xs.empty()) n.fail("no inputs");
  const auto r = static_cast<std::int64_t>(xs[0].rank());
  const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), r));
  Shape os = xs[0].shape();
  os[axis] = 0;
  for (auto& x : xs) {
    if (x.rank() != xs[0].rank()) n.fail("inputs differ in rank");
    for (std::size_t k = 0; k < x.rank(); ++k)
      if (k != axis && x.shape()[k] != xs[0].shape()[k]) n.fail("inputs differ in shape");
    os[axis] += x.shape()[axis];
  }
  std::string out = ctx.def_out(n, 0, xs[0].dtype(), os);
  std::int64_t off = 0;
  for (auto& x : xs) {
    Loops l = ctx.loops(x.shape());
    std::vector<Expr> oi = l.sp;
    oi[axis] = offset(oi[axis], off);
    ctx.emit1(l, Context::ref(out, xs[0].dtype(), oi), ctx.read(x, l.sp));
    off += x.shape()[axis];
  }
}

void op_pad(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const std::string mode = n.attr_s("mode", "constant");
  if (mode != "constant") n.fail(fmt::format("unsupported mode '{}'", mode));
  const auto r = static_cast<std::int64_t>(x.rank());
  Shape pads = n.has_in(1) ? ctx.const_ints(n, 1) : n.attr_ints("pads");
  double value = n.has_in(2) ? ctx.const_scalar(n, 2) : n.attr_f("value", 0.0);
  Shape axes;
  if (n.has_in(3)) axes = ctx.const_ints(n, 3);
  else for (std::int64_t k = 0; k < r; ++k) axes.push_back(k);
  if (pads.size() != 2 * axes.size()) n.fail("pads has the wrong length");
  Shape lo(x.rank(), 0), hi(x.rank(), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    auto k = static_cast<std::size_t>(norm_axis(n, axes[i], r));
    lo[k] = pads[i];
    hi[k] = pads[i + axes.size()];
  }
  Shape os = x.shape();
  for (std::size_t k = 0; k < os.size(); ++k) os[k] += lo[k] + hi[k];
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  Loops l = ctx.loops(os);
  std::vector<Expr> idx;
  std::optional<Expr> cond;
  for (std::size_t k = 0; k < os.size(); ++k) {
    idx.push_back(offset(l.sp[k], -lo[k]));
    if (lo[k] > 0 || hi[k] > 0) {
      Expr c = in_range(l.sp[k], std::max<std::int64_t>(lo[k], 0), lo[k] + x.shape()[k]);
      cond = cond ? land(*cond, c) : c;
    }
  }
  Expr e = ctx.read(x, idx);
  if (cond) e = ite(*cond, e, lit(value, x.dtype()));
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), e);
}

void op_expand(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  Shape os = broadcast_shapes(n, x.shape(), ctx.const_ints(n, 1));
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  ctx.emit_copy(out, x.dtype(), os, x);
}

void op_tile(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  Shape reps = ctx.const_ints(n, 1);
  if (reps.size() != x.rank()) n.fail("repeats has the wrong length");
  Shape os = x.shape();
  for (std::size_t k = 0; k < os.size(); ++k) os[k] *= reps[k];
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  Loops l = ctx.loops(os);
  std::vector<Expr> idx;
  for (std::size_t k = 0; k < os.size(); ++k)
    idx.push_back(reps[k] == 1 || x.shape()[k] == 1 ? (x.shape()[k] == 1 ? ilit(0) : l.sp[k])
                                                     : mod(l.sp[k], ilit(x.shape()[k])));
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), ctx.read(x, idx));
}

void op_gather(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  Value ind = ctx.in(n, 1);
  const auto r = static_cast<std::int64_t>(x.rank());
  const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), r));
  const std::int64_t d = x.shape()[axis];
  if (ind.is_const) {  // normalise negative indices and check bounds now
    interp::Tensor t = ind.t;
    for (auto& v : t.data) {
      if (v < -d || v >= d) n.fail(fmt::format("index {} out of range for extent {}", v, d));
      if (v < 0) v += d;
    }
    t.dtype = ir::DType::I64;
    ctx.set_const(n.out_name(0) + "#indices", t, false);
    ind = ctx.value(n.out_name(0) + "#indices");
  } else if (!ir::is_int(ind.dtype())) {
    n.fail("indices must be integers");
  }
  Shape os(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis));
  os.insert(os.end(), ind.shape().begin(), ind.shape().end());
  os.insert(os.end(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape().end());
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  Loops l = ctx.loops(os);
  std::vector<Expr> ii(l.sp.begin() + static_cast<std::ptrdiff_t>(axis),
                       l.sp.begin() + static_cast<std::ptrdiff_t>(axis + ind.rank()));
  std::vector<Expr> idx(l.sp.begin(), l.sp.begin() + static_cast<std::ptrdiff_t>(axis));
  idx.push_back(ctx.read(ind, ii));
  idx.insert(idx.end(), l.sp.begin() + static_cast<std::ptrdiff_t>(axis + ind.rank()), l.sp.end());
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), ctx.read(x, idx));
}

// ---- import-time ops ----

void op_constant(Context& ctx, const Node& n) {
  interp::Tensor t;
  if (auto tp = n.attr_t("value")) {
    try {
      t = tensor_from_proto(*tp);
    } catch (const std::exception& e) {
      n.fail(e.what());
    }
  } else if (n.has_attr("value_float")) {
    t = {ir::DType::F32, {}, {n.attr_f("value_float", 0)}};
  } else if (n.has_attr("value_int")) {
    t = {ir::DType::I64, {}, {static_cast<double>(n.attr_i("value_int", 0))}};
  } else if (n.has_attr("value_ints")) {
    Shape v = n.attr_ints("value_ints");
    t = {ir::DType::I64, {static_cast<std::int64_t>(v.size())}, {}};
    for (auto x : v) t.data.push_back(static_cast<double>(x));
  } else {
    n.fail("unsupported value attribute (need value, value_float, value_int or value_ints)");
  }
  ctx.set_const(n.out_name(0), std::move(t), false);
}

void op_shape(Context& ctx, const Node& n) {
  const Value& x = ctx.in(n, 0);
  const auto r = static_cast<std::int64_t>(x.rank());
  std::int64_t s = n.attr_i("start", 0), e = n.attr_i("end", r);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = std::clamp<std::int64_t>(s, 0, r);
  e = std::clamp<std::int64_t>(e, 0, r);
  interp::Tensor t{ir::DType::I64, {std::max<std::int64_t>(e - s, 0)}, {}};
  for (std::int64_t k = s; k < e; ++k) t.data.push_back(static_cast<double>(x.shape()[static_cast<std::size_t>(k)]));
  ctx.set_const(n.out_name(0), std::move(t), false);
}

void op_size(Context& ctx, const Node& n) {
  ctx.set_const(n.out_name(0), {ir::DType::I64, {}, {static_cast<double>(ctx.in(n, 0).numel())}}, false);
}

void op_constant_of_shape(Context& ctx, const Node& n) {
  Shape s = ctx.const_ints(n, 0);
  interp::Tensor v{ir::DType::F32, {}, {0.0}};
  if (auto tp = n.attr_t("value")) {
    try {
      v = tensor_from_proto(*tp);
    } catch (const std::exception& e) {
      n.fail(e.what());
    }
    if (v.data.size() != 1) n.fail("value must have one element");
  }
  for (auto d : s)
    if (d < 1 || d >= (std::int64_t{1} << 31)) n.fail("shape entries must be in [1, 2^31)");
  if (numel_of(s) >= (std::int64_t{1} << 28)) n.fail("the constant is too large");
  interp::Tensor t{v.dtype, s, std::vector<double>(static_cast<std::size_t>(numel_of(s)), v.data[0])};
  ctx.set_const(n.out_name(0), std::move(t), false);
}

}  // namespace

void register_shape_ops(OpTable& t) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) t[op] = op_reshape;
  t["Transpose"] = op_transpose;
  t["Slice"] = op_slice;
  t["Concat"] = op_concat;
  t["Pad"] = op_pad;
  t["Expand"] = op_expand;
  t["Tile"] = op_tile;
  t["Gather"] = op_gather;
  t["Constant"] = op_constant;
  t["Shape"] = op_shape;
  t["Size"] = op_size;
  t["ConstantOfShape"] = op_constant_of_shape;
}

}  // namespace steptp::frontend::onnx_detail
