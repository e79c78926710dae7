#include "fuzz/ast_edit.hpp"

#include <functional>

namespace steptp::fuzz {
namespace {

using namespace ir;

/// Visits matching nodes in pre-order; `f` returns true to stop.
template <class E, class F>
bool walk_expr(E& e, ExprSite site, const ExprPred& pred, F& f) {
  if (pred(e, site) && f(e)) return true;
  for (auto& c : e.args) {
    ExprSite cs = site;
    if (e.kind == ExprKind::Ref) cs.in_subscript = true;
    if (walk_expr(c, cs, pred, f)) return true;
  }
  return false;
}

template <class N, class F>
bool walk_nest_stmts(N& n, F& f) {
  for (auto& it : n.body) {
    if (it.is_stmt()) {
      if (f(it.stmt())) return true;
    } else if (walk_nest_stmts(it.nest(), f)) {
      return true;
    }
  }
  return false;
}

template <class P, class F>
bool walk_stmts(P& p, F&& f) {
  for (auto& n : p.nests)
    if (walk_nest_stmts(n, f)) return true;
  return false;
}

template <class P, class F>
bool walk_exprs(P& p, const ExprPred& pred, F&& f) {
  return walk_stmts(p, [&](auto& s) {
    return walk_expr(s.lhs, ExprSite{true, false}, pred, f) || walk_expr(s.rhs, ExprSite{false, false}, pred, f);
  });
}

template <class N, class F>
bool walk_nests(N& n, F& f) {
  if (f(n)) return true;
  for (auto& it : n.body)
    if (it.is_nest() && walk_nests(it.nest(), f)) return true;
  return false;
}

/// Removes empty nests under `items` (recursively); returns true if `n` itself became empty.
bool prune(Nest& n) {
  std::erase_if(n.body, [](Item& it) { return it.is_nest() && prune(it.nest()); });
  return n.body.empty();
}
void prune(Program& p) { std::erase_if(p.nests, [](Nest& n) { return prune(n); }); }

/// Keeps the tail flag only on a nest that is the last item of its parent (the printer's precondition).
void fix_tails(Nest& n) {
  for (std::size_t i = 0; i < n.body.size(); ++i) {
    if (!n.body[i].is_nest()) continue;
    Nest& c = n.body[i].nest();
    if (i + 1 != n.body.size()) c.tail = false;
    fix_tails(c);
  }
}

}  // namespace

std::size_t count_exprs(const Program& p, const ExprPred& pred) {
  std::size_t n = 0;
  walk_exprs(p, pred, [&](const Expr&) { ++n; return false; });
  return n;
}

bool edit_expr(Program& p, const ExprPred& pred, std::size_t k, const ExprEdit& edit) {
  std::size_t i = 0;
  return walk_exprs(p, pred, [&](Expr& e) {
    if (i++ != k) return false;
    edit(e);
    return true;
  });
}

std::size_t count_stmts(const Program& p) {
  std::size_t n = 0;
  for_each_stmt(p, [&](const Stmt&, const std::vector<const Loop*>&, std::size_t) { ++n; });
  return n;
}

const Stmt* nth_stmt(const Program& p, std::size_t k, std::vector<Loop>* loops, std::size_t* top) {
  const Stmt* out = nullptr;
  std::size_t i = 0;
  for_each_stmt(p, [&](const Stmt& s, const std::vector<const Loop*>& ls, std::size_t t) {
    if (i++ != k) return;
    out = &s;
    if (loops) {
      loops->clear();
      for (auto* l : ls) loops->push_back(*l);
    }
    if (top) *top = t;
  });
  return out;
}

Stmt* nth_stmt_mut(Program& p, std::size_t k) {
  Stmt* out = nullptr;
  std::size_t i = 0;
  walk_stmts(p, [&](Stmt& s) {
    if (i++ != k) return false;
    out = &s;
    return true;
  });
  return out;
}

bool remove_stmt(Program& p, std::size_t k) {
  std::size_t i = 0;
  bool done = false;
  std::function<bool(Nest&)> rec = [&](Nest& n) {
    for (std::size_t j = 0; j < n.body.size(); ++j) {
      if (n.body[j].is_stmt()) {
        if (i++ == k) {
          n.body.erase(n.body.begin() + std::ptrdiff_t(j));
          return true;
        }
      } else if (rec(n.body[j].nest())) {
        return true;
      }
    }
    return false;
  };
  for (auto& n : p.nests)
    if ((done = rec(n))) break;
  if (!done) return false;
  prune(p);
  for (auto& n : p.nests) fix_tails(n);
  return true;
}

std::size_t count_loops(const Program& p) {
  std::size_t n = 0;
  for (const auto& top : p.nests) {
    auto f = [&](const Nest& x) {
      n += x.loops.size();
      return false;
    };
    walk_nests(top, f);
  }
  return n;
}

Loop* nth_loop(Program& p, std::size_t k) {
  Loop* out = nullptr;
  std::size_t i = 0;
  for (auto& top : p.nests) {
    auto f = [&](Nest& x) {
      if (k < i + x.loops.size()) {
        out = &x.loops[k - i];
        return true;
      }
      i += x.loops.size();
      return false;
    };
    if (walk_nests(top, f)) break;
  }
  return out;
}

std::size_t count_nests(const Program& p) {
  std::size_t n = 0;
  for (const auto& top : p.nests) {
    auto f = [&](const Nest&) {
      ++n;
      return false;
    };
    walk_nests(top, f);
  }
  return n;
}

bool remove_nest(Program& p, std::size_t k) {
  std::size_t i = 0;
  std::function<bool(Nest&)> rec = [&](Nest& n) {
    for (std::size_t j = 0; j < n.body.size(); ++j) {
      if (!n.body[j].is_nest()) continue;
      if (i++ == k) {
        n.body.erase(n.body.begin() + std::ptrdiff_t(j));
        return true;
      }
      if (rec(n.body[j].nest())) return true;
    }
    return false;
  };
  bool done = false;
  for (std::size_t t = 0; t < p.nests.size() && !done; ++t) {
    if (i++ == k) {
      p.nests.erase(p.nests.begin() + std::ptrdiff_t(t));
      done = true;
      break;
    }
    done = rec(p.nests[t]);
  }
  if (!done) return false;
  prune(p);
  for (auto& n : p.nests) fix_tails(n);
  return true;
}

}  // namespace steptp::fuzz
