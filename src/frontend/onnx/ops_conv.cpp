// Convolutions (ONNX Conv, ConvTranspose; 1-3 spatial dims, groups, strides, dilations, pads, bias). Conv is a
// padded copy (if needed) plus one reduction nest `Y=Y+P*W`, then a bias nest. ConvTranspose is a zero-inserted,
// shifted copy Z of the input followed by a convolution with the flipped kernel:
// Y[o] = sum_k Z[o + k*d] * W[K-1-k], Z[q] = X[(q-off)/s] when s divides q-off, off = (K-1)*d - pad_begin.
#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/window.hpp"

namespace steptp::frontend::onnx_detail {

using ir::Expr;
using namespace ex;

std::vector<Window> windows(const Node& n, const Shape& in, const Shape& kernel, bool allow_ceil) {
  const std::size_t r = in.size();
  Shape ks = n.attr_ints("kernel_shape", kernel);
  if (ks.size() != r) n.fail("kernel_shape has the wrong length");
  Shape st = n.attr_ints("strides", Shape(r, 1)), dl = n.attr_ints("dilations", Shape(r, 1));
  Shape pads = n.attr_ints("pads", Shape(2 * r, 0));
  if (st.size() != r || dl.size() != r || pads.size() != 2 * r) n.fail("strides/dilations/pads have the wrong length");
  const std::string ap = n.attr_s("auto_pad", "NOTSET");
  const bool ceil = allow_ceil && n.attr_i("ceil_mode", 0) != 0;
  std::vector<Window> w(r);
  for (std::size_t k = 0; k < r; ++k) {
    Window& x = w[k];
    x.in = in[k], x.k = ks[k], x.s = st[k], x.d = dl[k], x.pb = pads[k], x.pe = pads[k + r];
    constexpr std::int64_t kMax = std::int64_t{1} << 31;
    if (x.k < 1 || x.s < 1 || x.d < 1 || x.pb < 0 || x.pe < 0 || x.k >= kMax || x.s >= kMax || x.d >= kMax ||
        x.pb >= kMax || x.pe >= kMax)
      n.fail("invalid kernel/stride/dilation/pad");
    const std::int64_t span = (x.k - 1) * x.d + 1;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      x.out = (x.in + x.s - 1) / x.s;
      std::int64_t total = std::max<std::int64_t>(0, (x.out - 1) * x.s + span - x.in);
      x.pb = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      x.pe = total - x.pb;
      continue;
    }
    if (ap == "VALID") x.pb = x.pe = 0;
    else if (ap != "NOTSET") n.fail(fmt::format("unsupported auto_pad '{}'", ap));
    const std::int64_t room = x.in + x.pb + x.pe - span;
    if (room < 0) n.fail("the window is larger than the padded input");
    x.out = (ceil ? (room + x.s - 1) / x.s : room / x.s) + 1;
    if (ceil && (x.out - 1) * x.s >= x.in + x.pb) --x.out;  // last window must start inside input or left pad
  }
  return w;
}

Value padded(Context& ctx, const Value& x, const std::vector<Window>& w, double pad_value) {
  const std::size_t lead = x.rank() - w.size();
  bool need = false;
  Shape ps = x.shape();
  for (std::size_t k = 0; k < w.size(); ++k) {
    const std::int64_t ext = (w[k].out - 1) * w[k].s + (w[k].k - 1) * w[k].d + 1;
    ps[lead + k] = ext;
    if (w[k].pb > 0 || ext > w[k].in) need = true;
  }
  if (!need) return x;
  Value p;
  p.t.dtype = x.dtype();
  p.t.shape = ps;
  p.buffer = ctx.temp();
  Loops l = ctx.loops(ps);
  std::vector<Expr> idx = l.sp;
  std::optional<Expr> cond;
  for (std::size_t k = 0; k < w.size(); ++k) {
    Expr v = l.sp[lead + k];
    idx[lead + k] = offset(v, -w[k].pb);
    if (w[k].pb > 0 || ps[lead + k] > w[k].in + w[k].pb) {
      Expr c = in_range(v, w[k].pb, w[k].pb + w[k].in);
      cond = cond ? land(*cond, c) : c;
    }
  }
  Expr e = ctx.read(x, idx);
  if (cond) e = ite(*cond, e, lit(pad_value, x.dtype()));
  ctx.emit1(l, Context::ref(p.buffer, p.dtype(), l.sp), e);
  return p;
}

