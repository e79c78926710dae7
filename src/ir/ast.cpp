#include "ir/ast.hpp"

namespace steptp::ir {

std::string_view binop_text(BinOp op) {
  switch (op) {
    case BinOp::Or: return "|";
    case BinOp::And: return "&";
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::FloorDiv: return "//";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "**";
  }
  return "?";
}

std::string_view cmpop_text(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
    case CmpOp::Eq: return "==";
    case CmpOp::Ne: return "!=";
  }
  return "?";
}

std::string_view func_name(Func f) {
  switch (f) {
    case Func::Exp: return "exp";
    case Func::Log: return "log";
    case Func::Sqrt: return "sqrt";
    case Func::Abs: return "abs";
    case Func::Erf: return "erf";
    case Func::Max: return "max";
    case Func::Min: return "min";
    case Func::IfThenElse: return "if_then_else";
  }
  return "?";
}

int func_arity(Func f) {
  switch (f) {
    case Func::Max:
    case Func::Min: return 2;
    case Func::IfThenElse: return 3;
    default: return 1;
  }
}

int binop_precedence(BinOp op) {
  switch (op) {
    case BinOp::Or: return 1;
    case BinOp::And: return 2;
    case BinOp::Add:
    case BinOp::Sub: return 4;
    case BinOp::Mul:
    case BinOp::Div:
    case BinOp::FloorDiv:
    case BinOp::Mod: return 5;
    case BinOp::Pow: return 7;
  }
  return 0;
}

char loop_kind_char(LoopKind k) {
  switch (k) {
    case LoopKind::L: return 'L';
    case LoopKind::P: return 'P';
    case LoopKind::V: return 'V';
    case LoopKind::U: return 'U';
    case LoopKind::B: return 'B';
  }
  return '?';
}

bool operator==(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::IntLit:
      if (a.ival != b.ival || a.text != b.text) return false;
      break;
    case ExprKind::FloatLit:
      if (!(a.fval == b.fval) || a.text != b.text) return false;
      break;
    case ExprKind::Var:
      if (a.text != b.text) return false;
      break;
    case ExprKind::Ref:
      if (a.text != b.text || a.dtype != b.dtype || a.scope != b.scope) return false;
      break;
    case ExprKind::Call:
      if (a.fn != b.fn) return false;
      break;
    case ExprKind::Binary:
      if (a.bop != b.bop) return false;
      break;
    case ExprKind::Compare:
      if (a.cmps != b.cmps) return false;
      break;
    default:
      break;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!(a.args[i] == b.args[i])) return false;
  return true;
}

bool Nest::operator==(const Nest& o) const { return tail == o.tail && loops == o.loops && body == o.body; }

Expr make_int(std::int64_t v) {
  Expr e;
  e.kind = ExprKind::IntLit;
  e.ival = v;
  return e;
}
Expr make_float(double v) {
  Expr e;
  e.kind = ExprKind::FloatLit;
  e.fval = v;
  return e;
}
Expr make_inf() {
  Expr e;
  e.kind = ExprKind::Inf;
  return e;
}
Expr make_var(std::string name) {
  Expr e;
  e.kind = ExprKind::Var;
  e.text = std::move(name);
  return e;
}
Expr make_ref(std::string name, DType dtype, Scope scope, std::vector<Expr> subscript) {
  Expr e;
  e.kind = ExprKind::Ref;
  e.text = std::move(name);
  e.dtype = dtype;
  e.scope = scope;
  e.args = std::move(subscript);
  return e;
}
Expr make_call(Func f, std::vector<Expr> args) {
  Expr e;
  e.kind = ExprKind::Call;
  e.fn = f;
  e.args = std::move(args);
  return e;
}
Expr make_neg(Expr a) {
  Expr e;
  e.kind = ExprKind::Neg;
  e.args.push_back(std::move(a));
  return e;
}
Expr make_binary(BinOp op, Expr a, Expr b) {
  Expr e;
  e.kind = ExprKind::Binary;
  e.bop = op;
  e.args.reserve(2);
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}
Expr make_compare(CmpOp op, Expr a, Expr b) {
  Expr e;
  e.kind = ExprKind::Compare;
  e.cmps.push_back(op);
  e.args.reserve(2);
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}
bool is_square(const Expr& e) {
  if (e.kind != ExprKind::Binary || e.bop != BinOp::Pow || e.args.size() != 2) return false;
  const Expr* b = &e.args[1];
  while (b->kind == ExprKind::Group && !b->args.empty()) b = &b->args[0];
  return (b->kind == ExprKind::IntLit && b->ival == 2) || (b->kind == ExprKind::FloatLit && b->fval == 2.0);
}

Expr make_group(Expr a) {
  Expr e;
  e.kind = ExprKind::Group;
  e.args.push_back(std::move(a));
  return e;
}

}  // namespace steptp::ir
