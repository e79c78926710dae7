// Numerical conditioning of a program (see conditioning.hpp).
#include "strategies/analysis/conditioning.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "ir/ast.hpp"
#include "strategies/analysis/locate.hpp"

namespace steptp::strategy::analysis {
namespace {

/// Buffers read by `e` (subscripts included).
void reads(const ir::Expr& e, std::set<std::string>& out) {
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.is_ref()) out.insert(x.text);
  });
}

bool any_of_nodes(const ir::Expr& e, const std::function<bool(const ir::Expr&)>& f) {
  bool hit = false;
  ir::visit_expr(e, [&](const ir::Expr& x) { hit = hit || f(x); });
  return hit;
}

}  // namespace

std::set<std::string> source_buffers(const ir::Task& t, const std::string& buffer) {
  std::map<std::string, std::set<std::string>> deps;  // buffer -> buffers its writers read
  for (const auto& sc : collect_stmts(t.program)) {
    auto& d = deps[sc.stmt->lhs.text];
    reads(sc.stmt->rhs, d);
    for (const auto& idx : sc.stmt->lhs.args) reads(idx, d);
  }
  std::set<std::string> known_inputs;
  for (const auto& k : t.known)
    if (k.role != ir::Role::Output) known_inputs.insert(k.name);
  std::set<std::string> seen, out;
  std::vector<std::string> todo{buffer};
  while (!todo.empty()) {
    const std::string b = todo.back();
    todo.pop_back();
    if (!seen.insert(b).second) continue;
    if (known_inputs.count(b)) out.insert(b);
    const auto it = deps.find(b);
    if (it != deps.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return out;
}

bool divides_by_root(const ir::Task& t) {
  const auto stmts = collect_stmts(t.program);
  std::set<std::string> rooted;  // buffers computed with a sqrt of data
  auto reads_data = [](const ir::Expr& e) { return any_of_nodes(e, [](const ir::Expr& x) { return x.is_ref(); }); };
  auto has_root = [&](const ir::Expr& e) {
    return any_of_nodes(e, [&](const ir::Expr& x) {
      return (x.kind == ir::ExprKind::Call && x.fn == ir::Func::Sqrt && reads_data(x.args[0])) ||
             (x.is_ref() && rooted.count(x.text));
    });
  };
  // Two program-order passes: the second sees a writer that follows a read (a loop-carried value).
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& sc : stmts)
      if (has_root(sc.stmt->rhs)) rooted.insert(sc.stmt->lhs.text);
  auto negative_power = [](const ir::Expr& x) {
    const ir::Expr& k = x.args[1];
    return (k.kind == ir::ExprKind::IntLit && k.ival < 0) || (k.kind == ir::ExprKind::FloatLit && k.fval < 0) ||
           k.kind == ir::ExprKind::Neg;
  };
  for (const auto& sc : stmts) {
    const bool hit = any_of_nodes(sc.stmt->rhs, [&](const ir::Expr& x) {
      if (x.kind != ir::ExprKind::Binary) return false;
      if (x.bop == ir::BinOp::Div) return has_root(x.args[1]);
      return x.bop == ir::BinOp::Pow && negative_power(x) && has_root(x.args[0]);
    });
    if (hit) return true;
  }
  return false;
}

bool statistic_of_one_input(const ir::Task& t, const ir::Expr& operand, const std::vector<std::string>& reduction_keys) {
  auto uses_reduction_key = [&](const ir::Expr& ref) {
    for (const auto& idx : ref.args)
      if (any_of_nodes(idx, [&](const ir::Expr& x) {
            return x.kind == ir::ExprKind::Var &&
                   std::find(reduction_keys.begin(), reduction_keys.end(), x.text) != reduction_keys.end();
          }))
        return true;
    return false;
  };
  std::set<std::string> reduced;  // buffers read with a reduction key
  ir::visit_expr(operand, [&](const ir::Expr& x) {
    if (x.is_ref() && uses_reduction_key(x)) reduced.insert(x.text);
  });
  if (reduced.size() != 1) return false;
  const ir::KnownBuffer* kb = t.find_known(*reduced.begin());
  return kb && kb->role != ir::Role::Output;
}

}  // namespace steptp::strategy::analysis
