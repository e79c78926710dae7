// Import-time constant folding (shape-computing subgraphs and ops on initializers): when every input of a
// foldable node is a constant, its outputs are computed here in double precision (then rounded to the output
// dtype) instead of being emitted as LEIR. Semantics follow the ONNX operator spec for each op.
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/onnx_tensor.hpp"
#include "frontend/onnx/shape_rules.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using Tensor = interp::Tensor;

std::int64_t flat_of(const Shape& dims, const Shape& idx) {
  std::int64_t f = 0;
  for (std::size_t k = 0; k < dims.size(); ++k) f = f * dims[k] + idx[k];
  return f;
}
Shape unflat(const Shape& dims, std::int64_t i) {
  Shape idx(dims.size());
  for (std::size_t k = dims.size(); k-- > 0;) {
    idx[k] = i % dims[k];
    i /= dims[k];
  }
  return idx;
}

/// out[i] = x[map(out multi-index)]
std::int64_t checked_numel(const Shape& os) {
  const std::int64_t n = numel_of(os);
  if (n < 0 || n >= (std::int64_t{1} << 28)) throw std::runtime_error("folded constant is too large");
  return n;
}

template <class F>
Tensor gather_map(const Tensor& x, const Shape& os, F&& map) {
  Tensor t{x.dtype, os, {}};
  const std::int64_t n = checked_numel(os);
  t.data.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) t.data[static_cast<std::size_t>(i)] = x.data[static_cast<std::size_t>(map(unflat(os, i)))];
  return t;
}

double binop(const std::string& op, double a, double b, ir::DType dt) {
  const bool fl = ir::is_float(dt);
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") {
    if (fl) return a / b;
    if (b == 0) throw std::runtime_error("integer division by zero");
    return std::trunc(a / b);
  }
  if (op == "Pow") return std::pow(a, b);
  if (op == "Min") return std::fmin(a, b);
  if (op == "Max") return std::fmax(a, b);
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "Greater") return a > b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return a != 0 && b != 0;
  if (op == "Or") return a != 0 || b != 0;
  if (op == "Mod") {
    if (b == 0) throw std::runtime_error("modulo by zero");
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  return NAN;
}

double unop(const std::string& op, double a) {
  if (op == "Neg") return -a;
  if (op == "Abs") return std::fabs(a);
  if (op == "Sqrt") return std::sqrt(a);
  if (op == "Reciprocal") return 1.0 / a;
  if (op == "Exp") return std::exp(a);
  if (op == "Log") return std::log(a);
  if (op == "Floor") return std::floor(a);
  if (op == "Ceil") return std::ceil(a);
  if (op == "Not") return a == 0;
  if (op == "Relu") return a < 0 ? 0 : a;
  return NAN;
}

const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Equal", "Less",
                                       "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Mod"};
const std::set<std::string> kUnary = {"Neg", "Abs", "Sqrt", "Reciprocal", "Exp", "Log", "Floor", "Ceil", "Not", "Relu"};
const std::set<std::string> kOther = {"Identity", "Cast", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
                                      "Slice", "Concat", "Gather", "Expand", "Where", "Range", "ReduceProd",
                                      "Split", "ScatterND"};

/// Split of constant `x` into the node's outputs (one constant each).
void fold_split(Context& ctx, const Node& n, const Tensor& x, bool from_init) {
  const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), static_cast<std::int64_t>(x.shape.size())));
  const Shape sizes = split_sizes(ctx, n, x.shape[axis]);
  std::int64_t off = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Shape os = x.shape;
    os[axis] = sizes[i];
    ctx.set_const(n.out_name(i), gather_map(x, os, [&](const Shape& o) {
      Shape ii = o;
      ii[axis] += off;
      return flat_of(x.shape, ii);
    }), from_init);
    off += sizes[i];
  }
}