namespace {

/// g*m + j with literal zeros folded away.
Expr lin2(const Expr& g, std::int64_t m, const Expr& j) {
  if (is_int(j, 0)) return scale(g, m);
  if (is_int(g, 0)) return j;
  return add(scale(g, m), j);
}

void add_bias(Context& ctx, const Node& n, const std::string& out, ir::DType dt, const Shape& os) {
  const Value* b = ctx.opt_in(n, 2);
  if (!b) return;
  const Value bv = *b;
  if (bv.rank() != 1 || bv.shape()[0] != os[1]) n.fail("bias must have shape [M]");
  Loops l = ctx.loops(os);
  Expr lhs = Context::ref(out, dt, l.sp);
  ctx.emit1(l, lhs, add(lhs, ctx.read(bv, {l.sp[1]})));
}

struct ConvParts {
  std::int64_t N, C, M, G, Cg, Mg;
};

/// Reduction nest Y[n, g*Mg+mg, o] (+)= P[n, g*Cg+ci, o*s + k*d] * W[...]; `wsub` builds the weight subscript.
void conv_nest(Context& ctx, const std::string& out, ir::DType dt, const ConvParts& c, const Value& p,
               const std::vector<Window>& w, const Value& wt, bool transposed) {
  Shape sp{c.N, c.G, c.Mg}, rd{c.Cg};
  for (auto& x : w) sp.push_back(x.out);
  for (auto& x : w) rd.push_back(x.k);
  Loops l = ctx.loops(sp, rd);
  Expr m = lin2(l.sp[1], c.Mg, l.sp[2]), ci = lin2(l.sp[1], c.Cg, l.rd[0]);
  std::vector<Expr> oi{l.sp[0], m}, pi{l.sp[0], ci}, wi;
  if (transposed) wi = {ci, l.sp[2]};
  else wi = {m, l.rd[0]};
  for (std::size_t k = 0; k < w.size(); ++k) {
    const Expr& o = l.sp[3 + k];
    const Expr& kk = l.rd[1 + k];
    oi.push_back(o);
    Expr pos = is_int(kk, 0) ? scale(o, w[k].s) : (is_int(o, 0) ? scale(kk, w[k].d) : add(scale(o, w[k].s), scale(kk, w[k].d)));
    pi.push_back(pos);
    wi.push_back(transposed ? (w[k].k == 1 ? ilit(0) : offset(neg(kk), w[k].k - 1)) : kk);
  }
  bool has_r = false;
  for (auto& e : l.rd) has_r = has_r || e.kind == ir::ExprKind::Var;
  Expr lhs = Context::ref(out, dt, oi);
  Expr term = mul(ctx.read(p, pi), ctx.read(wt, wi));
  ctx.emit1(l, lhs, has_r ? add(lhs, term) : term);
}

void op_conv(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0), wt = ctx.in(n, 1);
  if (x.rank() < 3 || wt.rank() != x.rank()) n.fail("X and W must have the same rank >= 3");
  const std::int64_t G = n.attr_i("group", 1);
  ConvParts c{x.shape()[0], x.shape()[1], wt.shape()[0], G, 0, 0};
  if (G < 1 || c.C % G != 0 || c.M % G != 0) n.fail("channels are not divisible by group");
  c.Cg = c.C / G, c.Mg = c.M / G;
  if (wt.shape()[1] != c.Cg) n.fail(fmt::format("weight has {} input channels, expected {}", wt.shape()[1], c.Cg));
  Shape in_sp(x.shape().begin() + 2, x.shape().end()), ks(wt.shape().begin() + 2, wt.shape().end());
  auto w = windows(n, in_sp, ks, false);
  for (std::size_t k = 0; k < w.size(); ++k)
    if (w[k].k != ks[k]) n.fail("kernel_shape differs from the weight shape");
  Shape os{c.N, c.M};
  for (auto& v : w) os.push_back(v.out);
  Value p = padded(ctx, x, w, 0.0);
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  conv_nest(ctx, out, x.dtype(), c, p, w, wt, false);
  add_bias(ctx, n, out, x.dtype(), os);
}

