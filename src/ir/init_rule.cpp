// LEIR.md §8.4 accumulator initialisation (rules 1-5).
#include "ir/init_rule.hpp"

namespace steptp::ir {

namespace {
EdgeAtom edge_atom(const Expr& e, bool leading) {
  EdgeAtom r;
  const Expr* n = &e;
  for (;;) {
    if (n->kind == ExprKind::Binary && n->args.size() == 2) {
      r.via = EdgeAtom::Via::BinOp;
      r.op = n->bop;
      n = leading ? &n->args[0] : &n->args[1];
    } else if (n->kind == ExprKind::Compare && !n->args.empty()) {
      r.via = EdgeAtom::Via::Compare;
      n = leading ? &n->args.front() : &n->args.back();
    } else {
      break;
    }
  }
  r.atom = n;
  return r;
}

const Expr* first_occ(const Expr& e, std::string_view name) {
  if (e.kind == ExprKind::Ref && e.text == name) return &e;
  for (const auto& c : e.args)
    if (const Expr* r = first_occ(c, name)) return r;
  return nullptr;
}
}  // namespace

EdgeAtom leading_atom(const Expr& e) { return edge_atom(e, true); }
EdgeAtom trailing_atom(const Expr& e) { return edge_atom(e, false); }
const Expr* first_occurrence(const Expr& e, std::string_view name) { return first_occ(e, name); }

bool mentions_var(const Expr& e, std::string_view var) {
  if (e.kind == ExprKind::Var && e.text == var) return true;
  for (const auto& c : e.args)
    if (mentions_var(c, var)) return true;
  return false;
}

InitKind statement_initialiser(const Stmt& s, bool updates_existing) {
  const Expr* r = first_occ(s.rhs, s.lhs.text);
  if (!r || updates_existing) return InitKind::None;  // rules 1 and 2
  InitKind kind = InitKind::None;
  const EdgeAtom lead = leading_atom(s.rhs);
  const EdgeAtom trail = trailing_atom(s.rhs);
  auto is_r = [&](const Expr* a) { return a->kind == ExprKind::Ref && *a == *r; };
  if (is_r(lead.atom) && lead.via == EdgeAtom::Via::BinOp && (lead.op == BinOp::Add || lead.op == BinOp::Sub)) {
    kind = InitKind::Zero;
  } else if (is_r(lead.atom) && lead.via == EdgeAtom::Via::BinOp && lead.op == BinOp::Mul) {
    kind = InitKind::One;
  } else if (is_r(trail.atom) && trail.via == EdgeAtom::Via::BinOp &&
             (trail.op == BinOp::Div || trail.op == BinOp::FloorDiv || trail.op == BinOp::Mod)) {
    kind = InitKind::One;
  } else if (lead.atom->kind == ExprKind::Call && (lead.atom->fn == Func::Max || lead.atom->fn == Func::Min) &&
             !lead.atom->args.empty() && is_r(leading_atom(lead.atom->args[0]).atom)) {
    kind = lead.atom->fn == Func::Max ? InitKind::NegInf : InitKind::PosInf;
  }
  if (kind == InitKind::None) return kind;
  if (r->args != s.lhs.args) return InitKind::None;  // rule 4: r's subscript must equal sL
  return kind;
}

std::vector<std::string> reduction_vars(const Stmt& s, const std::vector<const Loop*>& loops) {
  std::vector<std::string> out;
  for (const Loop* l : loops) {
    bool dup = false;
    for (const auto& v : out) dup = dup || v == l->var;
    if (dup) continue;
    bool in_lhs = false;
    for (const auto& entry : s.lhs.args) in_lhs = in_lhs || mentions_var(entry, l->var);
    if (!in_lhs && mentions_var(s.rhs, l->var)) out.push_back(l->var);
  }
  return out;
}

}  // namespace steptp::ir
