#include "lower/eager_select.hpp"

#include "ir/ranges.hpp"

namespace steptp::lower {
namespace {

/// Every subscript entry of `ref` is gather-free with an exact range inside the buffer's extent over `box`.
bool read_in_bounds(const ir::Expr& ref, const ir::LoopBox& box, const Prepared& p) {
  const auto& shape = p.buffer(ref.text).shape;
  if (shape.size() != ref.args.size()) return false;
  for (std::size_t d = 0; d < ref.args.size(); ++d) {
    if (contains_ref(ref.args[d])) return false;
    const ir::IndexRange r = ir::index_range(ref.args[d], box);
    if (!r.exact() || r.lo < 0 || r.hi >= shape[d]) return false;
  }
  return true;
}

/// Evaluating `e` cannot fault: its reads are in bounds and it divides no integers with `/`.
bool safe_to_evaluate(const ir::Expr& e, const ir::LoopBox& box, const Prepared& p) {
  bool ok = true;
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Ref && !read_in_bounds(x, box, p)) ok = false;
    // integer `/` is C's (undefined for a zero divisor); `//` and `%` go through leir::floordiv/floormod (0)
    if (x.kind == ir::ExprKind::Binary && x.bop == ir::BinOp::Div && !ir::is_float(x.ty)) ok = false;
  });
  return ok;
}

}  // namespace

EagerSelects find_eager_selects(const Prepared& p) {
  EagerSelects r;
  ir::for_each_stmt(p.task.program, [&](const ir::Stmt& s, const std::vector<const ir::Loop*>& loops, std::size_t) {
    const ir::LoopBox box = ir::make_loop_box(loops);
    ir::visit_expr(s.rhs, [&](const ir::Expr& e) {
      if (e.kind != ir::ExprKind::Call || e.fn != ir::Func::IfThenElse || e.args.size() != 3) return;
      if (!safe_to_evaluate(e.args[1], box, p) || !safe_to_evaluate(e.args[2], box, p)) return;
      r.selects.insert(&e);
      ir::visit_expr(e.args[0], [&](const ir::Expr& c) {
        if (c.kind == ir::ExprKind::Ref && p.buffer(c.text).dtype == ir::DType::Bool) r.byte_reads.insert(&c);
      });
    });
  });
  return r;
}

}  // namespace steptp::lower
