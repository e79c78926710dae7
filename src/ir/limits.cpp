// Iterative syntax-tree height (ir/limits.hpp).
#include "ir/limits.hpp"

#include <vector>

namespace steptp::ir {

bool is_input_limit_error(Code code) { return code == Code::E014 || code == Code::E015 || code == Code::E107; }

bool is_input_limit_error(std::string_view code) {
  const auto c = code_from_text(code);
  return c && is_input_limit_error(*c);
}

int syntax_height(const Program& p, std::uint32_t* deepest_offset) {
  // Explicit stack of (node, level of the node). Levels count as in kMaxNestingDepth: the loop headers of the
  // enclosing nests, then the statement, then each expression node.
  struct Frame {
    const Nest* nest = nullptr;
    const Expr* expr = nullptr;
    int level = 0;
    std::uint32_t stmt_offset = 0;
  };
  std::vector<Frame> stack;
  for (auto it = p.nests.rbegin(); it != p.nests.rend(); ++it) stack.push_back({&*it, nullptr, 0, 0});
  int best = 0;
  std::uint32_t best_off = 0;
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    if (f.nest) {
      const int lv = f.level + static_cast<int>(f.nest->loops.size());
      if (lv > best) best = lv, best_off = f.nest->offset;
      for (auto it = f.nest->body.rbegin(); it != f.nest->body.rend(); ++it) {
        if (it->is_nest()) {
          stack.push_back({&it->nest(), nullptr, lv, 0});
        } else {
          const Stmt& s = it->stmt();
          stack.push_back({nullptr, &s.rhs, lv + 2, s.offset});
          stack.push_back({nullptr, &s.lhs, lv + 2, s.offset});
        }
      }
      continue;
    }
    if (f.level > best) best = f.level, best_off = f.stmt_offset;
    for (const auto& c : f.expr->args) stack.push_back({nullptr, &c, f.level + 1, f.stmt_offset});
  }
  if (deepest_offset) *deepest_offset = best_off;
  return best;
}

std::uint64_t statement_executions(const Program& p) {
  std::uint64_t total = 0;
  bool saturated = false;
  for_each_stmt(p, [&](const Stmt&, const std::vector<const Loop*>& loops, std::size_t) {
    std::uint64_t n = 1;
    for (const Loop* l : loops)
      if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(l->extent), &n)) saturated = true;
    if (__builtin_add_overflow(total, n, &total)) saturated = true;
  });
  return saturated ? ~std::uint64_t{0} : total;
}

}  // namespace steptp::ir
