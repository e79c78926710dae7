#include "strategies/analysis/subexpr.hpp"

#include "ir/typing.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/subst.hpp"

namespace steptp::strategy::analysis {
namespace {

bool operator_node(const ir::Expr& e) {
  using K = ir::ExprKind;
  if (e.kind != K::Binary && e.kind != K::Call && e.kind != K::Neg) return false;
  if (!ir::is_float(e.ty)) return false;
  return ir::constant_class(e) == ir::ConstClass::None;
}

void walk(const ir::Expr& e, ExprPath& path, bool root, std::vector<SubexprNode>& out) {
  if (e.kind == ir::ExprKind::Ref) return;  // subscript entries are index expressions
  if (!root && operator_node(e)) out.push_back(SubexprNode{path, &e});
  const bool ite = e.kind == ir::ExprKind::Call && e.fn == ir::Func::IfThenElse;
  const bool keep_root = root && e.kind == ir::ExprKind::Group;  // (rhs) is still the whole right-hand side
  for (std::uint32_t k = 0; k < e.args.size(); ++k) {
    if (ite && k > 0) break;  // lazy branches
    path.push_back(k);
    walk(e.args[k], path, keep_root, out);
    path.pop_back();
  }
}

}  // namespace

std::vector<SubexprNode> materialisable_nodes(const ir::Stmt& typed) {
  std::vector<SubexprNode> out;
  ExprPath path{1};
  walk(typed.rhs, path, true, out);
  return out;
}

void replace_node(ir::Stmt& s, const ExprPath& path, const ir::Expr& to) {
  ir::Expr* cur = path.at(0) == 0 ? &s.lhs : &s.rhs;
  ir::Expr* parent = nullptr;
  for (std::size_t k = 1; k < path.size(); ++k) {
    parent = cur;
    cur = &cur->args.at(path[k]);
  }
  if (parent && parent->kind == ir::ExprKind::Group) *parent = to;
  else *cur = to;
}

int replace_all_equal(ir::Expr& e, const ir::Expr& from, const ir::Expr& to) {
  if (e == from || (e.kind == ir::ExprKind::Group && e.args[0] == from)) {
    e = to;
    return 1;
  }
  if (e.kind == ir::ExprKind::Ref) return 0;
  int n = 0;
  for (auto& c : e.args) n += replace_all_equal(c, from, to);
  return n;
}

ir::Nest materialise_nest(const ir::Expr& fref, const ir::Expr& def, const std::vector<ir::Loop>& site_loops,
                          std::map<std::string, std::string>* renamed) {
  auto hh = helper_header(site_loops);
  ir::Stmt st;
  st.lhs = fref;
  st.rhs = def;
  ir::Nest nest;
  nest.loops = hh.loops;
  nest.body.push_back(ir::Item{st});
  for (const auto& [from, to] : hh.renamed) rename_key(nest, from, to);
  nest.loops = hh.loops;
  if (renamed) *renamed = hh.renamed;
  return nest;
}

}  // namespace steptp::strategy::analysis
