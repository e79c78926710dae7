#include "strategies/analysis/names.hpp"

#include <array>
#include <stdexcept>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {
namespace {
constexpr std::string_view kTensorAlpha = "ACDEFGHIJKMNOQRSWXYZ";
constexpr std::string_view kKeyAlpha = "acdfghijklmnopqrsuw";

std::string bijective(std::uint64_t index, std::string_view alpha) {
  std::string s;
  std::uint64_t n = index + 1;
  const std::uint64_t k = alpha.size();
  while (n > 0) {
    --n;
    s.insert(s.begin(), alpha[n % k]);
    n /= k;
  }
  return s;
}

void collect_refs(const ir::Expr& e, std::set<std::string>& out) {
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Ref) out.insert(x.text);
  });
}
void collect_nest_refs(const ir::Nest& n, std::set<std::string>& out) {
  for (const auto& it : n.body) {
    if (it.is_stmt()) {
      collect_refs(it.stmt().lhs, out);
      collect_refs(it.stmt().rhs, out);
    } else {
      collect_nest_refs(it.nest(), out);
    }
  }
}
}  // namespace

std::string tensor_name_at(std::uint64_t index) {
  std::string s = bijective(index, kTensorAlpha);
  for (std::size_t i = 1; i < s.size(); ++i) s[i] = static_cast<char>(s[i] - 'A' + 'a');
  return s;
}

std::string loop_key_at(std::uint64_t index) { return bijective(index, kKeyAlpha); }

bool is_reserved_loop_key(std::string_view s) {
  static const std::set<std::string_view> r = {
      "exp", "log", "sqrt", "abs", "erf", "max", "min", "if_then_else", "inf", "and", "as", "assert", "async",
      "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
      "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
      "while", "with", "yield"};
  return r.count(s) > 0;
}

bool is_reserved_tensor_name(std::string_view s) { return s == "None" || s == "False"; }

std::set<std::string> used_tensor_names(const ir::Task& t) {
  std::set<std::string> out;
  for (const auto& k : t.known) out.insert(k.name);
  for (const auto& n : t.program.nests) collect_nest_refs(n, out);
  return out;
}

void collect_keys(const ir::Nest& n, std::set<std::string>& out) {
  for (const auto& l : n.loops) out.insert(l.var);
  for (const auto& it : n.body)
    if (it.is_nest()) collect_keys(it.nest(), out);
}

std::set<std::string> visible_keys(const ir::Program& p, const std::vector<std::uint32_t>& path) {
  std::set<std::string> out;
  if (path.empty()) return out;
  const ir::Nest* n = &p.nests.at(path[0]);
  for (std::size_t i = 1; i < path.size(); ++i) {
    for (const auto& l : n->loops) out.insert(l.var);
    const ir::Item& it = n->body.at(path[i]);
    if (!it.is_nest()) throw std::out_of_range("nest path names a statement");
    n = &it.nest();
  }
  collect_keys(*n, out);
  return out;
}

std::string NameAllocator::tensor() {
  for (std::uint64_t i = 0;; ++i) {
    std::string s = tensor_name_at(i);
    if (is_reserved_tensor_name(s) || used_tensors_.count(s)) continue;
    used_tensors_.insert(s);
    allocated_.push_back(s);
    return s;
  }
}

std::string NameAllocator::key(std::set<std::string>& visible) {
  for (std::uint64_t i = 0;; ++i) {
    std::string s = loop_key_at(i);
    if (is_reserved_loop_key(s) || visible.count(s)) continue;
    visible.insert(s);
    allocated_.push_back(s);
    return s;
  }
}

}  // namespace steptp::strategy::analysis
