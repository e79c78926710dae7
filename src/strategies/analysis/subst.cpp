#include "strategies/analysis/subst.hpp"

namespace steptp::strategy::analysis {

int substitute(ir::Expr& e, const KeyMap& m) {
  if (e.kind == ir::ExprKind::Var) {
    auto it = m.find(e.text);
    if (it != m.end()) {
      e = it->second;
      return 1;
    }
    return 0;
  }
  int n = 0;
  for (auto& c : e.args) n += substitute(c, m);
  return n;
}

int substitute(ir::Stmt& s, const KeyMap& m) { return substitute(s.lhs, m) + substitute(s.rhs, m); }

int substitute(ir::Nest& n, const KeyMap& m) {
  int c = 0;
  for (auto& it : n.body) c += it.is_stmt() ? substitute(it.stmt(), m) : substitute(it.nest(), m);
  return c;
}

namespace {
void rename_headers(ir::Nest& n, const std::string& from, const std::string& to) {
  for (auto& l : n.loops)
    if (l.var == from) l.var = to;
  for (auto& it : n.body)
    if (it.is_nest()) rename_headers(it.nest(), from, to);
}
}  // namespace

void rename_key(ir::Nest& n, const std::string& from, const std::string& to) {
  rename_headers(n, from, to);
  substitute(n, KeyMap{{from, ir::make_var(to)}});
}

ir::Expr split_index(const std::string& k, std::int64_t f1, const std::string& x) {
  return ir::make_binary(ir::BinOp::Add, ir::make_binary(ir::BinOp::Mul, ir::make_var(k), ir::make_int(f1)),
                         ir::make_var(x));
}

ir::Expr offset_index(const std::string& x, std::int64_t v) {
  if (v == 0) return ir::make_var(x);
  return ir::make_binary(ir::BinOp::Add, ir::make_var(x), ir::make_int(v));
}

namespace {
bool is_zero(const ir::Expr& e) { return e.kind == ir::ExprKind::IntLit && e.ival == 0; }
}  // namespace

int substitute_zero_fold(ir::Expr& e, const std::string& var) {
  if (e.kind == ir::ExprKind::Var) {
    if (e.text != var) return 0;
    e = ir::make_int(0);
    return 1;
  }
  int n = 0;
  for (auto& c : e.args) n += substitute_zero_fold(c, var);
  if (n == 0 || e.kind != ir::ExprKind::Binary) return n;
  ir::Expr& a = e.args[0];
  ir::Expr& b = e.args[1];
  switch (e.bop) {
    case ir::BinOp::Mul:
      if (is_zero(a) || is_zero(b)) e = ir::make_int(0);
      break;
    case ir::BinOp::Add:
      if (is_zero(a)) { ir::Expr t = std::move(b); e = std::move(t); }
      else if (is_zero(b)) { ir::Expr t = std::move(a); e = std::move(t); }
      break;
    case ir::BinOp::Sub:
      if (is_zero(b)) { ir::Expr t = std::move(a); e = std::move(t); }
      else if (is_zero(a)) { ir::Expr t = ir::make_neg(std::move(b)); e = std::move(t); }
      break;
    default:
      break;
  }
  return n;
}

}  // namespace steptp::strategy::analysis