void op_conv_transpose(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0), wt = ctx.in(n, 1);
  if (x.rank() < 3 || wt.rank() != x.rank()) n.fail("X and W must have the same rank >= 3");
  const std::size_t r = x.rank() - 2;
  const std::int64_t G = n.attr_i("group", 1);
  ConvParts c{x.shape()[0], x.shape()[1], wt.shape()[1] * G, G, 0, 0};
  if (G < 1 || c.C % G != 0 || wt.shape()[0] != c.C) n.fail("weight/channel/group mismatch");
  c.Cg = c.C / G, c.Mg = wt.shape()[1];
  Shape ks = n.attr_ints("kernel_shape", Shape(wt.shape().begin() + 2, wt.shape().end()));
  Shape st = n.attr_ints("strides", Shape(r, 1)), dl = n.attr_ints("dilations", Shape(r, 1));
  Shape pads = n.attr_ints("pads", Shape(2 * r, 0)), opad = n.attr_ints("output_padding", Shape(r, 0));
  Shape oshape = n.attr_ints("output_shape");
  const std::string ap = n.attr_s("auto_pad", "NOTSET");
  if (ks.size() != r || st.size() != r || dl.size() != r || pads.size() != 2 * r || opad.size() != r)
    n.fail("attribute lengths do not match the spatial rank");
  std::vector<Window> w(r);
  for (std::size_t k = 0; k < r; ++k) {
    Window& v = w[k];
    v.in = x.shape()[2 + k], v.k = ks[k], v.s = st[k], v.d = dl[k], v.pb = pads[k], v.pe = pads[k + r];
    constexpr std::int64_t kMax = std::int64_t{1} << 31;
    if (v.k != wt.shape()[2 + k] || v.s < 1 || v.d < 1 || v.s >= kMax || v.d >= kMax || std::abs(v.pb) >= kMax ||
        std::abs(v.pe) >= kMax || opad[k] < 0 || opad[k] >= kMax)
      n.fail("invalid kernel/stride/dilation/pads");
    const std::int64_t full = v.s * (v.in - 1) + opad[k] + (v.k - 1) * v.d + 1;
    if (!oshape.empty() || ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      std::int64_t target = oshape.empty() ? v.in * v.s : oshape[oshape.size() - r + k];
      std::int64_t total = full - target;
      v.pb = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      v.pe = total - v.pb;
    } else if (ap == "VALID") {
      v.pb = v.pe = 0;
    } else if (ap != "NOTSET") {
      n.fail(fmt::format("unsupported auto_pad '{}'", ap));
    }
    v.out = full - v.pb - v.pe;
    if (v.out < 1) n.fail("empty output");
    // reuse conv_nest with stride 1 over Z: o*1 + k*d
  }
  // Z: zero-inserted, shifted input, extent out + (K-1)*d per spatial dim.
  Shape zs{c.N, c.C};
  bool identity = true;
  for (auto& v : w) {
    zs.push_back(v.out + (v.k - 1) * v.d);
    const std::int64_t off = (v.k - 1) * v.d - v.pb;
    if (v.s != 1 || off != 0 || zs.back() != v.in) identity = false;
  }
  Value z = x;
  if (!identity) {
    z.is_const = false;
    z.t = interp::Tensor{x.dtype(), zs, {}};
    z.buffer = ctx.temp();
    Loops l = ctx.loops(zs);
    std::vector<Expr> xi{l.sp[0], l.sp[1]};
    std::optional<Expr> cond;
    for (std::size_t k = 0; k < r; ++k) {
      const Window& v = w[k];
      const std::int64_t off = (v.k - 1) * v.d - v.pb;
      Expr q = l.sp[2 + k];
      Expr qo = offset(q, -off);
      xi.push_back(v.s == 1 ? qo : fdiv(qo, ilit(v.s)));
      Expr cnd = in_range(q, off, off + (v.in - 1) * v.s + 1);
      if (v.s != 1) cnd = land(cnd, cmp(ir::CmpOp::Eq, mod(qo, ilit(v.s)), ilit(0)));
      cond = cond ? land(*cond, cnd) : cnd;
    }
    ctx.emit1(l, Context::ref(z.buffer, x.dtype(), l.sp), ite(*cond, ctx.read(x, xi), lit(0, x.dtype())));
  }
  Shape os{c.N, c.M};
  for (auto& v : w) os.push_back(v.out);
  std::string out = ctx.def_out(n, 0, x.dtype(), os);
  std::vector<Window> zw = w;
  for (auto& v : zw) v.s = 1;
  conv_nest(ctx, out, x.dtype(), c, z, zw, wt, true);
  add_bias(ctx, n, out, x.dtype(), os);
}

}  // namespace

void register_conv_ops(OpTable& t) {
  t["Conv"] = op_conv;
  t["ConvTranspose"] = op_conv_transpose;
}

}  // namespace steptp::frontend::onnx_detail
