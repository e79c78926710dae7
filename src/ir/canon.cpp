#include "ir/canon.hpp"

#include <map>
#include <vector>

#include "base/versions.hpp"
#include "base/hash.hpp"
#include "base/json_text.hpp"
#include "ir/printer.hpp"

namespace steptp::core {
namespace {

std::string label(char prefix, std::size_t n) {
  std::string s(1, prefix);
  s.append(std::to_string(n));
  return s;
}

struct Renamer {
  const ir::Task& task;
  std::vector<std::map<std::string, std::string>> scopes;
  std::map<std::string, std::string> buffers;
  int next_key = 0;

  std::string var(const std::string& v) const {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(v);
      if (f != it->end()) return f->second;
    }
    return v;  // free variable: keep (the validator rejects these anyway)
  }
  void expr(ir::Expr& e) {
    ir::visit_expr_mut(e, [&](ir::Expr& x) {
      if (x.kind == ir::ExprKind::Var) x.text = var(x.text);
      else if (x.kind == ir::ExprKind::Ref && !task.find_known(x.text)) {
        auto it = buffers.find(x.text);
        if (it == buffers.end()) it = buffers.emplace(x.text, label('T', buffers.size())).first;
        x.text = it->second;
      }
    });
  }
  void nest(ir::Nest& n) {
    scopes.emplace_back();
    for (auto& l : n.loops) {
      std::string k = label('k', std::size_t(next_key++));
      scopes.back()[l.var] = k;
      l.var = k;
    }
    for (auto& it : n.body) {
      if (it.is_stmt()) {
        expr(it.stmt().lhs);
        expr(it.stmt().rhs);
      } else {
        nest(it.nest());
      }
    }
    scopes.pop_back();
  }
};

}  // namespace

std::string alpha_canonical(const ir::Task& t) {
  ir::Program p = t.program;
  Renamer r{t, {}, {}, 0};
  for (auto& n : p.nests) {
    r.next_key = 0;
    r.nest(n);
  }
  return ir::print_program(p);
}

std::string canonical_known_json(const ir::Task& t) {
  ojson arr = ojson::array();
  for (const auto& k : t.known)
    arr.push_back({{"name", k.name}, {"role", std::string(ir::role_name(k.role))},
                   {"dtype", std::string(ir::dtype_name(k.dtype))}, {"shape", k.shape}});
  return canonical_json(arr);
}

std::string task_key(const ir::Task& t) {
  return H({"steptp.task/1", t.workload, canonical_known_json(t), ir::print_program(t.program)});
}

std::string prog_key(const ir::Task& t, const std::string& flags) {
  return H({"steptp.prog/1", canonical_known_json(t), ir::print_program(t.program), std::to_string(kLoweringVersion),
            flags});
}

}  // namespace steptp::core
