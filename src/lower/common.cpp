#include "lower/common.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "base/diag.hpp"
#include "interp/numeric.hpp"

namespace steptp::lower {

using ir::BinOp;
using ir::CmpOp;
using ir::DType;
using ir::Expr;
using ir::ExprKind;
using ir::Func;

Prepared::Prepared(const ir::Task& t) : task(t) { an = ir::validate_or_throw(task); }

const ir::BufferInfo& Prepared::buffer(std::string_view name) const {
  if (const auto* b = an.find(name)) return *b;
  throw std::logic_error("lower: unknown buffer " + std::string(name));
}

std::vector<const ir::BufferInfo*> Prepared::knowns() const {
  std::vector<const ir::BufferInfo*> r;
  for (const auto& k : task.known) r.push_back(&buffer(k.name));
  return r;
}

std::vector<const ir::BufferInfo*> Prepared::intermediates() const {
  std::vector<const ir::BufferInfo*> r;
  for (const auto& b : an.buffers)
    if (!b.known) r.push_back(&b);
  return r;
}

bool is_constant(const Expr& e) {
  if (e.kind == ExprKind::Ref || e.kind == ExprKind::Var) return false;
  for (const auto& c : e.args)
    if (!is_constant(c)) return false;
  return true;
}

bool contains_ref(const Expr& e) {
  bool r = false;
  ir::visit_expr(e, [&](const Expr& x) { r = r || x.kind == ExprKind::Ref; });
  return r;
}

bool contains_var(const Expr& e) {
  bool r = false;
  ir::visit_expr(e, [&](const Expr& x) { r = r || x.kind == ExprKind::Var; });
  return r;
}

namespace {

// Integer constant: only integer literals with + - * // % and unary minus (§7.3).
bool is_integer_constant(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return true;
    case ExprKind::Neg:
    case ExprKind::Group: return is_integer_constant(e.args[0]);
    case ExprKind::Binary:
      if (e.bop != BinOp::Add && e.bop != BinOp::Sub && e.bop != BinOp::Mul && e.bop != BinOp::FloorDiv &&
          e.bop != BinOp::Mod)
        return false;
      return is_integer_constant(e.args[0]) && is_integer_constant(e.args[1]);
    default: return false;
  }
}

std::int64_t fold_int(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return e.ival;
    case ExprKind::Group: return fold_int(e.args[0]);
    case ExprKind::Neg: return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(fold_int(e.args[0])));
    default: break;
  }
  const std::int64_t a = fold_int(e.args[0]), b = fold_int(e.args[1]);
  std::int64_t r = 0;
  switch (e.bop) {
    case BinOp::Add: __builtin_add_overflow(a, b, &r); return r;
    case BinOp::Sub: __builtin_sub_overflow(a, b, &r); return r;
    case BinOp::Mul: __builtin_mul_overflow(a, b, &r); return r;
    case BinOp::FloorDiv: return b == 0 ? 0 : steptp_num::floor_div(a, b);  // E216 in the validator
    default: return b == 0 ? 0 : steptp_num::floor_mod(a, b);
  }
}

double fold_f64(const Expr& e) {
  auto arg = [&](std::size_t i) { return fold_f64(e.args[i]); };
  switch (e.kind) {
    case ExprKind::IntLit: return double(e.ival);
    case ExprKind::FloatLit: return e.fval;
    case ExprKind::Inf: return std::numeric_limits<double>::infinity();
    case ExprKind::Group: return arg(0);
    case ExprKind::Neg: return -arg(0);
    case ExprKind::Compare: {
      double l = arg(0);
      for (std::size_t k = 0; k < e.cmps.size(); ++k) {
        const double r = arg(k + 1);
        bool ok = false;
        switch (e.cmps[k]) {
          case CmpOp::Lt: ok = l < r; break;
          case CmpOp::Le: ok = l <= r; break;
          case CmpOp::Gt: ok = l > r; break;
          case CmpOp::Ge: ok = l >= r; break;
          case CmpOp::Eq: ok = l == r; break;
          case CmpOp::Ne: ok = l != r; break;
        }
        if (!ok) return 0.0;
        l = r;
      }
      return 1.0;
    }
    case ExprKind::Call:
      switch (e.fn) {
        case Func::Exp: return std::exp(arg(0));
        case Func::Log: return std::log(arg(0));
        case Func::Sqrt: return std::sqrt(arg(0));
        case Func::Abs: return std::fabs(arg(0));
        case Func::Erf: return std::erf(arg(0));
        case Func::Max: return steptp_num::nan_max(arg(0), arg(1));
        case Func::Min: return steptp_num::nan_min(arg(0), arg(1));
        case Func::IfThenElse: return arg(0) != 0.0 ? arg(1) : arg(2);
      }
      break;
    case ExprKind::Binary: {
      const double a = arg(0);
      if (e.bop == BinOp::And) return (a != 0.0 && arg(1) != 0.0) ? 1.0 : 0.0;
      if (e.bop == BinOp::Or) return (a != 0.0 || arg(1) != 0.0) ? 1.0 : 0.0;
      const double b = arg(1);
      switch (e.bop) {
        case BinOp::Add: return a + b;
        case BinOp::Sub: return a - b;
        case BinOp::Mul: return a * b;
        case BinOp::Div: return a / b;
        case BinOp::FloorDiv: return steptp_num::floor_div(a, b);
        case BinOp::Mod: return steptp_num::floor_mod(a, b);
        case BinOp::Pow: return ir::is_square(e) ? a * a : std::pow(a, b);
        default: break;
      }
      break;
    }
    default: break;
  }
  return 0.0;
}

