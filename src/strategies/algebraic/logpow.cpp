// Shared helpers of the power/log strategies (STRATEGIES.md §11 entries 29-32). See logpow.hpp.
#include "strategies/algebraic/logpow.hpp"

#include <sstream>

#include "ir/printer.hpp"
#include "strategies/analysis/refs.hpp"

namespace steptp::strategy::algebraic::logpow {

using GiNaC::ex;
using GiNaC::numeric;

const ir::Expr& strip(const ir::Expr& e) {
  const ir::Expr* p = &e;
  while (p->kind == ir::ExprKind::Group) p = &p->args[0];
  return *p;
}

const ir::Expr* enclosing_operator(const TargetStmt& ts, const TargetNode& n) {
  std::vector<std::uint32_t> p = n.path;
  while (p.size() > ts.target.size()) {
    p.pop_back();
    const ir::Expr* e = analysis::expr_at(*ts.stmt, p);
    if (e && e->kind != ir::ExprKind::Group && e->kind != ir::ExprKind::Neg) return e;
  }
  return nullptr;
}

namespace {
void flatten(const ir::Expr& e, bool inverse, Flat& out) {
  const ir::Expr& s = strip(e);
  if (s.kind == ir::ExprKind::Neg) {
    out.negative = !out.negative;
    flatten(s.args[0], inverse, out);
    return;
  }
  if (is_product_node(&s)) {
    flatten(s.args[0], inverse, out);
    flatten(s.args[1], s.bop == ir::BinOp::Div ? !inverse : inverse, out);
    return;
  }
  out.factors.push_back({&s, inverse});
}

ir::Expr product_of(const std::vector<ir::Expr>& v) {
  ir::Expr p = v[0];
  for (std::size_t i = 1; i < v.size(); ++i) p = ir::make_binary(ir::BinOp::Mul, p, v[i]);
  return p;
}
}  // namespace

Flat flatten_product(const ir::Expr& e) {
  Flat f;
  flatten(e, false, f);
  return f;
}

ir::Expr build_product(const std::vector<ir::Expr>& num, const std::vector<ir::Expr>& den, bool negative) {
  std::vector<ir::Expr> n;  // a literal 1 factor (1/(A*A)*A**3) is dropped
  for (const auto& f : num)
    if (!(strip(f).kind == ir::ExprKind::IntLit && strip(f).ival == 1)) n.push_back(f);
  ir::Expr top = n.empty() ? ir::make_int(1) : product_of(n);
  if (!den.empty()) top = ir::make_binary(ir::BinOp::Div, top, product_of(den));
  return negative ? ir::make_neg(top) : top;
}

std::optional<numeric> literal_exponent(const ir::Expr& e) {
  const ir::Expr& s = strip(e);
  switch (s.kind) {
    case ir::ExprKind::IntLit: return numeric(static_cast<long>(s.ival));
    case ir::ExprKind::FloatLit: return exact_rational(s.text.empty() ? ir::python_float_repr(s.fval) : s.text);
    case ir::ExprKind::Neg: {
      auto v = literal_exponent(s.args[0]);
      if (v) return -*v;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

PowerForm power_form(const ir::Expr& e) {
  const ir::Expr& s = strip(e);
  PowerForm p;
  p.base = &s;
  if (s.kind == ir::ExprKind::Binary && s.bop == ir::BinOp::Pow) {
    if (auto k = literal_exponent(s.args[1])) {
      p.base = &strip(s.args[0]);
      p.k = *k;
      p.literal = true;
    }
  } else if (s.kind == ir::ExprKind::Call && s.fn == ir::Func::Sqrt) {
    p.base = &strip(s.args[0]);
    p.k = numeric(1, 2);
    p.literal = true;
  }
  return p;
}

ir::Expr power_ast(const ir::Expr& base, const numeric& k) {
  if (k == 1) return base;
  if (k == numeric(1, 2)) return ir::make_call(ir::Func::Sqrt, {base});
  if (k.is_pos_integer()) return ir::make_binary(ir::BinOp::Pow, base, ir::make_int(k.to_long()));
  std::ostringstream s;
  s << k;
  throw NotRepresentable("exponent " + s.str());
}

std::string print_number(const numeric& k) {
  if (k.is_integer()) return std::to_string(k.to_long());
  return shortest_decimal(k.to_double(), ir::DType::F64);
}

namespace {
bool is_fn(const ex& x, const char* name) {
  return GiNaC::is_exactly_a<GiNaC::function>(x) && GiNaC::ex_to<GiNaC::function>(x).get_name() == name;
}
}  // namespace
bool is_exp(const ex& x) { return is_fn(x, "exp"); }
bool is_log(const ex& x) { return is_fn(x, "log"); }
bool is_exp_call(const ir::Expr& e) {
  const ir::Expr& s = strip(e);
  return s.kind == ir::ExprKind::Call && s.fn == ir::Func::Exp;
}

std::vector<Rewrite::Condition> positive_factors(Bridge& b, const std::vector<LogFactor>& fs,
                                                 const analysis::SignAnalysis& signs, nlohmann::json* facts) {
  std::vector<Rewrite::Condition> out;
  for (const auto& lf : fs) {
    const ir::Expr u = b.to_ast(lf.f);
    Rewrite::Condition c = condition("positive", u, signs);
    if (facts)
      facts->push_back({{"factor", ir::print_expr(u)},
                        {"multiplicity", lf.k.is_integer() ? nlohmann::json(lf.k.to_long())
                                                           : nlohmann::json(print_number(lf.k))},
                        {"sign", std::string(signs.expr(u).name())},
                        {"evidence", c.reason}});
    add_conditions(out, {c});
  }
  return out;
}

}  // namespace steptp::strategy::algebraic::logpow
