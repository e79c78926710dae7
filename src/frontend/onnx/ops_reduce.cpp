// Reductions and reduction-based ops: Reduce{Sum,Mean,Max,Min,Prod,L1,L2,SumSquare,LogSum,LogSumExp},
// Softmax/LogSoftmax (max nest, sum-exp nest, output nest), ArgMax/ArgMin, CumSum (ONNX operator spec; opset<13
// Softmax flattens at `axis`). Accumulator start values come from LEIR.md §8.4 (0, 1, -inf, +inf).
#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/reduce_util.hpp"
#include "frontend/onnx/shape_rules.hpp"

namespace steptp::frontend::onnx_detail {

using ir::Expr;
using namespace ex;

std::vector<bool> axes_mask(const Node& n, const Shape& axes, std::size_t rank) {
  std::vector<bool> m(rank, axes.empty());
  for (auto a : axes) m[static_cast<std::size_t>(norm_axis(n, a, static_cast<std::int64_t>(rank)))] = true;
  return m;
}

namespace {
RedLayout layout(Context& ctx, const Shape& in_shape, const std::vector<bool>& reduced, bool loop_all) {
  RedLayout r;
  Shape sp, rd;
  for (std::size_t k = 0; k < in_shape.size(); ++k) {
    if (reduced[k] && !loop_all) {
      rd.push_back(in_shape[k]);
      r.count *= in_shape[k];
      r.has_rvars = r.has_rvars || in_shape[k] > 1;
    } else {
      sp.push_back(in_shape[k]);
    }
    if (!reduced[k]) r.kept.push_back(in_shape[k]);
  }
  r.l = ctx.loops(sp, rd);
  std::size_t si = 0, ri = 0;
  for (std::size_t k = 0; k < in_shape.size(); ++k) {
    if (reduced[k] && !loop_all) r.in_idx.push_back(r.l.rd[ri++]);
    else r.in_idx.push_back(r.l.sp[si++]);
    if (!reduced[k]) r.kept_idx.push_back(r.in_idx.back());
  }
  return r;
}
}  // namespace

RedLayout red_layout(Context& ctx, const Shape& in_shape, const std::vector<bool>& reduced) {
  return layout(ctx, in_shape, reduced, false);
}
RedLayout full_layout(Context& ctx, const Shape& in_shape, const std::vector<bool>& reduced) {
  return layout(ctx, in_shape, reduced, true);
}

std::string emit_accumulate(Context& ctx, const RedLayout& r, ir::DType dt, const std::string& op, Expr term,
                            const std::string& dst) {
  std::string t = dst.empty() ? ctx.temp() : dst;
  Expr lhs = Context::ref(t, dt, r.kept_idx);
  Expr rhs;
  if (!r.has_rvars) rhs = std::move(term);
  else if (op == "+") rhs = add(lhs, std::move(term));
  else if (op == "*") rhs = mul(lhs, std::move(term));
  else if (op == "max") rhs = emax(lhs, std::move(term));
  else rhs = emin(lhs, std::move(term));
  ctx.emit1(r.l, lhs, std::move(rhs));
  return t;
}

namespace {

/// Output subscript for a kept-dims result written to a keepdims-style output.
std::vector<Expr> keep_idx(const RedLayout& r, const std::vector<bool>& reduced, bool keepdims) {
  if (!keepdims) return r.kept_idx;
  std::vector<Expr> o;
  std::size_t j = 0;
  for (bool red : reduced) o.push_back(red ? ilit(0) : r.kept_idx[j++]);
  return o;
}
Shape out_shape(const Shape& in, const std::vector<bool>& reduced, bool keepdims) {
  Shape o;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (!reduced[k]) o.push_back(in[k]);
    else if (keepdims) o.push_back(1);
  return o;
}

void op_reduce(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const std::string kind = n.op().substr(6);
  Shape axes = axes_from(ctx, n, 1);
  const bool keepdims = n.attr_i("keepdims", 1) != 0;
  if (axes.empty() && n.attr_i("noop_with_empty_axes", 0) != 0) {
    ctx.set_alias(n, n.out_name(0), x);
    return;
  }
  std::vector<bool> red = axes_mask(n, axes, x.rank());
  const ir::DType dt = x.dtype();
  Shape os = out_shape(x.shape(), red, keepdims);
  RedLayout r = red_layout(ctx, x.shape(), red);
  Expr xv = ctx.read(x, r.in_idx);
  // Single-nest reductions write straight into the output buffer.
  auto direct = [&](const std::string& op, Expr term) {
    std::string out = ctx.def_out(n, 0, dt, os);
    RedLayout w = r;
    w.kept_idx = keep_idx(r, red, keepdims);
    emit_accumulate(ctx, w, dt, op, std::move(term), out);
  };
  // Two-nest reductions: accumulate into a temp, then map it into the output.
  auto finish = [&](const std::string& tmp, const std::function<Expr(Expr)>& f) {
    std::string out = ctx.def_out(n, 0, dt, os);
    Loops l = ctx.loops(r.kept);
    RedLayout w;
    w.kept_idx = l.sp;
    std::vector<Expr> oi = keep_idx(w, red, keepdims);
    ctx.emit1(l, Context::ref(out, dt, oi), f(Context::ref(tmp, dt, l.sp)));
  };
  if (kind == "Sum") direct("+", xv);
  else if (kind == "Prod") direct("*", xv);
  else if (kind == "Max") direct("max", xv);
  else if (kind == "Min") direct("min", xv);
  else if (kind == "L1") direct("+", call(ir::Func::Abs, {xv}));
  else if (kind == "SumSquare") direct("+", mul(xv, xv));
  else if (kind == "Mean") {
    std::string s = emit_accumulate(ctx, r, dt, "+", xv);
    const double cnt = static_cast<double>(r.count);
    finish(s, [&](Expr t) { return div(t, lit(cnt, ir::is_float(dt) ? dt : ir::DType::F64)); });
  } else if (kind == "L2") {
    std::string s = emit_accumulate(ctx, r, dt, "+", mul(xv, xv));
    finish(s, [](Expr t) { return esqrt(t); });
  } else if (kind == "LogSum") {
    std::string s = emit_accumulate(ctx, r, dt, "+", xv);
    finish(s, [](Expr t) { return elog(t); });
  } else if (kind == "LogSumExp") {
    std::string m = emit_accumulate(ctx, r, dt, "max", xv);
    RedLayout r2 = red_layout(ctx, x.shape(), red);
    Expr x2 = ctx.read(x, r2.in_idx);
    std::string s = emit_accumulate(ctx, r2, dt, "+", eexp(sub(x2, Context::ref(m, dt, r2.kept_idx))));
    std::string out = ctx.def_out(n, 0, dt, os);
    Loops l = ctx.loops(r.kept);
    RedLayout w;
    w.kept_idx = l.sp;
    ctx.emit1(l, Context::ref(out, dt, keep_idx(w, red, keepdims)),
              add(Context::ref(m, dt, l.sp), elog(Context::ref(s, dt, l.sp))));
  } else {
    n.fail("unsupported reduction");
  }
}

void op_softmax(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const ir::DType dt = x.dtype();
  if (!ir::is_float(dt)) n.fail("needs a floating-point input");
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::vector<bool> red(x.rank(), false);
  if (ctx.opset >= 13) {
    red[static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", -1), rank))] = true;
  } else {
    for (auto k = norm_axis(n, n.attr_i("axis", 1), rank); k < rank; ++k) red[static_cast<std::size_t>(k)] = true;
  }
  RedLayout r1 = red_layout(ctx, x.shape(), red);
  std::string m = emit_accumulate(ctx, r1, dt, "max", ctx.read(x, r1.in_idx));
  RedLayout r2 = red_layout(ctx, x.shape(), red);
  Expr x2 = ctx.read(x, r2.in_idx);
  std::string s = emit_accumulate(ctx, r2, dt, "+", eexp(sub(x2, Context::ref(m, dt, r2.kept_idx))));
  std::string out = ctx.def_out(n, 0, dt, x.shape());
  RedLayout f = full_layout(ctx, x.shape(), red);
  Expr x3 = ctx.read(x, f.in_idx);
  Expr mv = Context::ref(m, dt, f.kept_idx), sv = Context::ref(s, dt, f.kept_idx);
  Expr e = n.op() == "Softmax" ? div(eexp(sub(x3, mv)), sv) : sub(sub(x3, mv), elog(sv));
  ctx.emit1(f.l, Context::ref(out, dt, f.in_idx), e);
}

void op_argmax(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const bool is_max = n.op() == "ArgMax";
  const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), static_cast<std::int64_t>(x.rank())));
  const bool keepdims = n.attr_i("keepdims", 1) != 0, last = n.attr_i("select_last_index", 0) != 0;
  std::vector<bool> red(x.rank(), false);
  red[axis] = true;
  const std::int64_t d = x.shape()[axis];
  RedLayout r1 = red_layout(ctx, x.shape(), red);
  std::string m = emit_accumulate(ctx, r1, x.dtype(), is_max ? "max" : "min", ctx.read(x, r1.in_idx));
  Shape os = out_shape(x.shape(), red, keepdims);
  std::string out = ctx.def_out(n, 0, ir::DType::I64, os);
  {
    Loops l = ctx.loops(r1.kept);
    RedLayout w;
    w.kept_idx = l.sp;
    ctx.emit1(l, Context::ref(out, ir::DType::I64, keep_idx(w, red, keepdims)), ilit(0));
  }
  // Scan so that the last match written is the wanted index: descending for the first index.
  RedLayout r2 = red_layout(ctx, x.shape(), red);
  Expr pos = last ? r2.l.rd[0] : offset(neg(r2.l.rd[0]), d - 1);
  if (d == 1) pos = ilit(0);
  std::vector<Expr> xi = r2.in_idx;
  xi[axis] = pos;
  RedLayout w = r2;
  Expr lhs = Context::ref(out, ir::DType::I64, keep_idx(w, red, keepdims));
  Expr e = ite(cmp(ir::CmpOp::Eq, ctx.read(x, xi), Context::ref(m, x.dtype(), r2.kept_idx)), pos, lhs);
  ctx.emit1(r2.l, lhs, e);
}

