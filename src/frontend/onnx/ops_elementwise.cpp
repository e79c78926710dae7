// Element-wise ONNX ops (unary activations, numpy-broadcast binary/variadic arithmetic, comparisons, logic,
// Where, Clip, Cast, Identity/Dropout). Each becomes one nest over the output shape (ONNX operator spec,
// opsets 6-20; tanh/sigmoid/softplus written with exp/log since LEIR has no such functions, LEIR.md §4).
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/onnx_tensor.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

using UnaryFn = std::function<Expr(const Node&, const Expr& x, ir::DType dt)>;

Expr softplus_of(const Expr& x) {
  // log(1+exp(x)) = max(x,0) + log(1+exp(-|x|)): no overflow for large x.
  return add(emax(x, flit(0.0)), elog(add(flit(1.0), eexp(neg(call(ir::Func::Abs, {x}))))));
}
Expr floor_of(const Expr& x) { return sub(x, mod(x, flit(1.0))); }

void emit_unary(Context& ctx, const Node& n, const UnaryFn& f, bool float_only) {
  const Value x = ctx.in(n, 0);
  if (float_only && !ir::is_float(x.dtype())) n.fail("needs a floating-point input");
  std::string out = ctx.def_out(n, 0, x.dtype(), x.shape());
  Loops l = ctx.loops(x.shape());
  Expr xv = ctx.read(x, l.sp);
  ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), f(n, xv, x.dtype()));
}

void unary(OpTable& t, const std::string& op, UnaryFn f, bool float_only = true) {
  t[op] = [f = std::move(f), float_only](Context& ctx, const Node& n) { emit_unary(ctx, n, f, float_only); };
}

using NaryFn = std::function<Expr(const Node&, std::vector<Expr>& xs, ir::DType in_dt)>;

/// Variadic numpy-broadcast op; result dtype = first input's dtype unless `out_dt` is given.
void emit_nary(Context& ctx, const Node& n, const NaryFn& f, std::optional<ir::DType> out_dt, std::size_t min_in,
               std::size_t max_in) {
  std::vector<Value> xs;
  for (std::size_t i = 0; i < n.n_in(); ++i)
    if (n.has_in(i)) xs.push_back(ctx.in(n, i));
  if (xs.size() < min_in || xs.size() > max_in) n.fail(fmt::format("unexpected number of inputs {}", xs.size()));
  Shape shape = xs[0].shape();
  for (std::size_t i = 1; i < xs.size(); ++i) shape = broadcast_shapes(n, shape, xs[i].shape());
  ir::DType dt = out_dt ? *out_dt : xs[0].dtype();
  std::string out = ctx.def_out(n, 0, dt, shape);
  Loops l = ctx.loops(shape);
  std::vector<Expr> rd;
  for (auto& x : xs) rd.push_back(ctx.read_bcast(x, l.sp));
  ctx.emit1(l, Context::ref(out, dt, l.sp), f(n, rd, xs[0].dtype()));
}

void nary(OpTable& t, const std::string& op, NaryFn f, std::optional<ir::DType> out_dt = std::nullopt,
          std::size_t min_in = 2, std::size_t max_in = 2) {
  t[op] = [=](Context& ctx, const Node& n) { emit_nary(ctx, n, f, out_dt, min_in, max_in); };
}

Expr fold_left(ir::BinOp op, std::vector<Expr>& xs) {
  Expr e = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) e = bin(op, e, xs[i]);
  return e;
}

Expr trunc_div(const Expr& a, const Expr& b) {
  // C-style integer division (ONNX Div on integers) from floor division.
  Expr fix = land(cmp(ir::CmpOp::Ne, mod(a, b), ilit(0)),
                  cmp(ir::CmpOp::Ne, cmp(ir::CmpOp::Lt, a, ilit(0)), cmp(ir::CmpOp::Lt, b, ilit(0))));
  return ite(fix, add(fdiv(a, b), ilit(1)), fdiv(a, b));
}

}  // namespace

