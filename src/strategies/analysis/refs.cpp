#include "strategies/analysis/refs.hpp"

namespace steptp::strategy::analysis {

ir::DType effective_dtype(const ir::Task& t, const ir::Expr& ref) {
  const ir::KnownBuffer* kb = t.find_known(ref.text);
  return kb ? kb->dtype : ref.dtype;
}

int replace_equal(ir::Expr& e, const ir::Expr& from, const ir::Expr& to) {
  if (e == from) {
    e = to;
    return 1;
  }
  int n = 0;
  for (auto& c : e.args) n += replace_equal(c, from, to);
  return n;
}

int replace_equal(ir::Nest& n, const ir::Expr& from, const ir::Expr& to, bool lhs) {
  int c = 0;
  for (auto& it : n.body) {
    if (it.is_nest()) {
      c += replace_equal(it.nest(), from, to, lhs);
      continue;
    }
    ir::Stmt& s = it.stmt();
    if (lhs) {
      c += replace_equal(s.lhs, from, to);
    } else {
      for (auto& a : s.lhs.args) c += replace_equal(a, from, to);
    }
    c += replace_equal(s.rhs, from, to);
  }
  return c;
}

namespace {
void refs_rec(ir::Expr& e, const std::string& buffer, const std::function<void(ir::Expr&)>& f) {
  if (e.is_ref(buffer)) f(e);
  for (auto& c : e.args) refs_rec(c, buffer, f);
}
}  // namespace

void for_each_ref(ir::Nest& n, const std::string& buffer, const std::function<void(ir::Expr&)>& f) {
  for (auto& it : n.body) {
    if (it.is_nest()) {
      for_each_ref(it.nest(), buffer, f);
    } else {
      refs_rec(it.stmt().lhs, buffer, f);
      refs_rec(it.stmt().rhs, buffer, f);
    }
  }
}

void for_each_ref(ir::Program& p, const std::string& buffer, const std::function<void(ir::Expr&)>& f) {
  for (auto& n : p.nests) for_each_ref(n, buffer, f);
}

int set_scope(ir::Nest& n, const std::string& buffer, ir::Scope scope) {
  int c = 0;
  for_each_ref(n, buffer, [&](ir::Expr& r) {
    if (r.scope != scope) ++c;
    r.scope = scope;
  });
  return c;
}

int set_scope(ir::Program& p, const std::string& buffer, ir::Scope scope) {
  int c = 0;
  for (auto& n : p.nests) c += set_scope(n, buffer, scope);
  return c;
}

const ir::Expr* expr_at(const ir::Stmt& s, const std::vector<std::uint32_t>& path) {
  if (path.empty() || path[0] > 1) return nullptr;
  const ir::Expr* e = path[0] == 0 ? &s.lhs : &s.rhs;
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (path[i] >= e->args.size()) return nullptr;
    e = &e->args[path[i]];
  }
  return e;
}

namespace {
void paths_rec(const ir::Expr& e, std::vector<std::uint32_t>& cur, const std::function<bool(const ir::Expr&)>& pred,
               std::vector<std::vector<std::uint32_t>>& out) {
  if (pred(e)) out.push_back(cur);
  for (std::uint32_t i = 0; i < e.args.size(); ++i) {
    cur.push_back(i);
    paths_rec(e.args[i], cur, pred, out);
    cur.pop_back();
  }
}
}  // namespace

std::vector<std::vector<std::uint32_t>> find_paths(const ir::Stmt& s,
                                                   const std::function<bool(const ir::Expr&)>& pred) {
  std::vector<std::vector<std::uint32_t>> out;
  std::vector<std::uint32_t> cur{0};
  paths_rec(s.lhs, cur, pred, out);
  cur = {1};
  paths_rec(s.rhs, cur, pred, out);
  return out;
}

}  // namespace steptp::strategy::analysis