void op_cumsum(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const auto axis = static_cast<std::size_t>(norm_axis(n, static_cast<std::int64_t>(ctx.const_scalar(n, 1)),
                                                       static_cast<std::int64_t>(x.rank())));
  const bool excl = n.attr_i("exclusive", 0) != 0, rev = n.attr_i("reverse", 0) != 0;
  const std::int64_t d = x.shape()[axis];
  std::string out = ctx.def_out(n, 0, x.dtype(), x.shape());
  Loops l = ctx.loops(x.shape(), {}, axis);
  std::vector<Expr> cur = l.sp, prev = l.sp;
  if (d == 1) {
    ctx.emit1(l, Context::ref(out, x.dtype(), cur), excl ? lit(0, x.dtype()) : ctx.read(x, cur));
    return;
  }
  const Expr a = l.sp[axis];
  // Position p of step a, and the previous position, as affine functions of a (prefix recurrence, §8.4 rule:
  // no initialiser because the leading atom is if_then_else).
  cur[axis] = rev ? offset(neg(a), d - 1) : a;
  prev[axis] = rev ? offset(neg(a), d) : offset(a, -1);
  Expr y_prev = Context::ref(out, x.dtype(), prev);
  Expr first = excl ? lit(0, x.dtype()) : ctx.read(x, cur);
  Expr step = excl ? add(y_prev, ctx.read(x, prev)) : add(y_prev, ctx.read(x, cur));
  ctx.emit1(l, Context::ref(out, x.dtype(), cur), ite(cmp(ir::CmpOp::Eq, a, ilit(0)), first, step));
}

}  // namespace

void register_reduce_ops(OpTable& t) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
    t[op] = op_reduce;
  t["Softmax"] = op_softmax;
  t["LogSoftmax"] = op_softmax;
  t["ArgMax"] = op_argmax;
  t["ArgMin"] = op_argmax;
  t["CumSum"] = op_cumsum;
}

}  // namespace steptp::frontend::onnx_detail
