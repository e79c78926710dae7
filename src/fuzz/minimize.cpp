#include "fuzz/minimize.hpp"

#include <chrono>
#include <set>

#include "fuzz/ast_edit.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::fuzz {
namespace {

using namespace ir;

std::set<std::string> referenced(const Program& p) {
  std::set<std::string> names;
  count_exprs(p, [&](const Expr& e, const ExprSite&) {
    if (e.kind == ExprKind::Ref) names.insert(e.text);
    return false;
  });
  return names;
}

void drop_unused_inputs(Task& t) {
  const auto used = referenced(t.program);
  std::erase_if(t.known, [&](const KnownBuffer& k) { return k.role != Role::Output && !used.count(k.name); });
}

/// A value-position node with operands (a candidate for replacement by an operand or a literal).
bool replaceable(const Expr& e, const ExprSite& s) {
  return !s.in_lhs && !s.in_subscript && e.kind != ExprKind::IntLit && e.kind != ExprKind::FloatLit;
}

/// Option `o` for node e: its o-th operand (not for references: their operands are subscripts), else 1, else 0.
std::optional<Expr> replacement(const Expr& e, std::size_t o) {
  const std::size_t n = e.kind == ExprKind::Ref ? 0 : e.args.size();
  if (o < n) return e.args[o];
  if (o == n) return make_int(1);
  if (o == n + 1) return make_int(0);
  return std::nullopt;
}

/// Re-parses the printed program, so that the minimised tree is exactly what its text reads back as.
void normalize(Task& t) {
  try {
    t.program = parse_program(print_program(t.program));
  } catch (const LeirError&) {
  }
}

}  // namespace

std::size_t task_size(const Task& t) {
  // A buffer read counts twice, so that replacing a 0-d read by a literal is a reduction.
  std::size_t n = t.known.size() + count_exprs(t.program, [](const Expr&, const ExprSite&) { return true; }) +
                  count_exprs(t.program, [](const Expr& e, const ExprSite&) { return e.kind == ExprKind::Ref; });
  Program p = t.program;
  for (std::size_t i = 0; i < count_loops(p); ++i) n += 1 + std::size_t(nth_loop(p, i)->extent);
  return n;
}

MinimizeResult minimize(const Task& t, const FailPredicate& still_fails, const MinimizeOptions& opt) {
  MinimizeResult r{t, 0, 0};
  const auto start = std::chrono::steady_clock::now();
  auto budget_ok = [&] {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r.tests < opt.max_tests && s < opt.max_seconds;
  };
  auto attempt = [&](Task c) {
    if (!budget_ok() || c.program.nests.empty()) return false;
    if (opt.normalize) normalize(c);
    drop_unused_inputs(c);
    Task v = c;
    if (!analyze(v).ok() || task_size(c) >= task_size(r.task)) return false;
    ++r.tests;
    bool fails = false;
    try {
      fails = still_fails(c);
    } catch (...) {
    }
    if (fails) {
      r.task = std::move(c);
      ++r.accepted;
    }
    return fails;
  };

  bool progress = true;
  while (progress && budget_ok()) {
    progress = false;
    for (std::size_t k = count_nests(r.task.program); k-- > 0;) {
      Task c = r.task;
      if (remove_nest(c.program, k) && attempt(std::move(c))) progress = true;
    }
    for (std::size_t k = count_stmts(r.task.program); k-- > 0;) {
      Task c = r.task;
      if (remove_stmt(c.program, k) && attempt(std::move(c))) progress = true;
    }
    for (std::size_t k = count_exprs(r.task.program, replaceable); k-- > 0;) {
      for (std::size_t o = 0;; ++o) {
        Task c = r.task;
        bool any = false;
        edit_expr(c.program, replaceable, k, [&](Expr& e) {
          if (auto x = replacement(e, o)) {
            e = std::move(*x);
            any = true;
          }
        });
        if (!any) break;
        if (attempt(std::move(c))) {
          progress = true;
          break;
        }
      }
    }
    // Extents: one loop alone, or one extent value everywhere (loops and known shapes together).
    for (std::size_t k = count_loops(r.task.program); k-- > 0;) {
      Task probe = r.task;
      if (k >= count_loops(probe.program)) continue;
      const std::int64_t e = nth_loop(probe.program, k)->extent;
      for (std::int64_t to : {std::int64_t(1), e / 2}) {
        if (to < 1 || to >= e) continue;
        Task c = r.task;
        nth_loop(c.program, k)->extent = to;
        if (attempt(std::move(c))) {
          progress = true;
          break;
        }
        Task g = r.task;
        for (std::size_t i = 0; i < count_loops(g.program); ++i)
          if (nth_loop(g.program, i)->extent == e) nth_loop(g.program, i)->extent = to;
        for (auto& kb : g.known)
          for (auto& d : kb.shape)
            if (d == e) d = to;
        if (attempt(std::move(g))) {
          progress = true;
          break;
        }
      }
    }
  }
  return r;
}

}  // namespace steptp::fuzz
