// AST <-> GiNaC bridge (STRATEGIES.md §9.1). See bridge.hpp for the rules.
#include "strategies/algebraic/bridge.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "ir/printer.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;
using GiNaC::ex_to;
using GiNaC::is_a;
using GiNaC::numeric;

std::string ginac_text(const ex& x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

/// A numeric literal exponent (through groups and unary minus), as an exact rational.
std::optional<numeric> literal_exponent(const ir::Expr& e) {
  switch (e.kind) {
    case ir::ExprKind::Group: return literal_exponent(e.args[0]);
    case ir::ExprKind::IntLit: return numeric(static_cast<long>(e.ival));
    case ir::ExprKind::FloatLit:
      return exact_rational(e.text.empty() ? ir::python_float_repr(e.fval) : e.text);
    case ir::ExprKind::Neg: {
      auto v = literal_exponent(e.args[0]);
      if (v) return -*v;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

/// Integer arithmetic that wraps modulo 2^bits in a way the value's later conversion exposes: unsigned types and
/// signed types narrower than 64 bits (LEIR.md §8.2). GiNaC computes in the rationals, so distributing or
/// collecting across such a node changes the program: `(1-E)*C` with E u16 wraps 1-E before the product, while
/// `C-E*C` never wraps (fuzz seed 90230, expand_collect). i64 is kept algebraic: its wrap needs |values| >= 2^63.
bool wrapping_int(const ir::Expr& e) {
  return e.ty != ir::DType::Invalid && ir::is_int(e.ty) && (!ir::is_signed_int(e.ty) || ir::dtype_bits(e.ty) < 64);
}

/// Nodes the conversion keeps whole (opaque symbols).
bool is_opaque_node(const ir::Expr& e) {
  using K = ir::ExprKind;
  if ((e.kind == K::Binary || e.kind == K::Neg) && wrapping_int(e)) return true;
  switch (e.kind) {
    case K::Inf:
    case K::Compare: return true;
    case K::Call:
      return e.fn == ir::Func::Max || e.fn == ir::Func::Min || e.fn == ir::Func::IfThenElse ||
             e.fn == ir::Func::Erf;
    case K::Binary:
      if (e.bop == ir::BinOp::Or || e.bop == ir::BinOp::And || e.bop == ir::BinOp::FloorDiv ||
          e.bop == ir::BinOp::Mod)
        return true;
      // Integer division is not the rational division GiNaC knows.
      if (e.bop == ir::BinOp::Div && e.ty != ir::DType::Invalid && ir::is_int(e.ty)) return true;
      if (e.bop == ir::BinOp::Pow) return !literal_exponent(e.args[1]).has_value();
      return false;
    default: return false;
  }
}

bool is_atom_node(const ir::Expr& e) {
  return e.kind == ir::ExprKind::Ref || e.kind == ir::ExprKind::Var || is_opaque_node(e);
}

numeric coefficient_of(const ex& term) {
  if (is_a<numeric>(term)) return ex_to<numeric>(term);
  numeric c = 1;
  if (is_a<GiNaC::mul>(term))
    for (std::size_t i = 0; i < term.nops(); ++i)
      if (is_a<numeric>(term.op(i))) c *= ex_to<numeric>(term.op(i));
  return c;
}

bool only_2_and_5(numeric q) {
  for (int p : {2, 5})
    while (GiNaC::irem(q, numeric(p)).is_zero()) q = GiNaC::iquo(q, numeric(p));
  return q == 1;
}

}  // namespace

bool reads_wrapping_integer(const ir::Expr& e) {
  switch (e.kind) {
    case ir::ExprKind::Ref: return wrapping_int(e);  // its subscript is an index, not a value
    case ir::ExprKind::Var:
    case ir::ExprKind::IntLit:
    case ir::ExprKind::FloatLit:
    case ir::ExprKind::Inf: return false;
    default: break;
  }
  if (is_opaque_node(e)) return wrapping_int(e);  // kept whole: only its own value counts
  for (const auto& a : e.args)
    if (reads_wrapping_integer(a)) return true;
  return false;
}

GiNaC::numeric exact_rational(const std::string& spelling) {
  std::string digits;
  long frac = 0, exp10 = 0;
  bool neg = false, dot = false;
  std::size_t i = 0;
  if (i < spelling.size() && (spelling[i] == '-' || spelling[i] == '+')) neg = spelling[i++] == '-';
  for (; i < spelling.size(); ++i) {
    const char ch = spelling[i];
    if (ch >= '0' && ch <= '9') {
      digits += ch;
      if (dot) ++frac;
    } else if (ch == '.') {
      dot = true;
    } else if (ch == 'e' || ch == 'E') {
      exp10 = std::strtol(spelling.c_str() + i + 1, nullptr, 10);
      break;
    } else {
      throw NotRepresentable("not a decimal literal: " + spelling);
    }
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - (digits.empty() ? 0 : 1)));
  if (digits.empty()) digits = "0";
  numeric v(digits.c_str());
  const long shift = exp10 - frac;
  const numeric ten_k = ex_to<numeric>(GiNaC::pow(numeric(10), numeric(shift < 0 ? -shift : shift)));
  v = shift < 0 ? v / ten_k : v * ten_k;
  return neg ? -v : v;
}

std::string shortest_decimal(double v, ir::DType dtype) {
  const bool f32 = dtype == ir::DType::F32 || dtype == ir::DType::F16 || dtype == ir::DType::BF16;
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    const double back = std::strtod(buf, nullptr);
    if (f32 ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  std::string s = buf;
  // Python-style: a float literal always shows a '.' or an exponent.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  // "1e-05" stays as is; "%g" writes "1e-05" already for small values.
  return s;
}

Bridge::Bridge(const ir::Stmt& stmt, ir::DType dtype) : dtype_(dtype) {
  std::uint32_t counter = 0;
  std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& e) {
    const std::uint32_t here = counter++;
    if (is_atom_node(e)) {
      pos_.emplace(ir::print_expr(e), here);
      if (e.kind == ir::ExprKind::Ref || is_opaque_node(e)) return;  // subscripts and opaque interiors: no atoms
    }
    if (e.kind == ir::ExprKind::IntLit || e.kind == ir::ExprKind::FloatLit) {
      const std::string sp = e.kind == ir::ExprKind::IntLit
                                 ? (e.text.empty() ? std::to_string(e.ival) : e.text)
                                 : (e.text.empty() ? ir::python_float_repr(e.fval) : e.text);
      try {
        literal_spelling_.emplace(ginac_text(exact_rational(sp)), sp);
      } catch (const NotRepresentable&) {
      }
    }
    for (const auto& a : e.args) walk(a);
  };
  walk(stmt.lhs);
  walk(stmt.rhs);
}

std::size_t Bridge::atom(const ir::Expr& node, bool opaque) {
  std::string text = ir::print_expr(node);
  auto it = by_text_.find(text);
  if (it != by_text_.end()) return it->second;
  Atom a;
  a.node = node;
  a.sym = GiNaC::realsymbol("s" + std::to_string(atoms_.size()));
  auto p = pos_.find(text);
  a.pos = p != pos_.end() ? p->second : 1000000 + static_cast<std::uint32_t>(atoms_.size());
  a.opaque = opaque;
  atoms_.push_back(std::move(a));
  by_text_.emplace(std::move(text), atoms_.size() - 1);
  return atoms_.size() - 1;
}

GiNaC::ex Bridge::to_ex(const ir::Expr& e) {
  using K = ir::ExprKind;
  if (is_opaque_node(e)) return atoms_[atom(e, true)].sym;
  switch (e.kind) {
    case K::Ref:
    case K::Var: return atoms_[atom(e, false)].sym;
    case K::IntLit: return numeric(static_cast<long>(e.ival));
    case K::FloatLit: return exact_rational(e.text.empty() ? ir::python_float_repr(e.fval) : e.text);
    case K::Group: return to_ex(e.args[0]);
    case K::Neg: return -to_ex(e.args[0]);
    case K::Binary: {
      switch (e.bop) {
        case ir::BinOp::Add: return to_ex(e.args[0]) + to_ex(e.args[1]);
        case ir::BinOp::Sub: return to_ex(e.args[0]) - to_ex(e.args[1]);
        case ir::BinOp::Mul: return to_ex(e.args[0]) * to_ex(e.args[1]);
        case ir::BinOp::Div: return to_ex(e.args[0]) / to_ex(e.args[1]);
        case ir::BinOp::Pow: return GiNaC::pow(to_ex(e.args[0]), *literal_exponent(e.args[1]));
        default: break;
      }
      break;
    }
    case K::Call:
      switch (e.fn) {
        case ir::Func::Exp: return GiNaC::exp(to_ex(e.args[0]));
        case ir::Func::Log: return GiNaC::log(to_ex(e.args[0]));
        case ir::Func::Sqrt: return GiNaC::sqrt(to_ex(e.args[0]));
        case ir::Func::Abs: return GiNaC::abs(to_ex(e.args[0]));
        default: break;
      }
      break;
    default: break;
  }
  return atoms_[atom(e, true)].sym;  // anything else stays whole
}

GiNaC::lst Bridge::symbols() const {
  GiNaC::lst l;
  for (const auto& a : atoms_) l.append(a.sym);
  return l;
}

const Bridge::Atom* Bridge::find(const GiNaC::ex& sym) const {
  if (!is_a<GiNaC::symbol>(sym)) return nullptr;
  for (const auto& a : atoms_)
    if (sym.is_equal(a.sym)) return &a;
  return nullptr;
}

bool Bridge::is_atom(const GiNaC::ex& x) const { return find(x) != nullptr; }

std::string Bridge::atom_text(const GiNaC::ex& sym) const {
  const Atom* a = find(sym);
  return a ? ir::print_expr(a->node) : std::string();
}

bool Bridge::is_opaque(const GiNaC::ex& sym) const {
  const Atom* a = find(sym);
  return a && a->opaque;
}

std::vector<GiNaC::ex> Bridge::atoms_of(const GiNaC::ex& x) const {
  std::vector<ex> out;
  for (const auto& a : atoms_)
    if (x.has(a.sym)) out.push_back(a.sym);
  std::stable_sort(out.begin(), out.end(),
                   [&](const ex& p, const ex& q) { return find(p)->pos < find(q)->pos; });
  return out;
}

bool Bridge::is_polynomial(const GiNaC::ex& x) const {
  if (is_a<numeric>(x) || find(x)) return true;
  if (is_a<GiNaC::add>(x) || is_a<GiNaC::mul>(x)) {
    for (std::size_t i = 0; i < x.nops(); ++i)
      if (!is_polynomial(x.op(i))) return false;
    return true;
  }
  if (is_a<GiNaC::power>(x)) {
    const ex n = x.op(1);
    return is_a<numeric>(n) && ex_to<numeric>(n).is_nonneg_integer() && is_polynomial(x.op(0));
  }
  return false;
}

std::vector<std::uint32_t> Bridge::key_of(const GiNaC::ex& x) const {
  std::set<std::uint32_t> s;
  for (const auto& a : atoms_)
    if (x.has(a.sym)) s.insert(a.pos);
  return {s.begin(), s.end()};
}

std::string Bridge::print(const GiNaC::ex& x) const { return ir::print_expr(to_ast(x)); }

void Bridge::sort_by_key(std::vector<GiNaC::ex>& v) const {
  std::vector<std::pair<std::pair<std::vector<std::uint32_t>, std::string>, ex>> keyed;
  for (const auto& x : v) keyed.push_back({{key_of(x), print(x)}, x});
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = keyed[i].second;
}

ir::Expr Bridge::number(const GiNaC::numeric& n) const {
  if (n.is_negative()) return ir::make_neg(number(-n));
  auto lit = literal_spelling_.find(ginac_text(n));
  if (n.is_integer()) {
    if (!n.is_pos_integer() && !n.is_zero()) throw NotRepresentable("integer");
    if (n > numeric(std::numeric_limits<std::int64_t>::max())) throw NotRepresentable("integer too large");
    if (lit != literal_spelling_.end() && lit->second != std::to_string(n.to_long())) {
      ir::Expr f = ir::make_float(n.to_double());
      f.text = lit->second;
      return f;
    }
    return ir::make_int(n.to_long());
  }
  if (!n.is_rational()) throw NotRepresentable("non-rational number");
  ir::Expr f = ir::make_float(n.to_double());
  f.text = lit != literal_spelling_.end() ? lit->second : shortest_decimal(n.to_double(), dtype_);
  return f;
}

ir::Expr Bridge::power(const GiNaC::ex& base, const GiNaC::numeric& n) const {
  if (n == numeric(1, 2)) return ir::make_call(ir::Func::Sqrt, {to_ast(base)});
  if (n.is_pos_integer()) {
    if (n == 1) return to_ast(base);
    return ir::make_binary(ir::BinOp::Pow, to_ast(base), ir::make_int(n.to_long()));
  }
  throw NotRepresentable("exponent " + ginac_text(n));
}

ir::Expr Bridge::sum(const GiNaC::ex& x) const {
  struct T {
    bool constant;
    std::vector<std::uint32_t> key;
    std::string text;
    ir::Expr ast;
  };
  std::vector<T> pos, neg;
  for (std::size_t i = 0; i < x.nops(); ++i) {
    const ex t = x.op(i);
    bool negative = coefficient_of(t).is_negative();
    const ex mag = negative ? ex(-t) : t;
    ir::Expr a = to_ast(mag);
    if (a.kind == ir::ExprKind::Neg) {  // a product whose sum factor moved the sign out: the term is negative
      ir::Expr inner = a.args[0];
      a = std::move(inner);
      negative = !negative;
    }
    T term{is_a<numeric>(t), key_of(mag), ir::print_expr(a), std::move(a)};
    (negative ? neg : pos).push_back(std::move(term));
  }
  auto order = [](std::vector<T>& v) {
    std::stable_sort(v.begin(), v.end(), [](const T& p, const T& q) {
      return std::tie(p.constant, p.key, p.text) < std::tie(q.constant, q.key, q.text);
    });
  };
  order(pos);
  order(neg);
  std::optional<ir::Expr> acc;
  for (auto& t : pos) acc = acc ? ir::make_binary(ir::BinOp::Add, *acc, t.ast) : t.ast;
  for (auto& t : neg) acc = acc ? ir::make_binary(ir::BinOp::Sub, *acc, t.ast) : ir::make_neg(t.ast);
  return acc ? *acc : ir::make_int(0);
}

ir::Expr Bridge::product(const GiNaC::ex& x) const {
  std::vector<ex> factors;
  if (is_a<GiNaC::mul>(x))
    for (std::size_t i = 0; i < x.nops(); ++i) factors.push_back(x.op(i));
  else
    factors.push_back(x);  // a lone power
  // Factors are turned into AST here, never rebuilt as GiNaC powers: GiNaC re-normalises the sign of a sum raised
  // to an odd power ((D-E)^3 -> -(E-D)^3) by its own order, so a flipped sum must not go back through it.
  struct Fac {
    std::vector<std::uint32_t> key;
    std::string text;
    ir::Expr ast;
  };
  numeric coef = 1;
  std::vector<Fac> num, den;
  for (const ex& f : factors) {
    if (is_a<numeric>(f)) {
      coef *= ex_to<numeric>(f);
      continue;
    }
    numeric k = 1;
    ex base = f;
    if (is_a<GiNaC::power>(f) && is_a<numeric>(f.op(1))) {
      base = f.op(0);
      k = ex_to<numeric>(f.op(1));
    }
    // A sum factor is written with its first term (§9.1 order, constant last) positive, the sign moved to the
    // coefficient (GiNaC picks that sign by its serial-number order).
    if (is_a<GiNaC::add>(base) && k.is_integer() && first_term_negative(base)) {
      base = (-base).expand();
      if (k.is_odd()) coef = -coef;
    }
    const numeric m = k.is_negative() ? numeric(-k) : k;
    ir::Expr a = m == 1 ? to_ast(base) : power(base, m);
    Fac fac{key_of(base), ir::print_expr(a), std::move(a)};
    (k.is_negative() ? den : num).push_back(std::move(fac));
  }
  auto order = [](std::vector<Fac>& v) {
    std::stable_sort(v.begin(), v.end(),
                     [](const Fac& p, const Fac& q) { return std::tie(p.key, p.text) < std::tie(q.key, q.text); });
  };
  order(num);
  order(den);
  const bool negative = coef.is_negative();
  if (negative) coef = -coef;
  std::vector<ir::Expr> n_ast, d_ast;
  if (coef != 1) {
    const numeric p = coef.numer(), q = coef.denom();
    const bool decimal = literal_spelling_.count(ginac_text(coef)) || q == 1 || only_2_and_5(q);
    if (decimal) {
      n_ast.push_back(number(coef));
    } else {
      if (p != 1) n_ast.push_back(number(p));
      d_ast.push_back(number(q));
    }
  }
  for (auto& f : num) n_ast.push_back(std::move(f.ast));
  for (auto& f : den) d_ast.push_back(std::move(f.ast));
  ir::Expr top = n_ast.empty() ? ir::make_int(1) : n_ast[0];
  for (std::size_t i = 1; i < n_ast.size(); ++i) top = ir::make_binary(ir::BinOp::Mul, top, n_ast[i]);
  if (!d_ast.empty()) {
    ir::Expr bottom = d_ast[0];
    for (std::size_t i = 1; i < d_ast.size(); ++i) bottom = ir::make_binary(ir::BinOp::Mul, bottom, d_ast[i]);
    top = ir::make_binary(ir::BinOp::Div, top, bottom);
  }
  return negative ? ir::make_neg(top) : top;
}

bool Bridge::first_term_negative(const GiNaC::ex& sum) const {
  // The first term by (constant last, key, printed magnitude): the sign must not take part in the order, or
  // negating the sum would change which term comes first and the rule would not be idempotent.
  struct T {
    bool constant;
    std::vector<std::uint32_t> key;
    std::string text;
    bool negative;
  };
  std::vector<T> ts;
  for (std::size_t j = 0; j < sum.nops(); ++j) {
    const ex t = sum.op(j);
    const bool neg = coefficient_of(t).is_negative();
    ts.push_back({is_a<numeric>(t), key_of(t), print(neg ? ex(-t) : t), neg});
  }
  if (ts.empty()) return false;
  return std::min_element(ts.begin(), ts.end(), [](const T& p, const T& q) {
           return std::tie(p.constant, p.key, p.text) < std::tie(q.constant, q.key, q.text);
         })->negative;
}

GiNaC::ex Bridge::canonical_signs(const GiNaC::ex& x) const {
  if (is_a<GiNaC::add>(x) && first_term_negative(x)) return (-x).expand();
  return x;
}

ir::Expr Bridge::to_ast(const GiNaC::ex& x) const {
  if (const Atom* a = find(x)) return a->node;
  if (is_a<numeric>(x)) return number(ex_to<numeric>(x));
  if (is_a<GiNaC::add>(x)) return sum(x);
  if (is_a<GiNaC::mul>(x)) return product(x);
  if (is_a<GiNaC::power>(x)) {
    if (!is_a<numeric>(x.op(1))) throw NotRepresentable("symbolic exponent");
    return product(x);  // x^n, or 1/x^-n; a sum base gets the sign rule of products
  }
  if (is_a<GiNaC::function>(x)) {
    const std::string name = ex_to<GiNaC::function>(x).get_name();
    const ir::Expr arg = to_ast(x.op(0));
    if (name == "exp") return ir::make_call(ir::Func::Exp, {arg});
    if (name == "log") return ir::make_call(ir::Func::Log, {arg});
    if (name == "abs") return ir::make_call(ir::Func::Abs, {arg});
    throw NotRepresentable("function " + name);
  }
  throw NotRepresentable("GiNaC object " + ginac_text(x));
}

}  // namespace steptp::strategy::algebraic