bool is_bool_node(const Expr& e) {
  if (e.kind == ExprKind::Group) return is_bool_node(e.args[0]);
  return e.kind == ExprKind::Compare ||
         (e.kind == ExprKind::Binary && (e.bop == BinOp::And || e.bop == BinOp::Or));
}

}  // namespace

std::optional<ConstVal> fold_constant(const Expr& e) {
  if (!is_constant(e)) return std::nullopt;
  ConstVal v;
  if (is_integer_constant(e)) {
    v.kind = ConstVal::Int;
    v.i = fold_int(e);
  } else if (is_bool_node(e)) {
    v.kind = ConstVal::Bool;
    v.b = fold_f64(e) != 0.0;
  } else {
    v.kind = ConstVal::Float;
    v.f = fold_f64(e);
  }
  return v;
}

std::string HwAxis::name() const {
  return std::string(thread ? "threadIdx." : "blockIdx.") + "xyz"[dim];
}

HwAxis hw_axis(std::string_view v) {
  HwAxis a;
  a.thread = !v.empty() && v[0] == 't';
  a.dim = v.size() > 1 ? (v[1] == 'y' ? 1 : v[1] == 'z' ? 2 : 0) : 0;
  return a;
}

bool is_reducing(const ir::Nest& holder, const ir::Loop& loop) {
  if (loop.kind == ir::LoopKind::L || loop.kind == ir::LoopKind::U || loop.extent <= 1) return false;
  return ir::is_reducing_loop(holder, loop.var);
}

namespace {
void collect_bound(const ir::Nest& n, bool nested, std::vector<const ir::Loop*>& out) {
  for (const auto& l : n.loops)
    if (l.kind == ir::LoopKind::B) out.push_back(&l);
  if (!nested) return;
  for (const auto& it : n.body)
    if (it.is_nest()) collect_bound(it.nest(), nested, out);
}
}  // namespace

void check_gpu_limits(const ir::Nest& top, bool nested) {
  std::vector<const ir::Loop*> bound;
  collect_bound(top, nested, bound);
  std::int64_t threads = 1;
  for (const auto* l : bound) {
    const HwAxis ax = hw_axis(l->var);
    const std::int64_t lim = ax.thread ? (ax.dim == 2 ? 64 : 1024) : (ax.dim == 0 ? 2147483647LL : 65535);
    if (l->extent > lim)
      throw ir::LeirError(Code::E401,
                          "GPU launch limit exceeded: " + ax.name() + " extent " + std::to_string(l->extent) + " > " +
                              std::to_string(lim),
                          l->offset);
    if (ax.thread) threads *= l->extent;
    if (threads > 1024)
      throw ir::LeirError(Code::E401, "GPU launch limit exceeded: " + std::to_string(threads) +
                                      " threads per block > 1024",
                          l->offset);
  }
}

