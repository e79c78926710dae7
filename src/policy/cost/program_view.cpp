#include "policy/cost/program_view.hpp"

#include <algorithm>

#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"

namespace steptp::policy::cost {
namespace {

using ir::Expr;
using ir::ExprKind;

struct Ops {
  std::int64_t flops = 0;
  double work = 0;
  int expensive = 0;
};

/// DATASET.md §6.1 flop count (subscripts and if_then_else conditions excluded), plus a weighted work count.
void count_ops(const Expr& e, Ops& o) {
  switch (e.kind) {
    case ExprKind::Ref: return;
    case ExprKind::Compare: return;
    case ExprKind::Binary:
      if (e.bop == ir::BinOp::Add || e.bop == ir::BinOp::Sub || e.bop == ir::BinOp::Mul) {
        o.flops += 1;
        o.work += 1;
      } else if (e.bop == ir::BinOp::Div) {
        o.flops += 1;
        o.work += 4;
        o.expensive += 1;
      } else if (e.bop == ir::BinOp::Pow) {
        o.work += 16;
        o.expensive += 1;
      } else if (e.bop == ir::BinOp::FloorDiv || e.bop == ir::BinOp::Mod) {
        o.work += 4;
      }
      break;
    case ExprKind::Call:
      if (e.fn == ir::Func::IfThenElse) {
        count_ops(e.args[1], o);
        count_ops(e.args[2], o);
        return;
      }
      o.flops += 1;
      if (e.fn == ir::Func::Exp || e.fn == ir::Func::Log || e.fn == ir::Func::Erf) {
        o.work += 16;
        o.expensive += 1;
      } else if (e.fn == ir::Func::Sqrt) {
        o.work += 4;
        o.expensive += 1;
      } else {
        o.work += 1;
      }
      break;
    default: break;
  }
  for (const auto& c : e.args) count_ops(c, o);
}

struct Walker {
  ProgramView& v;
  std::vector<const ir::Loop*> loops;
  std::vector<int> parallel_ok;  // per loop in `loops`: would the C lowering parallelise it (ignoring nesting)?

  void walk(const ir::Nest& n, std::size_t top, bool top_header) {
    bool first_b = true;
    for (const auto& l : n.loops) {
      bool ok = false;
      if (l.extent > 1 && !ir::is_reducing_loop(n, l.var)) {
        if (l.kind == ir::LoopKind::P) ok = true;
        if (l.kind == ir::LoopKind::B && top_header && first_b) ok = true;
      }
      if (l.kind == ir::LoopKind::B) first_b = false;
      loops.push_back(&l);
      parallel_ok.push_back(ok);
    }
    for (const auto& it : n.body) {
      if (it.is_nest()) {
        walk(it.nest(), top, false);
        continue;
      }
      StmtView s;
      s.stmt = &it.stmt();
      s.loops = loops;
      s.nest = top;
      s.own_headers = n.loops.size();
      s.alone = n.body.size() == 1;
      for (auto* l : loops) s.instances *= l->extent;
      for (std::size_t i = 0; i < parallel_ok.size(); ++i)
        if (parallel_ok[i]) {
          s.parallel_loop = static_cast<int>(i);
          break;
        }
      Ops o;
      count_ops(s.stmt->rhs, o);
      s.flops = o.flops;
      s.work = o.work;
      s.expensive_ops = o.expensive;
      if (const ir::BufferInfo* b = v.analysis.find(s.stmt->lhs.text)) s.dtype = b->dtype;
      for (const auto& a : strategy::analysis::stmt_accesses(*s.stmt)) add_access(s, a);
      v.stmts.push_back(std::move(s));
    }
    loops.resize(loops.size() - n.loops.size());
    parallel_ok.resize(loops.size());
  }

