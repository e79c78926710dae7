// Builders shared by the special strategies (see special_util.hpp).
#include "strategies/special/special_util.hpp"

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subst.hpp"

namespace steptp::strategy::special {

ir::Expr PrefixBuf::at(ir::Expr last) const {
  std::vector<ir::Expr> sub = s;
  sub.push_back(std::move(last));
  return ir::make_ref(name, dtype, scope, std::move(sub));
}

ir::Expr PrefixBuf::at_k() const { return at(ir::make_var(k)); }

ir::Expr PrefixBuf::prev(ir::Expr init) const {
  ir::Expr km1 = bin(ir::BinOp::Sub, ir::make_var(k), ir::make_int(1));
  ir::Expr cond = ir::make_compare(ir::CmpOp::Lt, km1, ir::make_int(0));
  return ir::make_call(ir::Func::IfThenElse, {std::move(cond), std::move(init), at(std::move(km1))});
}

ir::Expr neg_inf() { return ir::make_neg(ir::make_inf()); }

ir::Expr bin(ir::BinOp op, ir::Expr a, ir::Expr b) { return ir::make_binary(op, std::move(a), std::move(b)); }

ir::Stmt make_stmt(ir::Expr lhs, ir::Expr rhs) {
  ir::Stmt s;
  s.lhs = std::move(lhs);
  s.rhs = std::move(rhs);
  return s;
}

ir::Stmt prefix_max_stmt(const PrefixBuf& mp, const ir::Expr& y) {
  return make_stmt(mp.at_k(), ir::make_call(ir::Func::Max, {mp.prev(neg_inf()), y}));
}

ir::Expr neg_inf_cond(const PrefixBuf& mp, std::int64_t n) {
  return bin(ir::BinOp::And, ir::make_compare(ir::CmpOp::Lt, ir::make_var(mp.k), ir::make_int(n - 1)),
             ir::make_compare(ir::CmpOp::Eq, mp.at_k(), neg_inf()));
}

ir::Expr neg_inf_guard(const PrefixBuf& mp, std::int64_t n, ir::Expr e) {
  ir::Expr cond = neg_inf_cond(mp, n);
  return ir::make_call(ir::Func::IfThenElse, {std::move(cond), ir::make_int(0), std::move(e)});
}

ir::Stmt online_sum_stmt(const PrefixBuf& mp, const PrefixBuf& lp, const ir::Expr& y, std::int64_t n, bool guard) {
  ir::Expr rescale = ir::make_call(ir::Func::Exp, {bin(ir::BinOp::Sub, mp.prev(neg_inf()), mp.at_k())});
  ir::Expr term = ir::make_call(ir::Func::Exp, {bin(ir::BinOp::Sub, y, mp.at_k())});
  ir::Expr rhs = bin(ir::BinOp::Add, bin(ir::BinOp::Mul, lp.prev(ir::make_int(1)), std::move(rescale)), std::move(term));
  return make_stmt(lp.at_k(), guard ? neg_inf_guard(mp, n, std::move(rhs)) : std::move(rhs));
}

ir::Expr sum_ref_in_max_keys(const analysis::MaxSumPair& pr) {
  const ir::Expr& s = pr.sum_stmt->lhs;
  return ir::make_ref(s.text, s.dtype, s.scope, pr.max.stmt->lhs.args);
}

FusedSoftmax fused_softmax(const ir::Task& t, const analysis::MaxSumPair& pr, const std::string& mp_name,
                           const std::string& lp_name, ir::Scope scope) {
  FusedSoftmax f;
  const ir::Expr& m = pr.max.stmt->lhs;
  f.mp = PrefixBuf{mp_name, analysis::effective_dtype(t, m), scope, m.args, pr.max.k};
  f.lp = PrefixBuf{lp_name, analysis::effective_dtype(t, pr.sum_stmt->lhs), scope, m.args, pr.max.k};
  f.n = pr.max.n;
  f.guarded = analysis::may_be_neg_inf(t.program, pr.max.y());
  f.nest.loops = t.program.nests[pr.max.nest].loops;
  f.nest.body.push_back(ir::Item{prefix_max_stmt(f.mp, pr.max.y())});
  f.nest.body.push_back(ir::Item{online_sum_stmt(f.mp, f.lp, pr.max.y(), pr.max.n, f.guarded)});
  return f;
}

ir::Nest helper_nest(const std::vector<ir::Loop>& site_loops, std::vector<ir::Stmt> body) {
  std::vector<ir::Loop> used;
  for (const auto& l : site_loops) {
    bool u = false;
    for (const auto& s : body) u = u || ir::mentions_var(s.lhs, l.var) || ir::mentions_var(s.rhs, l.var);
    if (u) used.push_back(l);
  }
  auto hh = analysis::helper_header(used);
  ir::Nest n;
  n.loops = hh.loops;
  for (auto& s : body) n.body.push_back(ir::Item{std::move(s)});
  for (const auto& [from, to] : hh.renamed) analysis::rename_key(n, from, to);
  n.loops = hh.loops;
  return n;
}

void read_final_prefix(ir::Stmt& div, const analysis::MaxSumPair& pr, const FusedSoftmax& f) {
  const std::string& M = pr.max.acc();
  const std::string S = pr.sum();
  auto last = [&](const PrefixBuf& b, const ir::Expr& read) {
    PrefixBuf c = b;
    c.s = read.args;
    return c.at(ir::make_int(pr.max.n - 1));
  };
  ir::visit_expr_mut(div.rhs, [&](ir::Expr& x) {
    if (x.is_ref(M)) x = last(f.mp, x);
    else if (x.is_ref(S)) x = last(f.lp, x);
  });
}

void guard_fact(Facts& fa, const FusedSoftmax& f) {
  if (!f.guarded) return;
  fa.condition("domain", ir::print_expr(neg_inf_cond(f.mp, f.n)), "guarded",
               "the scores may be -inf (a masked row): while every score so far is -inf the unguarded rescaling "
               "computes -inf-(-inf)=NaN; the last step stays unguarded, so a fully masked row is NaN as before");
}

std::int64_t nest_elements(const ir::Nest& nest) {
  std::int64_t e = 1;
  for (const auto& l : nest.loops) e *= l.extent;
  return e;
}

std::int64_t prefix_cost(Facts& fa, const ir::Nest& nest, const FusedSoftmax& f) {
  const std::int64_t elems = nest_elements(nest);
  fa.cost("elements_added", 2 * elems);
  fa.cost("bytes_added", elems * (ir::dtype_bytes(f.mp.dtype) + ir::dtype_bytes(f.lp.dtype)));
  return elems;
}

}  // namespace steptp::strategy::special
