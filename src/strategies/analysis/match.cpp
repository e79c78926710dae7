#include "strategies/analysis/match.hpp"

#include "ir/printer.hpp"

namespace steptp::strategy::analysis {

bool KeyRenaming::bind(const std::string& a_key, const std::string& b_key) {
  auto f = to_first.find(b_key);
  auto s = to_second.find(a_key);
  if (f != to_first.end() || s != to_second.end())
    return f != to_first.end() && s != to_second.end() && f->second == a_key && s->second == b_key;
  to_first.emplace(b_key, a_key);
  to_second.emplace(a_key, b_key);
  return true;
}

namespace {

// Same node, children not compared; Var and Ref handled by the callers.
bool same_node(const ir::Expr& a, const ir::Expr& b) {
  if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ir::ExprKind::IntLit: return a.ival == b.ival && a.text == b.text;
    case ir::ExprKind::FloatLit: return a.fval == b.fval && a.text == b.text;
    case ir::ExprKind::Ref: return a.text == b.text && a.dtype == b.dtype && a.scope == b.scope;
    case ir::ExprKind::Call: return a.fn == b.fn;
    case ir::ExprKind::Binary: return a.bop == b.bop;
    case ir::ExprKind::Compare: return a.cmps == b.cmps;
    default: return true;
  }
}

bool skeleton_rec(const ir::Expr& a, const ir::Expr& b, std::vector<std::pair<const ir::Expr*, const ir::Expr*>>* s) {
  if (a.is_ref() || b.is_ref()) {
    if (!(a.is_ref() && b.is_ref())) return false;
    if (s) s->emplace_back(&a, &b);
    return true;
  }
  if (!same_node(a, b)) return false;
  if (a.kind == ir::ExprKind::Var && a.text != b.text) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!skeleton_rec(a.args[i], b.args[i], s)) return false;
  return true;
}

ir::Expr slotted(const ir::Expr& e, int& next) {
  if (e.is_ref()) return ir::make_var("$" + std::to_string(next++));
  ir::Expr c = e;
  for (auto& a : c.args) a = slotted(a, next);
  return c;
}

}  // namespace

bool equal_up_to_keys(const ir::Expr& a, const ir::Expr& b, KeyRenaming& r, const KeyCompatible& compatible) {
  if (a.kind == ir::ExprKind::Var || b.kind == ir::ExprKind::Var) {
    if (a.kind != b.kind) return false;
    const bool known = r.to_first.count(b.text) || r.to_second.count(a.text);
    if (!known && compatible && !compatible(a.text, b.text)) return false;
    return r.bind(a.text, b.text);
  }
  if (!same_node(a, b)) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!equal_up_to_keys(a.args[i], b.args[i], r, compatible)) return false;
  return true;
}

bool same_skeleton(const ir::Expr& a, const ir::Expr& b,
                   std::vector<std::pair<const ir::Expr*, const ir::Expr*>>* slots) {
  std::vector<std::pair<const ir::Expr*, const ir::Expr*>> tmp;
  if (!skeleton_rec(a, b, slots ? &tmp : nullptr)) return false;
  if (slots) *slots = std::move(tmp);
  return true;
}

std::string print_skeleton(const ir::Expr& e) {
  int next = 0;
  return ir::print_expr(slotted(e, next));
}

}  // namespace steptp::strategy::analysis