namespace {

/// Element-wise ops of one input (and IsNaN/Not).
void register_unary_ops(OpTable& t) {
  unary(t, "Relu", [](const Node&, const Expr& x, ir::DType dt) { return emax(x, lit(0, dt)); }, false);
  unary(t, "Sigmoid", [](const Node&, const Expr& x, ir::DType) { return sigmoid_of(x); });
  unary(t, "Tanh", [](const Node&, const Expr& x, ir::DType) { return tanh_of(x); });
  unary(t, "Exp", [](const Node&, const Expr& x, ir::DType) { return eexp(x); });
  unary(t, "Log", [](const Node&, const Expr& x, ir::DType) { return elog(x); });
  unary(t, "Sqrt", [](const Node&, const Expr& x, ir::DType) { return esqrt(x); });
  unary(t, "Erf", [](const Node&, const Expr& x, ir::DType) { return call(ir::Func::Erf, {x}); });
  unary(t, "Abs", [](const Node&, const Expr& x, ir::DType) { return call(ir::Func::Abs, {x}); }, false);
  unary(t, "Neg", [](const Node&, const Expr& x, ir::DType) { return neg(x); }, false);
  unary(t, "Reciprocal", [](const Node&, const Expr& x, ir::DType) { return div(flit(1.0), x); });
  unary(t, "Softplus", [](const Node&, const Expr& x, ir::DType) { return softplus_of(x); });
  unary(t, "Softsign", [](const Node&, const Expr& x, ir::DType) {
    return div(x, add(flit(1.0), call(ir::Func::Abs, {x})));
  });
  unary(t, "Mish", [](const Node&, const Expr& x, ir::DType) { return mul(x, tanh_of(softplus_of(x))); });
  unary(t, "Floor", [](const Node&, const Expr& x, ir::DType) { return floor_of(x); });
  unary(t, "Ceil", [](const Node&, const Expr& x, ir::DType) { return neg(floor_of(neg(x))); });
  unary(t, "Sign", [](const Node&, const Expr& x, ir::DType dt) {
    return ite(cmp(ir::CmpOp::Gt, x, lit(0, dt)), lit(1, dt), ite(cmp(ir::CmpOp::Lt, x, lit(0, dt)), lit(-1, dt), lit(0, dt)));
  }, false);
  unary(t, "Elu", [](const Node& n, const Expr& x, ir::DType) {
    double a = n.attr_f("alpha", 1.0);
    return ite(cmp(ir::CmpOp::Lt, x, flit(0.0)), mul(flit(a), sub(eexp(x), flit(1.0))), x);
  });
  unary(t, "Celu", [](const Node& n, const Expr& x, ir::DType) {
    double a = n.attr_f("alpha", 1.0);
    return add(emax(flit(0.0), x), emin(flit(0.0), mul(flit(a), sub(eexp(div(x, flit(a))), flit(1.0)))));
  });
  unary(t, "Selu", [](const Node& n, const Expr& x, ir::DType) {
    double a = n.attr_f("alpha", 1.6732632423543772848170429916717);
    double g = n.attr_f("gamma", 1.0507009873554804934193349852946);
    return mul(flit(g), ite(cmp(ir::CmpOp::Le, x, flit(0.0)), sub(mul(flit(a), eexp(x)), flit(a)), x));
  });
  unary(t, "LeakyRelu", [](const Node& n, const Expr& x, ir::DType) {
    double a = n.attr_f("alpha", 0.01);
    return ite(cmp(ir::CmpOp::Lt, x, flit(0.0)), mul(flit(a), x), x);
  });
  unary(t, "ThresholdedRelu", [](const Node& n, const Expr& x, ir::DType) {
    return ite(cmp(ir::CmpOp::Gt, x, flit(n.attr_f("alpha", 1.0))), x, flit(0.0));
  });
  unary(t, "HardSigmoid", [](const Node& n, const Expr& x, ir::DType) {
    double a = n.attr_f("alpha", 0.2), b = n.attr_f("beta", 0.5);
    return emax(flit(0.0), emin(flit(1.0), add(mul(flit(a), x), flit(b))));
  });
  unary(t, "HardSwish", [](const Node&, const Expr& x, ir::DType) {
    return mul(x, emax(flit(0.0), emin(flit(1.0), add(div(x, flit(6.0)), flit(0.5)))));
  });
  unary(t, "Gelu", [](const Node& n, const Expr& x, ir::DType) {
    std::string approx = n.attr_s("approximate", "none");
    if (approx == "tanh") {
      Expr inner = mul(flit(std::sqrt(2.0 / M_PI)), add(x, mul(flit(0.044715), pow(x, ilit(3)))));
      return mul(mul(flit(0.5), x), add(flit(1.0), tanh_of(inner)));
    }
    if (approx != "none") n.fail(fmt::format("unsupported approximate='{}'", approx));
    return mul(mul(x, flit(0.5)), add(flit(1.0), call(ir::Func::Erf, {div(x, esqrt(flit(2.0)))})));
  });
  for (const char* op : {"IsNaN", "Not"}) {
    t[op] = [op = std::string(op)](Context& ctx, const Node& n) {
      const Value x = ctx.in(n, 0);
      std::string out = ctx.def_out(n, 0, ir::DType::Bool, x.shape());
      Loops l = ctx.loops(x.shape());
      Expr xv = ctx.read(x, l.sp);
      Expr r = op == "IsNaN" ? cmp(ir::CmpOp::Ne, xv, xv) : cmp(ir::CmpOp::Eq, xv, ilit(0));
      ctx.emit1(l, Context::ref(out, ir::DType::Bool, l.sp), r);
    };
  }
}

/// Element-wise ops of several broadcast inputs, and Where, Clip, Cast, Identity and Dropout.
void register_nary_ops(OpTable& t) {
  nary(t, "Add", [](const Node&, std::vector<Expr>& x, ir::DType) { return add(x[0], x[1]); });
  nary(t, "Sub", [](const Node&, std::vector<Expr>& x, ir::DType) { return sub(x[0], x[1]); });
  nary(t, "Mul", [](const Node&, std::vector<Expr>& x, ir::DType) { return mul(x[0], x[1]); });
  nary(t, "Div", [](const Node&, std::vector<Expr>& x, ir::DType dt) {
    return ir::is_float(dt) ? div(x[0], x[1]) : trunc_div(x[0], x[1]);
  });
  nary(t, "Pow", [](const Node&, std::vector<Expr>& x, ir::DType) { return pow(x[0], x[1]); });
  nary(t, "Mod", [](const Node& n, std::vector<Expr>& x, ir::DType) {
    if (n.attr_i("fmod", 0) == 0) return mod(x[0], x[1]);
    Expr fix = land(cmp(ir::CmpOp::Ne, mod(x[0], x[1]), ilit(0)),
                    cmp(ir::CmpOp::Ne, cmp(ir::CmpOp::Lt, x[0], ilit(0)), cmp(ir::CmpOp::Lt, x[1], ilit(0))));
    return ite(fix, sub(mod(x[0], x[1]), x[1]), mod(x[0], x[1]));
  });
  nary(t, "PRelu", [](const Node&, std::vector<Expr>& x, ir::DType) {
    return ite(cmp(ir::CmpOp::Lt, x[0], ilit(0)), mul(x[1], x[0]), x[0]);
  });
  nary(t, "Max", [](const Node&, std::vector<Expr>& x, ir::DType) {
    Expr e = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) e = emax(e, x[i]);
    return e;
  }, std::nullopt, 1, 64);
  nary(t, "Min", [](const Node&, std::vector<Expr>& x, ir::DType) {
    Expr e = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) e = emin(e, x[i]);
    return e;
  }, std::nullopt, 1, 64);
  nary(t, "Sum", [](const Node&, std::vector<Expr>& x, ir::DType) { return fold_left(ir::BinOp::Add, x); },
       std::nullopt, 1, 64);
  nary(t, "Mean", [](const Node&, std::vector<Expr>& x, ir::DType) {
    double k = static_cast<double>(x.size());
    return div(fold_left(ir::BinOp::Add, x), flit(k));
  }, std::nullopt, 1, 64);
  const std::pair<const char*, ir::CmpOp> cmps[] = {{"Equal", ir::CmpOp::Eq},   {"Less", ir::CmpOp::Lt},
                                                    {"LessOrEqual", ir::CmpOp::Le}, {"Greater", ir::CmpOp::Gt},
                                                    {"GreaterOrEqual", ir::CmpOp::Ge}};
  for (auto [op, c] : cmps)
    nary(t, op, [c = c](const Node&, std::vector<Expr>& x, ir::DType) { return cmp(c, x[0], x[1]); },
         ir::DType::Bool);
  nary(t, "And", [](const Node&, std::vector<Expr>& x, ir::DType) { return land(x[0], x[1]); }, ir::DType::Bool);
  nary(t, "Or", [](const Node&, std::vector<Expr>& x, ir::DType) { return lor(x[0], x[1]); }, ir::DType::Bool);
  nary(t, "Xor", [](const Node&, std::vector<Expr>& x, ir::DType) {
    return cmp(ir::CmpOp::Ne, cmp(ir::CmpOp::Ne, x[0], ilit(0)), cmp(ir::CmpOp::Ne, x[1], ilit(0)));
  }, ir::DType::Bool);

  t["Where"] = [](Context& ctx, const Node& n) {
    const Value c = ctx.in(n, 0), a = ctx.in(n, 1), b = ctx.in(n, 2);
    Shape shape = broadcast_shapes(n, broadcast_shapes(n, c.shape(), a.shape()), b.shape());
    std::string out = ctx.def_out(n, 0, a.dtype(), shape);
    Loops l = ctx.loops(shape);
    Expr e = ite(ctx.read_bcast(c, l.sp), ctx.read_bcast(a, l.sp), ctx.read_bcast(b, l.sp));
    ctx.emit1(l, Context::ref(out, a.dtype(), l.sp), e);
  };
  t["Clip"] = [](Context& ctx, const Node& n) {
    const Value x = ctx.in(n, 0);
    std::optional<Expr> lo, hi;
    if (n.has_attr("min")) lo = lit(n.attr_f("min", 0), x.dtype());
    if (n.has_attr("max")) hi = lit(n.attr_f("max", 0), x.dtype());
    if (n.has_in(1)) lo = lit(ctx.const_scalar(n, 1), x.dtype());
    if (n.has_in(2)) hi = lit(ctx.const_scalar(n, 2), x.dtype());
    std::string out = ctx.def_out(n, 0, x.dtype(), x.shape());
    Loops l = ctx.loops(x.shape());
    Expr e = ctx.read(x, l.sp);
    if (lo) e = emax(e, *lo);
    if (hi) e = emin(e, *hi);
    ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), e);
  };
  t["Cast"] = [](Context& ctx, const Node& n) {
    const Value x = ctx.in(n, 0);
    ir::DType to = x.dtype();
    if (!n.has_attr("to")) n.fail("missing attribute 'to'");
    try {
      to = onnx_dtype_to_leir(static_cast<int>(n.attr_i("to", 1)), "attribute 'to'");
    } catch (const std::runtime_error& e) {
      n.fail(e.what());
    }
    std::string out = ctx.def_out(n, 0, to, x.shape());
    Loops l = ctx.loops(x.shape());
    Expr e = ctx.read(x, l.sp);
    if (to == ir::DType::Bool && x.dtype() != ir::DType::Bool) e = cmp(ir::CmpOp::Ne, e, ilit(0));
    ctx.emit1(l, Context::ref(out, to, l.sp), e);
  };
  auto identity = [](Context& ctx, const Node& n) {
    const Value x = ctx.in(n, 0);
    ctx.set_alias(n, n.out_name(0), x);
    for (std::size_t i = 1; i < n.n_out(); ++i)
      if (!n.out_name(i).empty()) n.fail("the mask output is not supported");
  };
  t["Identity"] = identity;
  t["Dropout"] = identity;
}

}  // namespace

void register_elementwise_ops(OpTable& t) {
  register_unary_ops(t);
  register_nary_ops(t);
}

}  // namespace steptp::frontend::onnx_detail
