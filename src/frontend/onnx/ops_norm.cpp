// Normalisations (ONNX BatchNormalization in inference mode, InstanceNormalization, LayerNormalization): mean
// nest, divide, squared-deviation nest, divide, then the normalising nest
// `Y=(X-Mu)/sqrt(Var+eps)*scale+bias` as in the reference corpus (GroupNorm/BatchNorm tasks). Scale 1 and bias 0
// literals (PyTorch's GroupNorm export) are dropped.
#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/reduce_util.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

bool is_float_lit(const Expr& e, double v) {
  return (e.kind == ir::ExprKind::FloatLit && e.fval == v) || (e.kind == ir::ExprKind::IntLit && e.ival == v);
}

Expr affine(Expr y, Expr scale, std::optional<Expr> bias) {
  if (!is_float_lit(scale, 1.0)) y = mul(y, scale);
  if (bias && !is_float_lit(*bias, 0.0)) y = add(y, *bias);
  return y;
}

/// Emits mean and variance (population) of x over `red` dims; returns {mean, var} buffers of the kept shape.
std::pair<std::string, std::string> moments(Context& ctx, const Value& x, const std::vector<bool>& red) {
  const ir::DType dt = x.dtype();
  RedLayout r1 = red_layout(ctx, x.shape(), red);
  std::string s = emit_accumulate(ctx, r1, dt, "+", ctx.read(x, r1.in_idx));
  const double cnt = static_cast<double>(r1.count);
  Loops l = ctx.loops(r1.kept);
  std::string mu = ctx.temp();
  ctx.emit1(l, Context::ref(mu, dt, l.sp), div(Context::ref(s, dt, l.sp), flit(cnt)));
  RedLayout r2 = red_layout(ctx, x.shape(), red);
  Expr dev = sub(ctx.read(x, r2.in_idx), Context::ref(mu, dt, r2.kept_idx));
  std::string q = emit_accumulate(ctx, r2, dt, "+", pow(dev, ilit(2)));
  Loops l2 = ctx.loops(r1.kept);
  std::string var = ctx.temp();
  ctx.emit1(l2, Context::ref(var, dt, l2.sp), div(Context::ref(q, dt, l2.sp), flit(cnt)));
  return {mu, var};
}

void check_extra_outputs(const Node& n) {
  for (std::size_t i = 1; i < n.n_out(); ++i)
    if (!n.out_name(i).empty()) n.fail("only the first output is supported (inference mode)");
}

void op_batchnorm(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  if (n.attr_i("training_mode", 0) != 0) n.fail("training_mode=1 is not supported");
  check_extra_outputs(n);
  if (x.rank() < 2) n.fail("input rank must be >= 2");
  const ir::DType dt = x.dtype();
  const double eps = n.attr_f("epsilon", 1e-5);
  std::string out = ctx.def_out(n, 0, dt, x.shape());
  Loops l = ctx.loops(x.shape());
  std::vector<Expr> c{l.sp[1]};
  Expr y = div(sub(ctx.read(x, l.sp), ctx.read(ctx.in(n, 3), c)),
               esqrt(add(ctx.read(ctx.in(n, 4), c), flit(eps))));
  ctx.emit1(l, Context::ref(out, dt, l.sp), affine(y, ctx.read(ctx.in(n, 1), c), ctx.read(ctx.in(n, 2), c)));
}

void op_instancenorm(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  if (x.rank() < 3) n.fail("input rank must be >= 3");
  const ir::DType dt = x.dtype();
  std::vector<bool> red(x.rank(), true);
  red[0] = red[1] = false;
  auto [mu, var] = moments(ctx, x, red);
  std::string out = ctx.def_out(n, 0, dt, x.shape());
  RedLayout f = full_layout(ctx, x.shape(), red);
  std::vector<Expr> c{f.in_idx[1]};
  Expr y = div(sub(ctx.read(x, f.in_idx), Context::ref(mu, dt, f.kept_idx)),
               esqrt(add(Context::ref(var, dt, f.kept_idx), flit(n.attr_f("epsilon", 1e-5)))));
  ctx.emit1(f.l, Context::ref(out, dt, f.in_idx), affine(y, ctx.read(ctx.in(n, 1), c), ctx.read(ctx.in(n, 2), c)));
}

void op_layernorm(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  check_extra_outputs(n);
  const ir::DType dt = x.dtype();
  const auto axis = norm_axis(n, n.attr_i("axis", -1), static_cast<std::int64_t>(x.rank()));
  std::vector<bool> red(x.rank(), false);
  for (auto k = static_cast<std::size_t>(axis); k < x.rank(); ++k) red[k] = true;
  auto [mu, var] = moments(ctx, x, red);
  std::string out = ctx.def_out(n, 0, dt, x.shape());
  RedLayout f = full_layout(ctx, x.shape(), red);
  Expr y = div(sub(ctx.read(x, f.in_idx), Context::ref(mu, dt, f.kept_idx)),
               esqrt(add(Context::ref(var, dt, f.kept_idx), flit(n.attr_f("epsilon", 1e-5)))));
  const Value sc = ctx.in(n, 1);
  std::optional<Expr> b;
  if (const Value* bv = ctx.opt_in(n, 2)) b = ctx.read_bcast(*bv, f.in_idx);
  ctx.emit1(f.l, Context::ref(out, dt, f.in_idx), affine(y, ctx.read_bcast(sc, f.in_idx), b));
}

}  // namespace

void register_norm_ops(OpTable& t) {
  t["BatchNormalization"] = op_batchnorm;
  t["InstanceNormalization"] = op_instancenorm;
  t["LayerNormalization"] = op_layernorm;
}

}  // namespace steptp::frontend::onnx_detail
