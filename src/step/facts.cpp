#include "step/facts.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/dtype.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::dataset {
namespace {

using ir::Expr;
using ir::ExprKind;

std::optional<std::int64_t> const_int(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return e.ival;
    case ExprKind::Group: return const_int(e.args[0]);
    case ExprKind::Neg: {
      auto a = const_int(e.args[0]);
      if (a) return -*a;
      return std::nullopt;
    }
    case ExprKind::Binary: {
      auto a = const_int(e.args[0]), b = const_int(e.args[1]);
      if (!a || !b) return std::nullopt;
      if (e.bop == ir::BinOp::Add) return *a + *b;
      if (e.bop == ir::BinOp::Sub) return *a - *b;
      if (e.bop == ir::BinOp::Mul) return *a * *b;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

/// Coefficient of loop key `v` in an integer index expression; nullopt when not affine in v.
std::optional<std::int64_t> coef(const Expr& e, const std::string& v) {
  if (!ir::mentions_var(e, v)) return 0;
  switch (e.kind) {
    case ExprKind::Var: return e.text == v ? 1 : 0;
    case ExprKind::Group: return coef(e.args[0], v);
    case ExprKind::Neg: {
      auto a = coef(e.args[0], v);
      if (a) return -*a;
      return std::nullopt;
    }
    case ExprKind::Binary: {
      if (e.bop == ir::BinOp::Add || e.bop == ir::BinOp::Sub) {
        auto a = coef(e.args[0], v), b = coef(e.args[1], v);
        if (!a || !b) return std::nullopt;
        return e.bop == ir::BinOp::Add ? *a + *b : *a - *b;
      }
      if (e.bop == ir::BinOp::Mul) {
        if (auto c = const_int(e.args[0])) {
          auto b = coef(e.args[1], v);
          if (b) return *c * *b;
          return std::nullopt;
        }
        if (auto c = const_int(e.args[1])) {
          auto a = coef(e.args[0], v);
          if (a) return *a * *c;
          return std::nullopt;
        }
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

int flops_of(const Expr& e) {
  int n = 0;
  switch (e.kind) {
    case ExprKind::Ref: return 0;  // subscripts excluded
    case ExprKind::Binary:
      if (e.bop == ir::BinOp::Add || e.bop == ir::BinOp::Sub || e.bop == ir::BinOp::Mul ||
          e.bop == ir::BinOp::Div)
        n = 1;
      break;
    case ExprKind::Call:
      if (e.fn == ir::Func::IfThenElse) return flops_of(e.args[1]) + flops_of(e.args[2]);  // condition excluded
      n = 1;
      break;
    case ExprKind::Compare: return 0;
    default: break;
  }
  for (const auto& c : e.args) n += flops_of(c);
  return n;
}

struct StmtView {
  const ir::Stmt* s;
  std::vector<const ir::Loop*> loops;
  std::size_t nest;
};

struct ProgView {
  ir::Task task;  // validated copy
  ir::Analysis an;
  std::vector<StmtView> stmts;
  std::size_t nests = 0;
};

ProgView view(const ir::Task& t) {
  ProgView v{t, {}, {}, t.program.nests.size()};
  v.an = ir::validate_or_throw(v.task);
  ir::for_each_stmt(v.task.program, [&](const ir::Stmt& s, const std::vector<const ir::Loop*>& loops,
                                         std::size_t top) { v.stmts.push_back({&s, loops, top}); });
  return v;
}

std::int64_t prod_extents(const std::vector<const ir::Loop*>& loops) {
  std::int64_t p = 1;
  for (auto* l : loops) p *= l->extent;
  return p;
}

std::int64_t buffer_bytes(const ir::BufferInfo& b) { return b.numel() * ir::dtype_bytes(b.dtype); }

/// Iterations of nest i: sum over distinct innermost loop chains of the product of their extents.
std::int64_t nest_iterations(const ProgView& v, std::size_t i) {
  std::set<const ir::Loop*> seen;
  std::int64_t it = 0;
  for (const auto& s : v.stmts)
    if (s.nest == i) {
      const ir::Loop* last = s.loops.empty() ? nullptr : s.loops.back();
      if (seen.insert(last).second) it += prod_extents(s.loops);
    }
  return it;
}

bool loop_is_spatial(const ProgView& v, const ir::Loop* l) {
  for (const auto& s : v.stmts)
    if (std::find(s.loops.begin(), s.loops.end(), l) != s.loops.end())
      for (const auto& e : s.s->lhs.args)
        if (ir::mentions_var(e, l->var)) return true;
  return false;
}

/// Strides (elements) of every buffer accessed in nest i along loop key `k`, first access per buffer.
ojson nest_strides(const ProgView& v, std::size_t i, const std::string& k, std::int64_t extent,
                   std::optional<std::int64_t>* contiguous) {
  std::map<std::string, ojson> strides;
  std::int64_t run = -1;
  auto access = [&](const Expr& ref) {
    if (strides.count(ref.text)) return;
    const ir::BufferInfo* b = v.an.find(ref.text);
    bool affine = true;
    std::int64_t total = 0;
    if (b && b->shape.size() == ref.args.size()) {
      std::int64_t mult = 1;
      for (std::size_t d = ref.args.size(); d-- > 0;) {
        auto c = coef(ref.args[d], k);
        if (!c) {
          affine = false;
          break;
        }
        total += *c * mult;
        mult *= b->shape[d];
      }
    } else if (!ref.args.empty()) {
      affine = false;
    }
    strides[ref.text] = affine ? ojson(total) : ojson(nullptr);
    if (affine && total == 1 && b) run = std::max<std::int64_t>(run, extent * ir::dtype_bytes(b->dtype));
  };
  for (const auto& s : v.stmts)
    if (s.nest == i) {
      ir::visit_expr(s.s->lhs, [&](const Expr& e) {
        if (e.is_ref()) access(e);
      });
      ir::visit_expr(s.s->rhs, [&](const Expr& e) {
        if (e.is_ref()) access(e);
      });
    }
  ojson out = ojson::object();
  for (auto& [name, val] : strides) out[name] = val;  // sorted by name
  if (contiguous) *contiguous = run >= 0 ? std::optional<std::int64_t>(run) : std::nullopt;
  return out;
}

const ir::Loop* innermost_loop(const ProgView& v, std::size_t i) {
  for (const auto& s : v.stmts)
    if (s.nest == i && !s.loops.empty()) return s.loops.back();
  return nullptr;
}

std::string reduction_kind(const ir::Stmt& s, std::string* update) {
  const Expr& r = s.rhs;
  if (r.kind == ExprKind::Binary && r.args[0] == s.lhs &&
      (r.bop == ir::BinOp::Add || r.bop == ir::BinOp::Sub || r.bop == ir::BinOp::Mul)) {
    if (update) *update = std::string(ir::binop_text(r.bop));
    return r.bop == ir::BinOp::Mul ? "product" : "sum";
  }
  if (r.kind == ExprKind::Call && (r.fn == ir::Func::Max || r.fn == ir::Func::Min) && r.args.size() == 2 &&
      (r.args[0] == s.lhs || r.args[1] == s.lhs))
    return r.fn == ir::Func::Max ? "max" : "min";
  return "assign";
}

/// Printed expression without superscripts: X^{f32,g}_{i,j} -> X[i,j].
std::string plain(const std::string& printed) {
  std::string out;
  std::vector<char> stack;
  for (std::size_t i = 0; i < printed.size(); ++i) {
    char c = printed[i];
    if (c == '^' && i + 1 < printed.size() && printed[i + 1] == '{') {
      std::size_t j = printed.find('}', i);
      i = j == std::string::npos ? printed.size() : j;
      continue;
    }
    if (c == '_' && i + 1 < printed.size() && printed[i + 1] == '{') {
      out.push_back('[');
      stack.push_back('[');
      ++i;
      continue;
    }
    if (c == '{') stack.push_back('{');
    if (c == '}' && !stack.empty()) {
      char o = stack.back();
      stack.pop_back();
      out.push_back(o == '[' ? ']' : '}');
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> nest_texts(const ir::Task& t) {
  std::vector<std::string> v;
  for (const auto& n : t.program.nests) v.push_back(ir::print_nest(n));
  return v;
}

}  // namespace

std::string plain_stmt_text(const ir::Stmt& s) {
  std::string lhs = plain(ir::print_expr(s.lhs));
  std::string op;
  std::string kind = reduction_kind(s, &op);
  if (kind == "sum" || kind == "product") return lhs + " = " + lhs + " " + op + " " + plain(ir::print_expr(s.rhs.args[1]));
  return lhs + " = " + plain(ir::print_expr(s.rhs));
}

std::vector<std::size_t> changed_nests(const ir::Task& before, const ir::Task& after) {
  std::multiset<std::string> pool;
  for (auto& s : nest_texts(before)) pool.insert(s);
  std::vector<std::size_t> changed;
  auto at = nest_texts(after);
  for (std::size_t i = 0; i < at.size(); ++i) {
    auto it = pool.find(at[i]);
    if (it != pool.end()) pool.erase(it);
    else changed.push_back(i);
  }
  return changed;
}

namespace {

ProgramMetrics metrics_of(const ProgView& v) {
  ProgramMetrics m;
  for (std::size_t i = 0; i < v.nests; ++i) m.iterations += nest_iterations(v, i);
  for (const auto& s : v.stmts) m.flops += prod_extents(s.loops) * flops_of(s.s->rhs);
  for (const auto& b : v.an.buffers) {
    std::int64_t bytes = buffer_bytes(b);
    m.footprint += bytes;
    if (b.known) m.min_traffic += bytes;
    else if (b.scope == ir::Scope::Global) m.min_traffic += 2 * bytes;
  }
  for (std::size_t i = 0; i < v.nests; ++i) {
    std::set<const ir::Loop*> loops;
    for (const auto& s : v.stmts)
      if (s.nest == i)
        for (auto* l : s.loops) loops.insert(l);
    std::int64_t p = 1;
    bool any = false;
    for (auto* l : loops)
      if (l->kind == ir::LoopKind::P || l->kind == ir::LoopKind::B) {
        p *= l->extent;
        any = true;
      }
    if (any) m.parallel_iterations += p;
  }
  return m;
}

std::string role_text(const ir::BufferInfo& b) {
  if (b.known) return std::string(ir::role_name(b.role));
  return "intermediate";
}

void observation(const ProgView& v, ojson& out) {
  for (std::size_t i = 0; i < v.nests; ++i) {
    for (const auto& s : v.stmts)
      if (s.nest == i) {
        ojson f{{"k", "compute"}, {"nest", i}, {"text", plain_stmt_text(*s.s)}};
        std::string kind = reduction_kind(*s.s, nullptr);
        f["kind"] = kind;
        ojson over = ojson::array();
        for (auto* l : s.loops) {
          bool in_lhs = false;
          for (const auto& e : s.s->lhs.args) in_lhs = in_lhs || ir::mentions_var(e, l->var);
          if (!in_lhs && (ir::mentions_var(s.s->rhs, l->var) || kind != "assign")) over.push_back(l->var);
        }
        f["over"] = over;
        out.push_back(f);
      }
    std::vector<const ir::Loop*> loops;
    for (const auto& s : v.stmts)
      if (s.nest == i)
        for (auto* l : s.loops)
          if (std::find(loops.begin(), loops.end(), l) == loops.end()) loops.push_back(l);
    for (auto* l : loops)
      out.push_back({{"k", "loop"}, {"nest", i}, {"key", l->var}, {"kind", std::string(1, ir::loop_kind_char(l->kind))},
                     {"extent", l->extent}, {"role", loop_is_spatial(v, l) ? "spatial" : "reduction"}});
    out.push_back({{"k", "iterations"}, {"nest", i}, {"value", nest_iterations(v, i)}});
    if (const ir::Loop* in = innermost_loop(v, i))
      out.push_back({{"k", "strides"}, {"side", "before"}, {"nest", i}, {"loop", in->var},
                     {"elements", nest_strides(v, i, in->var, in->extent, nullptr)}});
  }
  for (const auto& b : v.an.buffers)
    if (b.known || b.scope == ir::Scope::Global)
      out.push_back({{"k", "buffer"}, {"name", b.name}, {"role", role_text(b)},
                     {"dtype", std::string(ir::dtype_name(b.dtype))}, {"shape", b.shape}, {"bytes", buffer_bytes(b)}});
  ProgramMetrics m = metrics_of(v);
  out.push_back({{"k", "flops"}, {"value", m.flops}});
  out.push_back({{"k", "min_traffic"}, {"bytes", m.min_traffic}});
  out.push_back({{"k", "intensity"}, {"value", m.min_traffic ? double(m.flops) / double(m.min_traffic) : 0.0}});
}

const std::set<std::string>& common_keys() {
  static const std::set<std::string> k = {"strategy", "family", "class", "candidate", "site", "params", "loops",
                                          "buffers", "nests", "legality", "conditions"};
  return k;
}

ojson to_o(const nlohmann::json& j) { return ojson::parse(j.dump()); }

}  // namespace

ProgramMetrics program_metrics(const ir::Task& t) { return metrics_of(view(t)); }

ojson compute_facts(const ir::Task& before, const ir::Task& after, const nlohmann::json& af,
                    const std::string& candidate_id, char cls, const ojson& params) {
  ProgView bv = view(before), av = view(after);
  ojson out = ojson::array();
  observation(bv, out);
  // Candidate
  ojson site{{"k", "site"}, {"candidate", candidate_id}};
  if (af.is_object() && af.contains("site")) site["site"] = to_o(af["site"]);
  out.push_back(site);
  out.push_back({{"k", "params"}, {"values", params}});
  if (af.is_object()) {
    std::vector<std::string> keys;
    for (auto it = af.begin(); it != af.end(); ++it)
      if (!common_keys().count(it.key())) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    for (const auto& k : keys) out.push_back({{"k", "detail"}, {"key", k}, {"value", to_o(af[k])}});
    if (af.contains("buffers") && af["buffers"].is_object()) {
      ojson created = ojson::array(), removed = ojson::array();
      if (af["buffers"].contains("created") && af["buffers"]["created"].is_array())
        for (const auto& b : af["buffers"]["created"]) created.push_back(b.is_object() ? to_o(b.value("name", nlohmann::json(""))) : to_o(b));
      if (af["buffers"].contains("removed") && af["buffers"]["removed"].is_array())
        for (const auto& b : af["buffers"]["removed"]) removed.push_back(b.is_object() ? to_o(b.value("name", nlohmann::json(""))) : to_o(b));
      if (!created.empty() || !removed.empty())
        out.push_back({{"k", "buffers_changed"}, {"created", created}, {"removed", removed}});
    }
  }
  if (af.is_object() && af.contains("legality") && af["legality"].is_array())
    for (const auto& l : af["legality"]) {
      ojson f{{"k", "legality"}};
      if (l.is_object()) {
        f["check"] = to_o(l.value("check", nlohmann::json("check")));
        f["method"] = to_o(l.value("method", nlohmann::json("structural")));
        f["result"] = to_o(l.value("result", nlohmann::json(true)));
        if (l.contains("detail")) f["detail"] = to_o(l["detail"]);
      } else {
        f["check"] = to_o(l);
        f["method"] = "structural";
        f["result"] = true;
      }
      out.push_back(f);
    }
  if (af.is_object() && af.contains("conditions") && af["conditions"].is_array())
    for (const auto& c : af["conditions"]) {
      ojson f{{"k", "condition"}};
      if (c.is_object()) {
        f["kind"] = to_o(c.value("kind", nlohmann::json("domain")));
        f["expr"] = to_o(c.value("expr", nlohmann::json("")));
        f["status"] = to_o(c.value("status", nlohmann::json("proven")));
      } else {
        f["kind"] = "domain";
        f["expr"] = to_o(c);
        f["status"] = "proven";
      }
      out.push_back(f);
    }
  out.push_back({{"k", "class"}, {"value", std::string(1, cls)}});
  // Expected effect
  ProgramMetrics mb = metrics_of(bv), ma = metrics_of(av);
  out.push_back({{"k", "effect"}, {"metric", "iterations"}, {"before", mb.iterations}, {"after", ma.iterations}});
  out.push_back({{"k", "effect"}, {"metric", "min_traffic_bytes"}, {"before", mb.min_traffic}, {"after", ma.min_traffic}});
  out.push_back({{"k", "effect"}, {"metric", "footprint_bytes"}, {"before", mb.footprint}, {"after", ma.footprint}});
  out.push_back({{"k", "effect"}, {"metric", "parallel_iterations"}, {"before", mb.parallel_iterations},
                 {"after", ma.parallel_iterations}});
  out.push_back({{"k", "effect"}, {"metric", "flops"}, {"before", mb.flops}, {"after", ma.flops}});
  auto changed = changed_nests(before, after);
  for (std::size_t i : changed)
    if (const ir::Loop* in = innermost_loop(av, i)) {
      std::optional<std::int64_t> run;
      ojson el = nest_strides(av, i, in->var, in->extent, &run);
      out.push_back({{"k", "strides"}, {"side", "after"}, {"nest", i}, {"loop", in->var}, {"extent", in->extent},
                     {"elements", el}, {"contiguous_bytes", run ? ojson(*run) : ojson(nullptr)}});
    }
  // Result
  for (std::size_t i : changed)
    out.push_back({{"k", "result"}, {"nest", i}, {"text", ir::print_nest(after.program.nests[i])}});
  if (changed.empty() && before.program.nests.size() != after.program.nests.size())
    out.push_back({{"k", "result_removed"}, {"nests", std::int64_t(before.program.nests.size() - after.program.nests.size())}});
  return out;
}

}  // namespace steptp::dataset