  void add_access(StmtView& s, const strategy::analysis::Access& a) {
    const Expr& ref = *a.ref;
    std::string key = ref.text + ir::print_subscript(ref);
    for (auto& have : s.accesses)
      if (have.key == key) {
        have.write = have.write || a.write;
        have.read = have.read || !a.write;
        return;
      }
    AccessView av;
    av.ref = &ref;
    av.buffer = ref.text;
    av.key = std::move(key);
    av.write = a.write;
    av.read = !a.write;
    av.scope = ref.scope;
    if (const ir::BufferInfo* b = v.analysis.find(ref.text)) {
      av.elem_bytes = ir::dtype_bytes(b->dtype);
      av.shape = b->shape;
    }
    av.gather = strategy::analysis::has_gather(ref);
    for (const auto& e : ref.args) av.dims.push_back(av.gather ? std::nullopt : strategy::analysis::linear_form(e));
    s.accesses.push_back(std::move(av));
  }
};

}  // namespace

std::optional<std::int64_t> AccessView::stride(const std::string& var) const {
  std::int64_t total = 0, mult = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    const auto& lin = dims[d];
    if (lin) total += lin->at(var) * mult;
    else if (ir::mentions_var(ref->args[d], var)) return std::nullopt;  // a non-affine entry that moves with var
    mult *= d < shape.size() ? shape[d] : 1;
  }
  return total;
}

int nonunit_inner_accesses(const StmtView& s) {
  if (s.loops.empty()) return 0;
  int n = 0;
  for (const auto& a : s.accesses) {
    auto st = a.stride(s.loops.back()->var);
    if (!st || (*st != 0 && *st != 1 && *st != -1)) ++n;
  }
  return n;
}

bool inner_unit_or_invariant(const StmtView& s) { return nonunit_inner_accesses(s) == 0; }

namespace {
int lanes_of(const StmtView& s, int vector_lanes_f32) {
  return std::max(1, vector_lanes_f32 * 4 / std::max(4, ir::dtype_bytes(s.dtype)));
}
}  // namespace

int outer_vector_width(const StmtView& s, int vector_lanes_f32) {
  const std::size_t n = s.loops.size();
  if (!s.alone || n < 2 || s.accesses.empty()) return 1;
  const AccessView& w = s.accesses.front();
  if (!w.write || !w.read || w.gather) return 1;
  std::size_t r = n;  // the reduction loops inside o are loops [r, n)
  double reduced = 1;
  for (; r > 0; --r) {
    const auto st = w.stride(s.loops[r - 1]->var);
    if (!st || *st != 0) break;
    reduced *= static_cast<double>(s.loops[r - 1]->extent);
  }
  if (r == n || r == 0 || n - r + 1 > s.own_headers || (n - r > 1 && reduced > 16)) return 1;
  const ir::Loop& o = *s.loops[r - 1];
  const auto wo = w.stride(o.var);
  if (o.kind == ir::LoopKind::U || !wo || *wo != 1) return 1;
  for (const auto& a : s.accesses) {
    const auto st = a.gather ? std::nullopt : a.stride(o.var);
    if (!st || (*st != 0 && *st != 1)) return 1;
  }
  return static_cast<int>(std::min<std::int64_t>(lanes_of(s, vector_lanes_f32), o.extent));
}

int vector_width(const StmtView& s, int vector_lanes_f32) {
  if (s.loops.empty() || s.accesses.empty()) return 1;
  const ir::Loop& in = *s.loops.back();
  auto write_stride = s.accesses.front().stride(in.var);
  if (!write_stride) return 1;
  if (*write_stride == 0) return outer_vector_width(s, vector_lanes_f32);  // no reassociation without -ffast-math
  bool ok = inner_unit_or_invariant(s);
  if (!ok && in.kind == ir::LoopKind::V) {
    ok = true;
    for (const auto& a : s.accesses) ok = ok && !a.gather && a.stride(in.var).has_value();
  }
  if (!ok) return 1;
  return static_cast<int>(std::min<std::int64_t>(lanes_of(s, vector_lanes_f32), in.extent));
}

ProgramView::ProgramView(const ir::Task& t) : task(t) {
  analysis = ir::validate_or_throw(task);
  nests = task.program.nests.size();
  Walker w{*this, {}, {}};
  for (std::size_t i = 0; i < nests; ++i) w.walk(task.program.nests[i], i, true);
}

}  // namespace steptp::policy::cost
