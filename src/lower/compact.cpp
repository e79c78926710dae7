#include "lower/compact.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "ir/affine.hpp"
#include "lower/c_emit.hpp"

namespace steptp::lower {
namespace {

/// One access of a scoped buffer: its entries in affine form and the extents of the loops enclosing it.
struct Access {
  std::vector<ir::Linear> entries;
  std::map<std::string, std::int64_t> extent;  // loop variable -> extent (innermost binding; names are unique on
                                               // one nesting path, E112)
};

/// Range [lo, hi] of c0 + sum coef*v over the access's loops, leaving out `skip`.
std::pair<std::int64_t, std::int64_t> rest_range(const ir::Linear& l, const Access& a,
                                                 const std::set<std::string>& skip) {
  std::int64_t lo = l.c0, hi = l.c0;
  for (const auto& [v, c] : l.coef) {
    if (skip.count(v)) continue;
    const auto it = a.extent.find(v);
    const std::int64_t top = it == a.extent.end() ? 0 : it->second - 1;
    lo += std::min<std::int64_t>(0, c * top);
    hi += std::max<std::int64_t>(0, c * top);
  }
  return {lo, hi};
}

/// The coefficient of `v`, if every access has the same one.
std::optional<std::int64_t> common_coef(const std::vector<Access>& acc, std::size_t j, const std::string& v) {
  const std::int64_t c = acc.front().entries[j].at(v);
  for (const auto& a : acc)
    if (a.entries[j].at(v) != c) return std::nullopt;
  return c;
}

/// Plan of one buffer whose accesses all lie in top-level nest `top`; nullopt when nothing shrinks.
std::optional<CompactBuffer> plan_buffer(const ir::Nest& top, const std::vector<Access>& acc,
                                         const std::vector<std::int64_t>& shape) {
  if (acc.empty() || shape.empty()) return std::nullopt;
  std::size_t first_b = top.loops.size();
  for (std::size_t k = 0; k < top.loops.size() && first_b == top.loops.size(); ++k)
    if (top.loops[k].kind == ir::LoopKind::B) first_b = k;
  CompactBuffer cb;
  for (std::size_t j = 0; j < shape.size(); ++j) {
    CompactDim d;
    std::vector<std::pair<std::int64_t, std::string>> later;  // droppable header loops after the first B: (|c|, v)
    for (std::size_t k = 0; k < top.loops.size(); ++k) {
      const ir::Loop& l = top.loops[k];
      const auto c = common_coef(acc, j, l.var);
      if (!c || *c == 0) continue;
      if (first_b < top.loops.size() && k <= first_b) d.dropped.insert(l.var);
      else if (l.kind == ir::LoopKind::L || l.kind == ir::LoopKind::U) later.emplace_back(std::llabs(*c), l.var);
    }
    std::sort(later.begin(), later.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [c, v] : later) {
      std::set<std::string> skip = d.dropped;
      skip.insert(v);
      std::int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (const auto& a : acc) {
        const auto [l, h] = rest_range(a.entries[j], a, skip);
        lo = std::min(lo, l);
        hi = std::max(hi, h);
      }
      if (c > hi - lo) d.dropped.insert(v);
    }
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& a : acc) {
      const auto [l, h] = rest_range(a.entries[j], a, d.dropped);
      lo = std::min(lo, l);
      hi = std::max(hi, h);
    }
    std::int64_t g = 0;
    for (const auto& a : acc) {
      g = std::gcd(g, a.entries[j].c0 - lo);
      for (const auto& [v, c] : a.entries[j].coef)
        if (!d.dropped.count(v)) g = std::gcd(g, c);
    }
    d.lo = lo;
    d.g = g == 0 ? 1 : std::llabs(g);
    cb.shape.push_back((hi - lo) / d.g + 1);
    cb.dims.push_back(std::move(d));
  }
  std::int64_t before = 1;
  for (auto s : shape) before *= s;
  if (cb.numel() >= before) return std::nullopt;
  return cb;
}

}  // namespace

std::int64_t CompactBuffer::numel() const {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

std::map<std::string, CompactBuffer> plan_compaction(const Prepared& p) {
  std::set<std::string> scoped;
  for (const auto* b : p.intermediates())
    if (b->scope != ir::Scope::Global) scoped.insert(b->name);
  std::map<std::string, CompactBuffer> plan;
  if (scoped.empty()) return plan;
  // accesses per (top-level nest, buffer); a buffer with a non-affine entry anywhere keeps its layout
  std::map<std::pair<std::size_t, std::string>, std::vector<Access>> acc;
  std::set<std::string> non_affine;
  ir::for_each_stmt(p.task.program, [&](const ir::Stmt& st, const std::vector<const ir::Loop*>& loops, std::size_t top) {
    for (const ir::Expr* side : {&st.lhs, &st.rhs})
      ir::visit_expr(*side, [&](const ir::Expr& x) {
        if (!x.is_ref() || !scoped.count(x.text) || non_affine.count(x.text)) return;
        Access a;
        for (const auto* l : loops) a.extent[l->var] = l->extent;
        for (const auto& e : x.args) {
          auto f = ir::linear_form(e);
          if (!f) {
            non_affine.insert(x.text);
            return;
          }
          a.entries.push_back(std::move(*f));
        }
        acc[{top, x.text}].push_back(std::move(a));
      });
  });
  for (const auto& [key, list] : acc) {
    if (non_affine.count(key.second)) continue;
    if (auto cb = plan_buffer(p.task.program.nests[key.first], list, p.buffer(key.second).shape))
      plan[key.second] = std::move(*cb);
  }
  return plan;
}

std::string compact_entry_c(const ir::Expr& e, const CompactDim& d) {
  const auto l = ir::linear_form(e);
  if (!l) return "0";  // not planned (plan_buffer requires affine entries)
  std::string s;
  for (const auto& [v, c] : l->coef) {
    if (d.dropped.count(v)) continue;
    const std::int64_t k = c / d.g;
    s += (s.empty() ? "" : " + ") + (k == 1 ? c_var(v) : c_var(v) + " * INT64_C(" + std::to_string(k) + ")");
  }
  const std::int64_t off = (l->c0 - d.lo) / d.g;
  if (off != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::string("INT64_C(") + std::to_string(off) + ")";
  return "(" + s + ")";
}

}  // namespace steptp::lower