ConstVal init_identity(ir::InitKind init, DType t) {
  ConstVal v;
  const bool fl = ir::is_float(t);
  if (init == ir::InitKind::Zero || init == ir::InitKind::One) {
    v.kind = ConstVal::Int;
    v.i = init == ir::InitKind::One ? 1 : 0;
    return v;
  }
  const bool neg = init == ir::InitKind::NegInf;
  if (fl) {
    v.kind = ConstVal::Float;
    v.f = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return v;
  }
  v.kind = ConstVal::Int;
  if (t == DType::Bool) {
    v.i = neg ? 0 : 1;
  } else if (ir::is_unsigned_int(t)) {
    // u64 max does not fit an i64; it is represented as -1 and printed by the callers with the type.
    const int bits = ir::dtype_bits(t);
    v.i = neg ? 0 : (bits == 64 ? -1 : static_cast<std::int64_t>((1ULL << bits) - 1));
  } else {
    const int bits = ir::dtype_bits(t);
    const std::int64_t mx = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (1LL << (bits - 1)) - 1;
    v.i = neg ? -mx - 1 : mx;
  }
  return v;
}

DType compare_type(const Expr& e, std::size_t k) { return ir::promote(e.args[k].ty, e.args[k + 1].ty); }

DType operand_type(const Expr& e, std::size_t i) {
  switch (e.kind) {
    case ExprKind::Ref: return DType::I64;
    case ExprKind::Compare: {
      // An inner operand takes part in two comparisons; the pair on its left decides (it is converted for each
      // pair separately by the emitters, which call compare_type directly).
      return compare_type(e, i == 0 ? 0 : i - 1);
    }
    case ExprKind::Binary:
      if (e.bop == BinOp::And || e.bop == BinOp::Or) return DType::Bool;
      return e.ty;
    case ExprKind::Call:
      if (e.fn == Func::IfThenElse && i == 0) return DType::Bool;
      return e.ty;
    default: return e.ty;  // Neg, Group
  }
}

std::string python_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  // s = [-]d[.ddd]e±XX
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  const auto epos = s.find('e');
  std::string mant = s.substr(0, epos);
  const int exp10 = std::stoi(s.substr(epos + 1));
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp10 >= -4 && exp10 <= 15) {
    if (exp10 < 0) {
      out = "0." + std::string(static_cast<std::size_t>(-exp10 - 1), '0') + digits;
    } else {
      const std::size_t ip = static_cast<std::size_t>(exp10) + 1;
      if (digits.size() <= ip) out = digits + std::string(ip - digits.size(), '0') + ".0";
      else out = digits.substr(0, ip) + "." + digits.substr(ip);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    out += eb;
  }
  return neg ? "-" + out : out;
}

std::string python_repr_in(double v, DType t) {
  if (t == DType::F64 || std::isnan(v) || std::isinf(v)) return python_repr(v);
  // shortest decimal that rounds back to v in type t
  for (int prec = 0; prec < 17; ++prec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", prec, v);
    const double d = std::strtod(buf, nullptr);
    if (round_to(d, t) == v) return python_repr(d);
  }
  return python_repr(v);
}

double round_to(double v, DType t) {
  switch (t) {
    case DType::F32: return steptp_num::round_f32(v);
    case DType::F16: return steptp_num::round_f16(v);
    case DType::BF16: return steptp_num::round_bf16(v);
    default: return v;
  }
}

namespace {
void referenced(const ir::Nest& n, std::vector<std::string>& out) {
  for (const auto& it : n.body) {
    if (it.is_nest()) {
      referenced(it.nest(), out);
      continue;
    }
    for (const auto* e : {&it.stmt().lhs, &it.stmt().rhs})
      ir::visit_expr(*e, [&](const Expr& x) {
        if (x.kind == ExprKind::Ref) out.push_back(x.text);
      });
  }
}
}  // namespace

std::vector<const ir::BufferInfo*> scoped_intermediates(const Prepared& p, const ir::Nest& top) {
  std::vector<std::string> names;
  referenced(top, names);
  std::vector<const ir::BufferInfo*> r;
  for (const auto* b : p.intermediates()) {
    if (b->scope == ir::Scope::Global) continue;
    for (const auto& n : names)
      if (n == b->name) {
        r.push_back(b);
        break;
      }
  }
  return r;
}

bool has_bound_loop(const ir::Nest& n) {
  for (const auto& l : n.loops)
    if (l.kind == ir::LoopKind::B) return true;
  for (const auto& it : n.body)
    if (it.is_nest() && has_bound_loop(it.nest())) return true;
  return false;
}

}  // namespace steptp::lower
