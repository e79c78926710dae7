// LEIR.md §7.3 static types and constant folding; §7.4 subscript form checks (E211, E212).
#include "ir/typing.hpp"

#include <cmath>
#include <limits>

#include "ir/validate_detail.hpp"

namespace steptp::ir {

DType float_type_for(DType target) { return is_float(target) ? target : DType::F64; }

bool is_index_binop(BinOp op) {
  return op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::FloorDiv || op == BinOp::Mod;
}

namespace {

bool is_logic(const Expr& e) {
  return e.kind == ExprKind::Compare ||
         (e.kind == ExprKind::Binary && (e.bop == BinOp::And || e.bop == BinOp::Or));
}

// Constant class of `e` from the classes of its children (kids[i] for e.args[i]).
ConstClass combine_class(const Expr& e, const ConstClass* kids) {
  const std::size_t n = e.args.size();
  for (std::size_t i = 0; i < n; ++i)
    if (kids[i] == ConstClass::None) return ConstClass::None;
  switch (e.kind) {
    case ExprKind::IntLit: return ConstClass::Int;
    case ExprKind::FloatLit:
    case ExprKind::Inf: return ConstClass::Float;
    case ExprKind::Var:
    case ExprKind::Ref: return ConstClass::None;
    case ExprKind::Group: return n == 1 ? kids[0] : ConstClass::Float;
    case ExprKind::Neg: return n == 1 && kids[0] == ConstClass::Int ? ConstClass::Int : ConstClass::Float;
    case ExprKind::Compare: return ConstClass::Bool;
    case ExprKind::Binary:
      if (e.bop == BinOp::And || e.bop == BinOp::Or) return ConstClass::Bool;
      if (is_index_binop(e.bop) && n == 2 && kids[0] == ConstClass::Int && kids[1] == ConstClass::Int)
        return ConstClass::Int;
      return ConstClass::Float;
    case ExprKind::Call: return ConstClass::Float;
  }
  return ConstClass::Float;
}

std::int64_t floordiv_i64(std::int64_t a, std::int64_t b) {  // b != 0, not (MIN, -1)
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::int64_t floormod_i64(std::int64_t a, std::int64_t b) {  // b != 0
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::optional<std::int64_t> fold_int(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return e.ival;
    case ExprKind::Group:
      if (e.args.size() != 1) return std::nullopt;
      return fold_int(e.args[0]);
    case ExprKind::Neg: {
      if (e.args.size() != 1) return std::nullopt;
      auto a = fold_int(e.args[0]);
      if (!a || *a == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
      return -*a;
    }
    case ExprKind::Binary: {
      if (e.args.size() != 2 || !is_index_binop(e.bop)) return std::nullopt;
      auto a = fold_int(e.args[0]);
      if (!a) return std::nullopt;
      auto b = fold_int(e.args[1]);
      if (!b) return std::nullopt;
      std::int64_t r = 0;
      switch (e.bop) {
        case BinOp::Add: if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt; return r;
        case BinOp::Sub: if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt; return r;
        case BinOp::Mul: if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt; return r;
        case BinOp::FloorDiv:
          if (*b == 0 || (*a == std::numeric_limits<std::int64_t>::min() && *b == -1)) return std::nullopt;
          return floordiv_i64(*a, *b);
        case BinOp::Mod:
          if (*b == 0) return std::nullopt;
          return floormod_i64(*a, *b);
        default: return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

double cmp_f64(CmpOp op, double a, double b) {
  switch (op) {
    case CmpOp::Lt: return a < b;
    case CmpOp::Le: return a <= b;
    case CmpOp::Gt: return a > b;
    case CmpOp::Ge: return a >= b;
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
  }
  return 0;
}

std::optional<double> fold_f64(const Expr& e) {
  const ConstClass cls = constant_class(e);
  if (cls == ConstClass::None) return std::nullopt;
  if (cls == ConstClass::Int) {
    auto v = fold_int(e);
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  }
  auto arg = [&](std::size_t i) -> std::optional<double> {
    if (i >= e.args.size()) return std::nullopt;
    return fold_f64(e.args[i]);
  };
  switch (e.kind) {
    case ExprKind::FloatLit: return e.fval;
    case ExprKind::Inf: return std::numeric_limits<double>::infinity();
    case ExprKind::Group: return arg(0);
    case ExprKind::Neg: { auto a = arg(0); if (!a) return a; return -*a; }
    case ExprKind::Compare: {
      if (e.args.size() != e.cmps.size() + 1) return std::nullopt;
      auto a = arg(0);
      if (!a) return a;
      for (std::size_t i = 0; i < e.cmps.size(); ++i) {
        auto b = arg(i + 1);
        if (!b) return b;
        if (!cmp_f64(e.cmps[i], *a, *b)) return 0.0;
        a = b;
      }
      return 1.0;
    }
    case ExprKind::Binary: {
      auto a = arg(0);
      if (!a) return a;
      if (e.bop == BinOp::And && *a == 0) return 0.0;
      if (e.bop == BinOp::Or && *a != 0) return 1.0;
      auto b = arg(1);
      if (!b) return b;
      switch (e.bop) {
        case BinOp::Or:
        case BinOp::And: return *b != 0 ? 1.0 : 0.0;
        case BinOp::Add: return *a + *b;
        case BinOp::Sub: return *a - *b;
        case BinOp::Mul: return *a * *b;
        case BinOp::Div: return *a / *b;
        case BinOp::FloorDiv: return std::floor(*a / *b);
        case BinOp::Mod: return *a - *b * std::floor(*a / *b);
        case BinOp::Pow: return std::pow(*a, *b);
      }
      return std::nullopt;
    }
    case ExprKind::Call: {
      if (static_cast<int>(e.args.size()) != func_arity(e.fn)) return std::nullopt;
      auto a = arg(0);
      if (!a) return a;
      switch (e.fn) {
        case Func::Exp: return std::exp(*a);
        case Func::Log: return std::log(*a);
        case Func::Sqrt: return std::sqrt(*a);
        case Func::Abs: return std::fabs(*a);
        case Func::Erf: return std::erf(*a);
        case Func::Max:
        case Func::Min: {
          auto b = arg(1);
          if (!b) return b;
          if (std::isnan(*a) || std::isnan(*b)) return std::numeric_limits<double>::quiet_NaN();
          return e.fn == Func::Max ? std::max(*a, *b) : std::min(*a, *b);
        }
        case Func::IfThenElse: return (*a != 0 || std::isnan(*a)) ? arg(1) : arg(2);
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

DType prom(DType a, DType b) {
  if (!is_supported(a)) return a;
  if (!is_supported(b)) return b;
  return promote(a, b);
}

bool weak(const Expr& e) { return e.ty == DType::Invalid; }

// Types one statement. Invariant: after type_node(e) returns ConstClass::None, e.ty is set, or left Invalid when e
// is weak (pending resolution by its parent).
class Typer {
 public:
  Typer(DType target, const RefDtypeFn& ref_dtype, detail::DiagSink* sink)
      : T_(target), F_(float_type_for(target)), ref_dtype_(ref_dtype), sink_(sink) {}

  void statement(Stmt& s) {
    s.lhs.ty = DType::Invalid;
    for (auto& entry : s.lhs.args) index_entry(entry);
    s.lhs.ty = T_;
    value_root(s.rhs, T_);
  }

 private:
  // A value position whose weak result resolves to `t`.
  void value_root(Expr& e, DType t) {
    ConstClass c = type_node(e);
    if (c != ConstClass::None) finalize_const(e, c);
    if (weak(e)) resolve(e, t);
  }
  void index_entry(Expr& e) {
    ++in_index_;  // '/' in a subscript is reported as E211 (check_entry), not again as E213
    value_root(e, DType::I64);
    --in_index_;
  }

  ConstClass type_node(Expr& e) {
    e.ty = DType::Invalid;
    constexpr std::size_t kInline = 4;
    ConstClass inline_kids[kInline];
    std::vector<ConstClass> heap_kids;
    ConstClass* kids = inline_kids;
    if (e.args.size() > kInline) { heap_kids.resize(e.args.size()); kids = heap_kids.data(); }
    if (e.kind == ExprKind::Ref) {
      for (std::size_t i = 0; i < e.args.size(); ++i) kids[i] = ConstClass::None;
      for (auto& entry : e.args) index_entry(entry);
      e.ty = ref_dtype_(e);
      return ConstClass::None;
    }
    for (std::size_t i = 0; i < e.args.size(); ++i) kids[i] = type_node(e.args[i]);
    ConstClass mine = combine_class(e, kids);
    if (mine != ConstClass::None) return mine;
    // Non-constant node: finalize constant children, then type this node.
    for (std::size_t i = 0; i < e.args.size(); ++i)
      if (kids[i] != ConstClass::None) finalize_const(e.args[i], kids[i]);
    type_nonconst(e);
    return ConstClass::None;
  }

  // A maximal constant subtree. Int: E216 check, stays weak. Bool/Float: typed now.
  void finalize_const(Expr& e, ConstClass c) {
    if (c == ConstClass::Int) {
      if (!fold_int(e) && sink_)
        sink_->at(e, Code::E216, "integer constant folding fails (overflow or division by zero)");
      return;
    }
    if (c == ConstClass::Bool && e.kind == ExprKind::Group && e.args.size() == 1) {
      finalize_const(e.args[0], c);
      e.ty = DType::Bool;
      return;
    }
    if (c == ConstClass::Bool) {
      e.ty = DType::Bool;
      bool any_float = false, all_bool = true;
      for (auto& a : e.args) {
        ConstClass ac = constant_class(a);
        if (ac == ConstClass::Float) any_float = true;
        if (ac != ConstClass::Bool) all_bool = false;
        finalize_const(a, ac);
      }
      DType common = any_float ? F_ : all_bool ? DType::Bool : DType::I64;
      if (e.kind != ExprKind::Compare) common = DType::Bool;
      for (auto& a : e.args)
        if (weak(a)) resolve(a, common);
      return;
    }
    set_float_const(e);
  }
  void set_float_const(Expr& e) {
    e.ty = is_logic(e) ? DType::Bool : F_;
    for (auto& a : e.args) set_float_const(a);
  }

  void type_nonconst(Expr& e) {
    auto& a = e.args;
    switch (e.kind) {
      case ExprKind::Var: e.ty = DType::I64; return;
      case ExprKind::Group:
      case ExprKind::Neg: e.ty = a[0].ty; return;  // weak stays weak
      case ExprKind::Compare: {
        DType common = DType::Invalid;
        for (auto& x : a)
          if (!weak(x)) common = common == DType::Invalid ? x.ty : prom(common, x.ty);
        if (common == DType::Invalid) common = DType::I64;
        for (auto& x : a) resolve(x, common);
        e.ty = DType::Bool;
        return;
      }
      case ExprKind::Binary:
        switch (e.bop) {
          case BinOp::And:
          case BinOp::Or:
            resolve(a[0], DType::Bool);
            resolve(a[1], DType::Bool);
            e.ty = DType::Bool;
            return;
          case BinOp::Pow: {
            if (weak(a[0]) && weak(a[1])) { resolve(a[0], F_); resolve(a[1], F_); e.ty = F_; return; }
            arith_pair(e, a[0], a[1]);
            if (!is_float(e.ty) && is_supported(e.ty)) e.ty = F_;
            return;
          }
          default:
            arith_pair(e, a[0], a[1]);
            if (e.bop == BinOp::Div && !weak(e)) check_div(e);
            return;
        }
      case ExprKind::Call:
        switch (e.fn) {
          case Func::Exp:
          case Func::Log:
          case Func::Sqrt:
          case Func::Erf:
            resolve(a[0], F_);
            e.ty = (is_float(a[0].ty) || !is_supported(a[0].ty)) ? a[0].ty : F_;
            return;
          case Func::Abs: e.ty = a[0].ty; return;
          case Func::Max:
          case Func::Min: arith_pair(e, a[0], a[1]); return;
          case Func::IfThenElse:
            resolve(a[0], DType::Bool);
            arith_pair(e, a[1], a[2]);
            return;
        }
        return;
      default: return;  // literals are constant; Ref handled by the caller
    }
  }

  // e.ty = promote(x, y) with weak operands taking the other's type; both weak: e stays weak.
  void arith_pair(Expr& e, Expr& x, Expr& y) {
    if (weak(x) && weak(y)) return;
    if (weak(x)) { resolve(x, y.ty); e.ty = y.ty; return; }
    if (weak(y)) { resolve(y, x.ty); e.ty = x.ty; return; }
    e.ty = prom(x.ty, y.ty);
  }

  void check_div(const Expr& e) {
    if (sink_ && in_index_ == 0 && (is_int(e.ty) || e.ty == DType::Bool))
      sink_->at(e, Code::E213, "'/' between integer or bool operands (type " + std::string(dtype_name(e.ty)) +
                               "); use '//'");
  }

  // Gives a weak subtree the type `t` (nodes already typed are left alone).
  void resolve(Expr& e, DType t) {
    if (!weak(e)) return;
    e.ty = t;
    if (e.kind == ExprKind::Binary && e.bop == BinOp::Div) check_div(e);
    if (e.kind == ExprKind::Call && e.fn == Func::IfThenElse) {
      for (std::size_t i = 1; i < e.args.size(); ++i) resolve(e.args[i], t);
      return;
    }
    for (auto& c : e.args) resolve(c, t);
  }

  DType T_, F_;
  int in_index_ = 0;
  const RefDtypeFn& ref_dtype_;
  detail::DiagSink* sink_;
};

// §7.4 subscript entry check: E211 for forbidden nodes (not descended further), E212 for non-integer gathers.
void check_entry(const Expr& e, const RefDtypeFn& ref_dtype, detail::DiagSink& sink) {
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::Var: return;
    case ExprKind::Group:
    case ExprKind::Neg:
      for (const auto& c : e.args) check_entry(c, ref_dtype, sink);
      return;
    case ExprKind::Binary:
      if (is_index_binop(e.bop)) {
        for (const auto& c : e.args) check_entry(c, ref_dtype, sink);
        return;
      }
      break;
    case ExprKind::Ref: {
      DType d = ref_dtype(e);
      if (is_supported(d) && !is_int(d))
        sink.at(e, Code::E212, "gather buffer " + e.text + " has non-integer dtype " + std::string(dtype_name(d)));
      for (const auto& c : e.args) check_entry(c, ref_dtype, sink);
      return;
    }
    default: break;
  }
  sink.at(e, Code::E211, "invalid subscript expression (only integer literals, loop variables, gathers, + - * // % "
                     "and unary - are allowed)");
}

void check_value_subscripts(const Expr& e, const RefDtypeFn& ref_dtype, detail::DiagSink& sink) {
  if (e.kind == ExprKind::Ref) {
    for (const auto& c : e.args) check_entry(c, ref_dtype, sink);
    return;
  }
  for (const auto& c : e.args) check_value_subscripts(c, ref_dtype, sink);
}

}  // namespace

ConstClass constant_class(const Expr& e) {
  std::vector<ConstClass> kids(e.args.size());
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    kids[i] = constant_class(e.args[i]);
    if (kids[i] == ConstClass::None) return ConstClass::None;
  }
  return combine_class(e, kids.data());
}

std::optional<std::int64_t> fold_int_constant(const Expr& e) {
  if (constant_class(e) != ConstClass::Int) return std::nullopt;
  return fold_int(e);
}

std::optional<double> fold_constant_f64(const Expr& e) { return fold_f64(e); }

void annotate_types(Stmt& s, DType target, const RefDtypeFn& ref_dtype) {
  Typer(target, ref_dtype, nullptr).statement(s);
}

namespace detail {
void type_statement(Stmt& s, DType target, const RefDtypeFn& ref_dtype, DiagSink& sink) {
  check_value_subscripts(s.lhs, ref_dtype, sink);
  check_value_subscripts(s.rhs, ref_dtype, sink);
  Typer(target, ref_dtype, &sink).statement(s);
}
}  // namespace detail

}  // namespace steptp::ir
