#include "fuzz/mutate.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "base/rng.hpp"
#include "fuzz/ast_edit.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::fuzz {
namespace {

using namespace ir;

bool is_read(const Expr& e, const ExprSite& s) { return e.kind == ExprKind::Ref && !s.in_lhs; }
bool is_value_literal(const Expr& e, const ExprSite& s) {
  return (e.kind == ExprKind::IntLit || e.kind == ExprKind::FloatLit) && !s.in_subscript;
}
const Expr& strip_group(const Expr& e) { return e.kind == ExprKind::Group ? strip_group(e.args[0]) : e; }
bool is_swappable(const Expr& e, const ExprSite&) {
  if (e.args.size() != 2 || strip_group(e.args[0]) == strip_group(e.args[1])) return false;
  if (e.kind == ExprKind::Binary)
    return e.bop == BinOp::Sub || e.bop == BinOp::Div || e.bop == BinOp::FloorDiv || e.bop == BinOp::Mod ||
           e.bop == BinOp::Pow;
  return e.kind == ExprKind::Compare && e.cmps[0] != CmpOp::Eq && e.cmps[0] != CmpOp::Ne;
}

std::vector<const Expr*> collect(const Program& p, const ExprPred& pred) {
  std::vector<const Expr*> out;
  count_exprs(p, [&](const Expr& e, const ExprSite& s) {
    if (pred(e, s)) out.push_back(&e);
    return false;
  });
  return out;
}

Expr literal_like(DType t, double v) { return is_float(t) ? make_float(v) : make_int(std::int64_t(v)); }

/// The edit of site `k` of kind `kind` applied to a copy of `t`, with a description; nullopt when k is past the end.
std::optional<Mutant> apply_site(const Task& t, MutationKind kind, std::size_t k) {
  Mutant m{t, ""};
  Program& p = m.task.program;
  switch (kind) {
    case MutationKind::OffByOne: {
      // Site k: (read r, entry d, +1 or -1), in read order.
      auto reads = collect(t.program, is_read);
      std::size_t i = 0;
      for (std::size_t r = 0; r < reads.size(); ++r) {
        for (std::size_t d = 0; d < reads[r]->args.size(); ++d) {
          for (int delta : {1, -1}) {
            if (i++ != k) continue;
            edit_expr(p, is_read, r, [&](Expr& e) {
              e.args[d] = make_binary(delta > 0 ? BinOp::Add : BinOp::Sub, make_group(e.args[d]), make_int(1));
            });
            m.site = print_expr(*reads[r]) + " entry " + std::to_string(d) + (delta > 0 ? " +1" : " -1");
            return m;
          }
        }
      }
      return std::nullopt;
    }
    case MutationKind::SwapOperands:
      if (!edit_expr(p, is_swappable, k, [&](Expr& e) {
            m.site = print_expr(e);
            std::swap(e.args[0], e.args[1]);
          }))
        return std::nullopt;
      return m;
    case MutationKind::ChangeLiteral:
      if (!edit_expr(p, is_value_literal, k, [&](Expr& e) {
            m.site = print_expr(e);
            if (e.kind == ExprKind::IntLit) e = make_int(e.ival + 1);
            else e = make_float(e.fval + 1.0);
          }))
        return std::nullopt;
      return m;
    case MutationKind::ShortenLoop: {
      std::size_t i = 0;
      for (std::size_t l = 0; l < count_loops(p); ++l) {
        Loop* lp = nth_loop(p, l);
        if (lp->extent < 2 || i++ != k) continue;
        m.site = print_loop(*lp);
        --lp->extent;
        return m;
      }
      return std::nullopt;
    }
    case MutationKind::RemoveStmt: {
      const Stmt* s = nth_stmt(t.program, k);
      if (!s) return std::nullopt;
      m.site = print_stmt(*s);
      remove_stmt(p, k);
      return m;
    }
    case MutationKind::ZeroOutput: {
      std::size_t i = 0;
      for (std::size_t j = 0; j < count_stmts(p); ++j) {
        Stmt* s = nth_stmt_mut(p, j);
        const KnownBuffer* kb = t.find_known(s->lhs.text);
        if (!kb || kb->role != Role::Output || i++ != k) continue;
        m.site = print_stmt(*s);
        s->rhs = make_int(0);
        return m;
      }
      return std::nullopt;
    }
    case MutationKind::DropInit: {
      Task annotated = t;
      Analysis a = analyze(annotated);
      if (!a.ok()) return std::nullopt;
      std::size_t i = 0;
      for (std::size_t j = 0; j < count_stmts(annotated.program); ++j) {
        std::vector<Loop> loops;
        std::size_t top = 0;
        const Stmt* s = nth_stmt(annotated.program, j, &loops, &top);
        const BufferInfo* b = a.find(s->lhs.text);
        if (s->init == InitKind::None || !b || b->scope != Scope::Global || b->dtype == DType::Bool) continue;
        if (i++ != k) continue;
        double v = 1;
        if (s->init == InitKind::One) v = 2;
        if (s->init == InitKind::NegInf) v = 100;
        if (s->init == InitKind::PosInf) v = is_unsigned_int(b->dtype) ? 0 : -100;
        Nest n;
        for (const auto& l : loops) {
          if (!mentions_var(s->lhs, l.var)) continue;
          Loop c = l;
          if (c.kind != LoopKind::B) c.kind = LoopKind::L;
          n.loops.push_back(c);
        }
        if (n.loops.empty()) n.loops.push_back(Loop{LoopKind::L, 1, "a", 0});
        Stmt init;
        init.lhs = s->lhs;
        init.rhs = literal_like(b->dtype, v);
        m.site = print_stmt(*s) + " starts at " + print_expr(init.rhs);
        n.body.push_back(Item{std::move(init)});
        p.nests.insert(p.nests.begin() + std::ptrdiff_t(top), std::move(n));
        return m;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::size_t site_count(const Task& t, MutationKind kind) {
  const Program& p = t.program;
  switch (kind) {
    case MutationKind::OffByOne: {
      std::size_t n = 0;
      for (const Expr* r : collect(p, is_read)) n += 2 * r->args.size();
      return n;
    }
    case MutationKind::SwapOperands: return count_exprs(p, is_swappable);
    case MutationKind::ChangeLiteral: return count_exprs(p, is_value_literal);
    default: break;
  }
  // The other kinds stop at the first index past their last site; an upper bound is enough.
  return count_stmts(p) + count_loops(p);
}

}  // namespace

std::string_view mutation_name(MutationKind k) {
  switch (k) {
    case MutationKind::OffByOne: return "off_by_one";
    case MutationKind::SwapOperands: return "swap_operands";
    case MutationKind::DropInit: return "drop_init";
    case MutationKind::ChangeLiteral: return "change_literal";
    case MutationKind::ShortenLoop: return "shorten_loop";
    case MutationKind::RemoveStmt: return "remove_stmt";
    case MutationKind::ZeroOutput: return "zero_output";
  }
  return "?";
}

std::optional<Mutant> mutate(const Task& t, MutationKind k, std::uint64_t seed) {
  const std::size_t n = site_count(t, k);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  core::Rng rng(seed);
  rng.shuffle(order);
  const std::string before = print_program(t.program);
  for (std::size_t site : order) {
    auto m = apply_site(t, k, site);
    if (!m || print_program(m->task.program) == before) continue;
    Task copy = m->task;
    if (analyze(copy).ok()) return m;
  }
  return std::nullopt;
}

}  // namespace steptp::fuzz