/// ScatterND of constants, reduction none/add/mul/max/min applied row by row in index order.
Tensor fold_scatter_nd(const Node& n, const Tensor& data, const Tensor& indices, const Tensor& updates) {
  const Shape targets = scatter_nd_targets(n, data.shape, indices, updates.shape);
  const std::string red = n.attr_s("reduction", "none");
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
    n.fail(fmt::format("unsupported reduction '{}'", red));
  const auto k = static_cast<std::size_t>(indices.shape.back());
  std::size_t inner = 1;
  for (std::size_t j = k; j < data.shape.size(); ++j) inner *= static_cast<std::size_t>(data.shape[j]);
  Tensor out = data;
  for (std::size_t r = 0; r < targets.size(); ++r)
    for (std::size_t e = 0; e < inner; ++e) {
      double& d = out.data[static_cast<std::size_t>(targets[r]) * inner + e];
      const double u = updates.data[r * inner + e];
      d = red == "none" ? u : red == "add" ? d + u : red == "mul" ? d * u : red == "max" ? std::fmax(d, u) : std::fmin(d, u);
    }
  return out;
}

}  // namespace

bool try_fold(Context& ctx, const Node& n) {
  const std::string& op = n.op();
  if (!kBinary.count(op) && !kUnary.count(op) && !kOther.count(op)) return false;
  if (n.n_out() != 1 && op != "Split") return false;
  std::vector<Value> xs;
  bool from_init = false;
  for (std::size_t i = 0; i < n.n_in(); ++i) {
    if (!n.has_in(i)) { xs.emplace_back(); continue; }
    const Value& v = ctx.in(n, i);
    if (!v.is_const) return false;
    from_init = from_init || v.from_init;
    xs.push_back(v);
  }
  if (xs.empty()) return false;
  const Tensor& x = xs[0].t;
  Tensor out;
  try {
    if (op == "Split") {
      fold_split(ctx, n, x, from_init);
      return true;
    }
    if (op == "ScatterND") {
      if (xs.size() < 3 || !n.has_in(1) || !n.has_in(2)) n.fail("needs data, indices and updates");
      out = fold_scatter_nd(n, x, xs.at(1).t, xs.at(2).t);
    } else if (kBinary.count(op) && xs.size() == 2) {
      Shape os = broadcast_shapes(n, x.shape, xs[1].t.shape);
      checked_numel(os);
      static const std::set<std::string> kCmp = {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or"};
      out = {kCmp.count(op) ? ir::DType::Bool : x.dtype, os, {}};
      for (std::int64_t i = 0; i < numel_of(os); ++i)
        out.data.push_back(binop(op, x.data[static_cast<std::size_t>(bcast_flat(os, x.shape, i))],
                                 xs[1].t.data[static_cast<std::size_t>(bcast_flat(os, xs[1].t.shape, i))], x.dtype));
    } else if (kUnary.count(op)) {
      out = {op == "Not" ? ir::DType::Bool : x.dtype, x.shape, {}};
      for (double v : x.data) out.data.push_back(unop(op, v));
    } else if (op == "Identity") {
      out = x;
    } else if (op == "Cast") {
      out = x;
      out.dtype = onnx_dtype_to_leir(static_cast<int>(n.attr_i("to", 1)), n.label());
    } else if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
      out = x;
      if (op == "Reshape")
        out.shape = reshape_shape(n, x.shape, xs.size() > 1 ? ctx.const_ints(n, 1) : n.attr_ints("shape"),
                                  n.attr_i("allowzero", 0) != 0);
      else if (op == "Flatten") out.shape = flatten_shape(n, x.shape, n.attr_i("axis", 1));
      else if (op == "Squeeze") out.shape = squeeze_shape(n, x.shape, axes_from(ctx, n, 1));
      else out.shape = unsqueeze_shape(n, x.shape, axes_from(ctx, n, 1));
    } else if (op == "Transpose") {
      Shape perm = transpose_perm(n, x.shape.size()), os;
      for (auto p : perm) os.push_back(x.shape[static_cast<std::size_t>(p)]);
      out = gather_map(x, os, [&](const Shape& o) {
        Shape ii(o.size());
        for (std::size_t k = 0; k < o.size(); ++k) ii[static_cast<std::size_t>(perm[k])] = o[k];
        return flat_of(x.shape, ii);
      });
    } else if (op == "Slice") {
      Shape starts, ends, axes, steps;
      if (n.has_in(1)) {
        starts = ctx.const_ints(n, 1);
        ends = ctx.const_ints(n, 2);
        if (n.has_in(3)) axes = ctx.const_ints(n, 3);
        if (n.has_in(4)) steps = ctx.const_ints(n, 4);
      } else {
        starts = n.attr_ints("starts"), ends = n.attr_ints("ends"), axes = n.attr_ints("axes");
      }
      auto plan = slice_plan(n, x.shape, starts, ends, axes, steps);
      Shape os;
      for (auto& p : plan) os.push_back(p.count);
      out = gather_map(x, os, [&](const Shape& o) {
        Shape ii(o.size());
        for (std::size_t k = 0; k < o.size(); ++k) ii[k] = plan[k].start + plan[k].step * o[k];
        return flat_of(x.shape, ii);
      });
    } else if (op == "Concat") {
      const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), static_cast<std::int64_t>(x.shape.size())));
      Shape os = x.shape;
      os[axis] = 0;
      for (auto& v : xs) {
        if (v.t.shape.size() != x.shape.size()) n.fail("inputs differ in rank");
        os[axis] += v.t.shape[axis];
      }
      out = {x.dtype, os, std::vector<double>(static_cast<std::size_t>(checked_numel(os)))};
      std::int64_t off = 0;
      for (auto& v : xs) {
        for (std::int64_t i = 0; i < v.numel(); ++i) {
          Shape ii = unflat(v.t.shape, i);
          ii[axis] += off;
          out.data[static_cast<std::size_t>(flat_of(os, ii))] = v.t.data[static_cast<std::size_t>(i)];
        }
        off += v.t.shape[axis];
      }
    } else if (op == "Gather") {
      const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), static_cast<std::int64_t>(x.shape.size())));
      const Tensor& ind = xs.at(1).t;
      Shape os(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
      os.insert(os.end(), ind.shape.begin(), ind.shape.end());
      os.insert(os.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
      const std::int64_t d = x.shape[axis];
      out = gather_map(x, os, [&](const Shape& o) {
        Shape ii(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(axis));
        Shape q(o.begin() + static_cast<std::ptrdiff_t>(axis), o.begin() + static_cast<std::ptrdiff_t>(axis + ind.shape.size()));
        auto g = static_cast<std::int64_t>(ind.data[static_cast<std::size_t>(flat_of(ind.shape, q))]);
        if (g < -d || g >= d) n.fail(fmt::format("index {} out of range", g));
        ii.push_back(g < 0 ? g + d : g);
        ii.insert(ii.end(), o.begin() + static_cast<std::ptrdiff_t>(axis + ind.shape.size()), o.end());
        return flat_of(x.shape, ii);
      });
    } else if (op == "Expand") {
      Shape os = broadcast_shapes(n, x.shape, ctx.const_ints(n, 1));
      checked_numel(os);
      out = {x.dtype, os, {}};
      for (std::int64_t i = 0; i < numel_of(os); ++i) out.data.push_back(x.data[static_cast<std::size_t>(bcast_flat(os, x.shape, i))]);
    } else if (op == "Where") {
      Shape os = broadcast_shapes(n, broadcast_shapes(n, x.shape, xs.at(1).t.shape), xs.at(2).t.shape);
      checked_numel(os);
      out = {xs[1].t.dtype, os, {}};
      for (std::int64_t i = 0; i < numel_of(os); ++i) {
        bool c = x.data[static_cast<std::size_t>(bcast_flat(os, x.shape, i))] != 0;
        const Tensor& s = c ? xs[1].t : xs[2].t;
        out.data.push_back(s.data[static_cast<std::size_t>(bcast_flat(os, s.shape, i))]);
      }
    } else if (op == "Range") {
      double start = x.data.at(0), limit = xs.at(1).t.data.at(0), delta = xs.at(2).t.data.at(0);
      if (delta == 0) n.fail("delta 0");
      double cnt = std::ceil((limit - start) / delta);
      if (!(cnt >= 1) || cnt >= 1 << 24) n.fail("empty or huge range");
      out = {x.dtype, {static_cast<std::int64_t>(cnt)}, {}};
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(cnt); ++i) out.data.push_back(start + static_cast<double>(i) * delta);
    } else if (op == "ReduceProd") {
      if (n.attr_i("keepdims", 1) != 0 || !axes_from(ctx, n, 1).empty() || x.shape.size() != 1) return false;
      double p = 1;
      for (double v : x.data) p *= v;
      out = {x.dtype, {}, {p}};
    } else {
      return false;
    }
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    if (m.rfind(n.label(), 0) == 0) throw;
    n.fail(m);
  }
  ctx.set_const(n.out_name(0), std::move(out), from_init);
  return true;
}

}  // namespace steptp::frontend::onnx_detail
