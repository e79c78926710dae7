#include "frontend/onnx/expr_build.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace steptp::frontend::ex {
namespace {

int prec(const Expr& e) {
  switch (e.kind) {
    case ir::ExprKind::Binary: return ir::binop_precedence(e.bop);
    case ir::ExprKind::Compare: return 3;
    case ir::ExprKind::Neg: return 6;
    default: return 8;
  }
}
Expr grp_if(Expr e, bool g) { return g ? ir::make_group(std::move(e)) : e; }

}  // namespace

Expr ilit(std::int64_t v) {
  if (v < 0) return ir::make_neg(ir::make_int(v == INT64_MIN ? v : -v));
  return ir::make_int(v);
}
Expr flit(double v) {
  if (std::isnan(v)) return ir::make_group(ir::make_binary(ir::BinOp::Div, ir::make_float(0.0), ir::make_float(0.0)));
  if (std::isinf(v)) return v > 0 ? ir::make_inf() : ir::make_neg(ir::make_inf());
  if (std::signbit(v)) return ir::make_neg(ir::make_float(-v));
  return ir::make_float(v);
}
double shortest_f32(double v) {
  if (!std::isfinite(v)) return v;
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  if (r.ec != std::errc()) return v;
  *r.ptr = 0;
  return std::strtod(buf, nullptr);
}

Expr lit(double v, ir::DType t) {
  if (t == ir::DType::F32 || t == ir::DType::F16 || t == ir::DType::BF16) return flit(shortest_f32(v));
  if (ir::is_float(t)) return flit(v);
  return ilit(static_cast<std::int64_t>(v));
}
Expr var(const std::string& name) { return ir::make_var(name); }

Expr bin(ir::BinOp op, Expr a, Expr b) {
  const int p = ir::binop_precedence(op);
  if (op == ir::BinOp::Pow) {
    a = grp_if(std::move(a), prec(a) <= 7);
    b = grp_if(std::move(b), prec(b) < 6);
  } else {
    a = grp_if(std::move(a), prec(a) < p);
    b = grp_if(std::move(b), prec(b) <= p);
  }
  return ir::make_binary(op, std::move(a), std::move(b));
}

Expr neg(Expr a) { return ir::make_neg(grp_if(std::move(a), prec(a) < 6)); }

Expr cmp(ir::CmpOp op, Expr a, Expr b) {
  a = grp_if(std::move(a), prec(a) <= 3);
  b = grp_if(std::move(b), prec(b) <= 3);
  return ir::make_compare(op, std::move(a), std::move(b));
}

Expr in_range(Expr e, std::int64_t lo, std::int64_t hi) {
  Expr c = cmp(ir::CmpOp::Le, ilit(lo), std::move(e));
  c.cmps.push_back(ir::CmpOp::Lt);
  c.args.push_back(ilit(hi));
  return c;
}

Expr call(ir::Func f, std::vector<Expr> args) { return ir::make_call(f, std::move(args)); }

bool is_int(const Expr& e, std::int64_t v) { return e.kind == ir::ExprKind::IntLit && e.ival == v; }

Expr scale(Expr e, std::int64_t c) {
  if (c == 1) return e;
  if (c == -1 && e.kind != ir::ExprKind::IntLit) return neg(std::move(e));
  if (c == 0) return ilit(0);
  if (e.kind == ir::ExprKind::IntLit) return ilit(e.ival * c);
  return mul(std::move(e), ilit(c));
}
Expr offset(Expr e, std::int64_t c) {
  if (c == 0) return e;
  if (e.kind == ir::ExprKind::IntLit) return ilit(e.ival + c);
  if (e.kind == ir::ExprKind::Neg && c > 0) return sub(ilit(c), e.args[0]);  // -a+4 -> 4-a
  if (c < 0) return sub(std::move(e), ilit(-c));
  return add(std::move(e), ilit(c));
}

Expr tanh_of(const Expr& x) { return sub(flit(1.0), div(flit(2.0), add(eexp(mul(flit(2.0), x)), flit(1.0)))); }
Expr sigmoid_of(const Expr& x) { return div(flit(1.0), add(flit(1.0), eexp(neg(x)))); }

}  // namespace steptp::frontend::ex
