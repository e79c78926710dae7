// LEIR.md §5 names and scopes: predicates and the validator's scope pass (E006 for in-memory extents, E111-E114).
#include "ir/scopes.hpp"

#include <array>
#include <string>
#include <vector>

#include "ir/validate_detail.hpp"

namespace steptp::ir {

namespace {
constexpr std::array<std::string_view, 35> kPythonKeywords{
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
    "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
    "pass", "raise", "return", "try", "while", "with", "yield", "None", "True", "False"};
constexpr std::array<std::string_view, 9> kReservedVar{"exp", "log", "sqrt", "abs", "erf",
                                                      "max", "min", "if_then_else", "inf"};
bool lower(char c) { return c >= 'a' && c <= 'z'; }
}  // namespace

bool is_python_keyword(std::string_view name) {
  for (auto k : kPythonKeywords)
    if (k == name) return true;
  return false;
}

bool is_valid_buffer_name(std::string_view name) {
  if (name.empty() || name[0] < 'A' || name[0] > 'Z') return false;
  for (std::size_t i = 1; i < name.size(); ++i)
    if (!lower(name[i])) return false;
  switch (name[0]) {
    case 'B': case 'L': case 'P': case 'T': case 'U': case 'V': return false;
    default: break;
  }
  return name != "None" && name != "False";
}

bool is_valid_loop_var(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!lower(c)) return false;
  for (auto r : kReservedVar)
    if (r == name) return false;
  return !is_python_keyword(name);
}

bool is_bound_name(std::string_view name) {
  if (name.size() < 2 || (name[0] != 't' && name[0] != 'b')) return false;
  if (name[1] != 'x' && name[1] != 'y' && name[1] != 'z') return false;
  for (std::size_t i = 2; i < name.size(); ++i)
    if (!lower(name[i])) return false;
  return true;
}

std::string_view hardware_axis(std::string_view name) {
  return is_bound_name(name) ? name.substr(0, 2) : std::string_view{};
}

namespace detail {
namespace {
struct ScopeWalker {
  DiagSink& sink;
  std::vector<const Loop*> path;           // loops on the current nesting path
  std::vector<const Loop*> top_bound;      // every B loop of the current top-level nest

  void loop(const Loop& l) {
    if (l.extent < 1 || l.extent >= (std::int64_t{1} << 31))
      sink.at(l, Code::E006, "loop extent " + std::to_string(l.extent) + " outside [1, 2^31)");
    if (!is_valid_loop_var(l.var)) {
      sink.at(l, Code::E111, "invalid loop variable '" + l.var + "'");
    } else if (l.kind == LoopKind::B && !is_bound_name(l.var)) {
      sink.at(l, Code::E111, "B loop must bind a name (t|b)(x|y|z)…, not '" + l.var + "'");
    } else if (l.kind != LoopKind::B && is_bound_name(l.var)) {
      sink.at(l, Code::E111,
              std::string(1, loop_kind_char(l.kind)) + " loop may not use the bound name '" + l.var + "'");
    }
    for (const Loop* p : path)
      if (p->var == l.var) {
        sink.at(l, Code::E112, "loop variable '" + l.var + "' rebound on one nesting path");
        break;
      }
    if (l.kind == LoopKind::B && is_bound_name(l.var)) {
      for (const Loop* p : top_bound)
        if (hardware_axis(p->var) == hardware_axis(l.var)) {
          sink.at(l, Code::E114, "hardware axis " + std::string(hardware_axis(l.var)) + " bound twice ('" + p->var +
                                 "' and '" + l.var + "') in one top-level nest");
          break;
        }
      top_bound.push_back(&l);
    }
  }

  void expr(const Expr& e) {
    if (e.kind == ExprKind::Var) {
      bool bound = false;
      for (const Loop* p : path) bound = bound || p->var == e.text;
      if (!bound) sink.at(e, Code::E113, "unbound loop variable '" + e.text + "'");
    }
    for (const auto& c : e.args) expr(c);
  }

  void nest(const Nest& n) {
    const std::size_t depth = path.size();
    for (const auto& l : n.loops) {
      loop(l);
      path.push_back(&l);
    }
    for (const auto& it : n.body) {
      if (it.is_stmt()) {
        expr(it.stmt().lhs);
        expr(it.stmt().rhs);
      } else {
        nest(it.nest());
      }
    }
    path.resize(depth);
  }
};
}  // namespace

void check_scopes(const Program& p, DiagSink& sink) {
  ScopeWalker w{sink, {}, {}};
  for (const auto& n : p.nests) {
    w.top_bound.clear();
    w.nest(n);
  }
}
}  // namespace detail

}  // namespace steptp::ir
