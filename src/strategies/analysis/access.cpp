#include "strategies/analysis/access.hpp"

#include <set>

#include "ir/ranges.hpp"

namespace steptp::strategy::analysis {
namespace {
void reads_rec(const ir::Expr& e, bool lazy, bool gather, std::vector<Access>& out) {
  if (e.kind == ir::ExprKind::Ref) {
    out.push_back(Access{&e, false, lazy, gather});
    for (const auto& c : e.args) reads_rec(c, lazy, true, out);
    return;
  }
  if (e.kind == ir::ExprKind::Call && e.fn == ir::Func::IfThenElse) {
    reads_rec(e.args[0], lazy, gather, out);
    reads_rec(e.args[1], true, gather, out);
    reads_rec(e.args[2], true, gather, out);
    return;
  }
  for (const auto& c : e.args) reads_rec(c, lazy, gather, out);
}
void nest_buffers_rec(const ir::Nest& n, NestBuffers& b) {
  for (const auto& it : n.body) {
    if (it.is_nest()) {
      nest_buffers_rec(it.nest(), b);
      continue;
    }
    for (const auto& a : stmt_accesses(it.stmt())) (a.write ? b.written : b.read).insert(a.buffer());
  }
}
}  // namespace

std::vector<Access> stmt_accesses(const ir::Stmt& s) {
  std::vector<Access> out;
  out.push_back(Access{&s.lhs, true, false, false});
  for (const auto& c : s.lhs.args) reads_rec(c, false, true, out);
  reads_rec(s.rhs, false, false, out);
  return out;
}

NestBuffers nest_buffers(const ir::Nest& n) {
  NestBuffers b;
  nest_buffers_rec(n, b);
  return b;
}

bool has_gather(const ir::Expr& ref) {
  bool g = false;
  for (const auto& c : ref.args)
    ir::visit_expr(c, [&](const ir::Expr& x) { g = g || x.kind == ir::ExprKind::Ref; });
  return g;
}

bool full_header_subscript(const ir::Expr& ref, const std::vector<ir::Loop>& header) {
  std::set<std::string> keys;
  for (const auto& e : ref.args)
    if (e.kind != ir::ExprKind::Var || !keys.insert(e.text).second) return false;
  if (keys.size() != header.size()) return false;
  for (const auto& l : header)
    if (!keys.count(l.var)) return false;
  return true;
}

bool refs_may_overlap(const ir::Expr& a, const std::vector<const ir::Loop*>& la, const ir::Expr& b,
                      const std::vector<const ir::Loop*>& lb) {
  if (a.args.size() != b.args.size()) return true;
  const ir::LoopBox ba = ir::make_loop_box(la), bb = ir::make_loop_box(lb);
  for (std::size_t d = 0; d < a.args.size(); ++d) {
    const ir::IndexRange ra = ir::index_range(a.args[d], ba), rb = ir::index_range(b.args[d], bb);
    if (ra.exact() && rb.exact() && (ra.hi < rb.lo || rb.hi < ra.lo)) return false;
  }
  return true;
}

}  // namespace steptp::strategy::analysis
