// Pooling (ONNX MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool): an optional padded copy (-inf for max,
// 0 for average) and one window-reduction nest; average divides by the window count (count_include_pad, and the
// clipped count of the reference `min(2,255-c*3)+1` form when padding is excluded).
#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/reduce_util.hpp"
#include "frontend/onnx/window.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

void op_pool(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const bool is_max = n.op() == "MaxPool";
  if (!ir::is_float(x.dtype())) n.fail("needs a floating-point input");
  if (n.n_out() > 1 && !n.out_name(1).empty()) n.fail("the Indices output is not supported");
  if (x.rank() < 3) n.fail("input rank must be >= 3");
  if (!n.has_attr("kernel_shape")) n.fail("missing kernel_shape");
  Shape in_sp(x.shape().begin() + 2, x.shape().end());
  auto w = windows(n, in_sp, {}, true);
  const bool include_pad = n.attr_i("count_include_pad", 0) != 0;
  if (!is_max)
    for (auto& v : w)
      if (v.d != 1) n.fail("dilated AveragePool is not supported");
  Value p = padded(ctx, x, w, is_max ? -INFINITY : 0.0);
  Shape os{x.shape()[0], x.shape()[1]}, ks;
  for (auto& v : w) { os.push_back(v.out); ks.push_back(v.k); }
  const ir::DType dt = x.dtype();
  std::string out = ctx.def_out(n, 0, dt, os);
  Loops l = ctx.loops(os, ks);
  std::vector<Expr> pi{l.sp[0], l.sp[1]};
  for (std::size_t k = 0; k < w.size(); ++k) {
    const Expr &o = l.sp[2 + k], &kk = l.rd[k];
    pi.push_back(is_int(kk, 0) ? scale(o, w[k].s) : (is_int(o, 0) ? scale(kk, w[k].d) : add(scale(o, w[k].s), scale(kk, w[k].d))));
  }
  bool has_r = false;
  for (auto& e : l.rd) has_r = has_r || e.kind == ir::ExprKind::Var;
  Expr xv = ctx.read(p, pi);
  if (is_max) {
    Expr lhs = Context::ref(out, dt, l.sp);
    ctx.emit1(l, lhs, has_r ? emax(lhs, xv) : xv);
    return;
  }
  // Average: sum into a temp, then divide by the per-window count.
  std::string s = ctx.temp();
  Expr lhs = Context::ref(s, dt, l.sp);
  ctx.emit1(l, lhs, has_r ? add(lhs, xv) : xv);
  Loops l2 = ctx.loops(os);
  std::optional<Expr> cnt;
  std::int64_t const_cnt = 1;
  for (std::size_t k = 0; k < w.size(); ++k) {
    const Window& v = w[k];
    const Expr& o = l2.sp[2 + k];
    // window [o*s, o*s+K) in padded coordinates, clipped to [lo, hi)
    const std::int64_t lo = include_pad ? 0 : v.pb, hi = include_pad ? v.in + v.pb + v.pe : v.pb + v.in;
    const bool clip_lo = v.pb > 0 && !include_pad;
    const bool clip_hi = (v.out - 1) * v.s + v.k > hi;
    if (!clip_lo && !clip_hi) { const_cnt *= v.k; continue; }
    Expr start = scale(o, v.s);
    Expr end = offset(scale(o, v.s), v.k);
    Expr e = sub(clip_hi ? emin(end, ilit(hi)) : end, clip_lo ? emax(start, ilit(lo)) : start);
    cnt = cnt ? mul(*cnt, e) : e;
  }
  Expr den = cnt ? (const_cnt == 1 ? *cnt : mul(ilit(const_cnt), *cnt)) : flit(static_cast<double>(const_cnt));
  ctx.emit1(l2, Context::ref(out, dt, l2.sp), div(Context::ref(s, dt, l2.sp), den));
}

void op_global_pool(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  if (x.rank() < 3) n.fail("input rank must be >= 3");
  const ir::DType dt = x.dtype();
  std::vector<bool> red(x.rank(), true);
  red[0] = red[1] = false;
  RedLayout r = red_layout(ctx, x.shape(), red);
  Shape os(x.rank(), 1);
  os[0] = x.shape()[0], os[1] = x.shape()[1];
  const bool is_max = n.op() == "GlobalMaxPool";
  std::string out = ctx.def_out(n, 0, dt, os);
  auto full = [](std::vector<Expr> k, std::size_t rank) {
    while (k.size() < rank) k.push_back(ilit(0));
    return k;
  };
  if (is_max) {
    RedLayout w = r;
    w.kept_idx = full(r.kept_idx, x.rank());
    emit_accumulate(ctx, w, dt, "max", ctx.read(x, r.in_idx), out);
    return;
  }
  std::string s = emit_accumulate(ctx, r, dt, "+", ctx.read(x, r.in_idx));
  Loops l = ctx.loops(r.kept);
  ctx.emit1(l, Context::ref(out, dt, full(l.sp, x.rank())),
            div(Context::ref(s, dt, l.sp), flit(static_cast<double>(r.count))));
}

}  // namespace

void register_pool_ops(OpTable& t) {
  t["MaxPool"] = op_pool;
  t["AveragePool"] = op_pool;
  t["GlobalAveragePool"] = op_global_pool;
  t["GlobalMaxPool"] = op_global_pool;
}

}  // namespace steptp::frontend::onnx_detail
