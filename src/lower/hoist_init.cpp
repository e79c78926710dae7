#include "lower/hoist_init.hpp"

#include <algorithm>
#include <cstdlib>

#include "ir/affine.hpp"

namespace steptp::lower {
namespace {

/// Every reference to buffer `x` in `e`, subscripts included.
void refs_to(const ir::Expr& e, const std::string& x, std::vector<const ir::Expr*>& out) {
  if (e.is_ref(x)) out.push_back(&e);
  for (const auto& a : e.args) refs_to(a, x, out);
}

/// Rule 3: inside `n`'s body, `x` occurs only in `s`, and there only with the LHS's subscript.
bool only_in(const ir::Nest& n, const ir::Stmt& s, const std::string& x) {
  for (const auto& it : n.body) {
    if (!it.is_stmt()) {
      if (!only_in(it.nest(), s, x)) return false;
      continue;
    }
    const ir::Stmt& t = it.stmt();
    std::vector<const ir::Expr*> refs;
    refs_to(t.lhs, x, refs);
    refs_to(t.rhs, x, refs);
    if (&t != &s) {
      if (!refs.empty()) return false;
      continue;
    }
    for (std::size_t i = 1; i < refs.size(); ++i)  // refs[0] is the LHS itself
      if (refs[i]->args != s.lhs.args) return false;
  }
  return true;
}

/// Rule 2: the LHS is an injective function of the loops `spatial` (the other variables held fixed).
bool injective(const ir::Stmt& s, const std::vector<const ir::Loop*>& spatial) {
  std::map<std::string, std::int64_t> extent;
  for (const auto* l : spatial) extent[l->var] = l->extent;
  std::set<std::string> seen;
  for (const auto& entry : s.lhs.args) {
    const auto f = ir::linear_form(entry);
    if (!f) return false;
    std::vector<std::pair<std::int64_t, std::int64_t>> terms;  // |coefficient|, extent
    for (const auto& [var, c] : f->coef) {
      const auto it = extent.find(var);
      if (it == extent.end()) continue;  // an enclosing loop: fixed
      if (!seen.insert(var).second) return false;
      terms.emplace_back(std::llabs(c), it->second);
    }
    std::sort(terms.begin(), terms.end());
    std::int64_t span = 0;  // largest difference the smaller terms can make
    for (const auto& [c, n] : terms) {
      if (c <= span) return false;
      span += c * (n - 1);
    }
  }
  return true;
}

struct Walk {
  const Prepared& p;
  InitHoisting& out;
  std::vector<const ir::Loop*> path;
  std::vector<const ir::Nest*> owner;  // the nest whose header list holds path[i]
  int first_b = -1;                    // path index of the top-level nest's first B loop, or -1

  void stmt(const ir::Stmt& s) {
    if (s.init == ir::InitKind::None || s.reduction_vars.empty()) return;
    const auto in_r = [&](const std::string& v) {
      return std::find(s.reduction_vars.begin(), s.reduction_vars.end(), v) != s.reduction_vars.end();
    };
    std::size_t j = 0;
    while (j < path.size() && !in_r(path[j]->var)) ++j;
    if (j == path.size()) return;
    std::vector<const ir::Loop*> spatial;
    for (std::size_t i = j; i < path.size(); ++i) {
      if (in_r(path[i]->var)) continue;
      bool in_lhs = false;  // rule 1
      for (const auto& e : s.lhs.args)
        if (const auto f = ir::linear_form(e); !f || f->at(path[i]->var) != 0) in_lhs = true;
      if (!in_lhs) return;
      spatial.push_back(path[i]);
    }
    if (!injective(s, spatial)) return;
    if (!only_in(*owner[j], s, s.lhs.text)) return;
    if (p.buffer(s.lhs.text).scope != ir::Scope::Global && first_b >= 0 && static_cast<int>(j) <= first_b) return;
    out.before[path[j]].push_back({&s, spatial});
    out.hoisted.insert(&s);
  }

  void nest(const ir::Nest& n, bool top) {
    for (std::size_t k = 0; k < n.loops.size(); ++k) {
      if (top && first_b < 0 && n.loops[k].kind == ir::LoopKind::B) first_b = static_cast<int>(path.size());
      path.push_back(&n.loops[k]);
      owner.push_back(&n);
    }
    for (const auto& it : n.body) {
      if (it.is_stmt()) stmt(it.stmt());
      else nest(it.nest(), false);
    }
    path.resize(path.size() - n.loops.size());
    owner.resize(owner.size() - n.loops.size());
  }
};

}  // namespace

InitHoisting plan_init_hoisting(const Prepared& p) {
  InitHoisting out;
  for (const auto& top : p.task.program.nests) {
    Walk w{p, out, {}, {}, -1};
    w.nest(top, true);
  }
  return out;
}

}  // namespace steptp::lower
