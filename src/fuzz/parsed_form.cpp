// Parsed and synthesized forms of LEIR expressions: see parsed_form.hpp.
#include "fuzz/parsed_form.hpp"

#include <cmath>
#include <string>

#include "ir/printer.hpp"

namespace steptp::fuzz {
namespace {

using namespace ir;

int prec(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Binary: return binop_precedence(e.bop);
    case ExprKind::Compare: return 3;
    case ExprKind::Neg: return 6;
    default: return 8;
  }
}

Expr grouped(Expr e, bool need) { return need ? make_group(std::move(e)) : e; }

void parsed_stmt(Stmt& s) {
  s.lhs = to_parsed_form(s.lhs);
  s.rhs = to_parsed_form(s.rhs);
}
void parsed_nest(Nest& n) {
  for (auto& it : n.body) {
    if (it.is_stmt()) parsed_stmt(it.stmt());
    else parsed_nest(it.nest());
  }
}
void synth_nest(Nest& n) {
  for (auto& it : n.body) {
    if (it.is_stmt()) {
      it.stmt().lhs = to_synthesized_form(it.stmt().lhs);
      it.stmt().rhs = to_synthesized_form(it.stmt().rhs);
    } else {
      synth_nest(it.nest());
    }
  }
}

}  // namespace

Expr to_parsed_form(const Expr& in) {
  Expr e = in;
  for (auto& c : e.args) c = to_parsed_form(c);
  switch (e.kind) {
    case ExprKind::IntLit:
      if (e.text.empty() && e.ival < 0) return make_neg(to_parsed_form(make_int(-e.ival)));
      if (e.text.empty()) e.text = std::to_string(e.ival);
      break;
    case ExprKind::FloatLit:
      if (e.text.empty() && std::signbit(e.fval)) return make_neg(to_parsed_form(make_float(-e.fval)));
      if (e.text.empty()) e.text = python_float_repr(e.fval);
      break;
    case ExprKind::Neg: e.args[0] = grouped(std::move(e.args[0]), prec(e.args[0]) < 6); break;
    case ExprKind::Compare:
      for (auto& c : e.args) c = grouped(std::move(c), prec(c) <= 3);
      break;
    case ExprKind::Binary: {
      const int p = binop_precedence(e.bop);
      const bool pow = e.bop == BinOp::Pow;
      e.args[0] = grouped(std::move(e.args[0]), pow ? prec(e.args[0]) < 8 : prec(e.args[0]) < p);
      e.args[1] = grouped(std::move(e.args[1]), pow ? prec(e.args[1]) < 6 : prec(e.args[1]) <= p);
      break;
    }
    default: break;
  }
  return e;
}

void to_parsed_form(Program& p) {
  for (auto& n : p.nests) parsed_nest(n);
}

Expr to_synthesized_form(const Expr& in) {
  if (in.kind == ExprKind::Group) return to_synthesized_form(in.args[0]);
  Expr e = in;
  for (auto& c : e.args) c = to_synthesized_form(c);
  if (e.kind == ExprKind::IntLit || e.kind == ExprKind::FloatLit) e.text.clear();
  return e;
}

void to_synthesized_form(Program& p) {
  for (auto& n : p.nests) synth_nest(n);
}

}  // namespace steptp::fuzz
