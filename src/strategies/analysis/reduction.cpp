#include "strategies/analysis/reduction.hpp"

#include "ir/typing.hpp"
#include "ir/validate.hpp"

namespace steptp::strategy::analysis {

std::string_view reduce_op_text(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return "+";
    case ReduceOp::Sub: return "-";
    case ReduceOp::Mul: return "*";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "?";
}

namespace {
bool mentions_buffer(const ir::Expr& e, const std::string& name) {
  bool f = false;
  ir::visit_expr(e, [&](const ir::Expr& x) { f = f || x.is_ref(name); });
  return f;
}

/// Can the steps of `X = max(X, e)` / `min` run in any order? Each step computes in P = promote(X, e) and stores
/// into X's dtype (LEIR.md §8.3); the steps commute only when that store is monotone: a float target, a float P
/// into an integer target (truncation), or an integer P whose range fits the target. An integer target narrower
/// than P wraps (u8: min(1, -1) stores 255, so min(min(1, 0), -1) = 255 but min(min(1, -1), 0) = 0), and a bool
/// target stores x != 0.
bool order_free_store(const ir::Stmt& s) {
  using ir::DType;
  const DType acc = s.lhs.dtype;
  if (ir::is_float(acc)) return true;
  ir::Stmt typed = s;
  ir::annotate_types(typed, acc, [](const ir::Expr& ref) { return ref.dtype; });
  const DType p = typed.rhs.ty;
  if (p == acc || p == DType::Bool) return true;
  if (acc == DType::Bool || p == DType::Invalid) return false;
  if (ir::is_float(p)) return true;
  const bool ps = ir::is_signed_int(p), as = ir::is_signed_int(acc);
  return ps == as ? ir::dtype_bits(p) <= ir::dtype_bits(acc) : (!ps && as && ir::dtype_bits(p) < ir::dtype_bits(acc));
}
}  // namespace

std::optional<Reduction> match_reduction(const ir::Stmt& s, const std::vector<const ir::Loop*>& loops) {
  const ir::Expr& r = s.rhs;
  Reduction red;
  const ir::Expr* first = nullptr;
  const ir::Expr* second = nullptr;
  if (r.kind == ir::ExprKind::Binary &&
      (r.bop == ir::BinOp::Add || r.bop == ir::BinOp::Sub || r.bop == ir::BinOp::Mul)) {
    red.op = r.bop == ir::BinOp::Add ? ReduceOp::Add : r.bop == ir::BinOp::Sub ? ReduceOp::Sub : ReduceOp::Mul;
  } else if (r.kind == ir::ExprKind::Call && (r.fn == ir::Func::Max || r.fn == ir::Func::Min)) {
    red.op = r.fn == ir::Func::Max ? ReduceOp::Max : ReduceOp::Min;
  } else {
    return std::nullopt;
  }
  first = &r.args[0];
  second = &r.args[1];
  if (!(*first == s.lhs)) return std::nullopt;
  if (mentions_buffer(*second, s.lhs.text)) return std::nullopt;
  if ((red.op == ReduceOp::Max || red.op == ReduceOp::Min) && !order_free_store(s)) return std::nullopt;
  red.acc = s.lhs.text;
  red.lhs = &s.lhs;
  red.acc_read = first;
  red.operand = second;
  for (const auto* l : loops) {
    if (ir::mentions_var(s.lhs, l->var)) red.spatial_keys.push_back(l->var);
    else if (ir::mentions_var(s.rhs, l->var)) red.reduction_keys.push_back(l->var);
    else red.unused_keys.push_back(l->var);
  }
  return red;
}

bool written_before(const ir::Program& p, const ir::Stmt* s, const std::string& buf) {
  bool found = false, before = false;
  ir::for_each_stmt(p, [&](const ir::Stmt& st, const auto&, std::size_t) {
    if (found) return;
    if (&st == s) {
      found = true;
      return;
    }
    if (st.lhs.text == buf) before = true;
  });
  return before;
}

std::optional<Reduction> match_reduction(const ir::Program& p, const StmtCtx& sc) {
  auto r = match_reduction(*sc.stmt, sc.loops);
  if (r) r->implicit_init = !written_before(p, sc.stmt, r->acc);
  return r;
}

bool is_prefix_form(const ir::Stmt& s) {
  bool other = false;
  ir::visit_expr(s.rhs, [&](const ir::Expr& x) {
    if (x.is_ref(s.lhs.text) && !(x == s.lhs)) other = true;
  });
  return other;
}

ir::Expr combine_partials(ReduceOp op, ir::Expr a, ir::Expr b) {
  switch (op) {
    case ReduceOp::Max: return ir::make_call(ir::Func::Max, {std::move(a), std::move(b)});
    case ReduceOp::Min: return ir::make_call(ir::Func::Min, {std::move(a), std::move(b)});
    case ReduceOp::Mul: return ir::make_binary(ir::BinOp::Mul, std::move(a), std::move(b));
    default: return ir::make_binary(ir::BinOp::Add, std::move(a), std::move(b));
  }
}

}  // namespace steptp::strategy::analysis
