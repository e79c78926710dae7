// tensor_concat_to_fuse_operators (STRATEGIES.md §11 entry 4): run two instances of one operator, in top-level
// nests i and i+1, as one operator over concatenated inputs, then split the result back into the two outputs.
// Site: both nests hold exactly one statement (no nested nests); no buffer written by one is read or written by
// the other (buffer-level independence); neither statement reads its own output (no reduction or prefix form);
// every reference is global (scope confinement); no loop key is used as a value; the right-hand sides are equal
// once every access is an operand slot (analysis/match.hpp same_skeleton), and the output dtypes match. Headers
// have the same length and the same kind at each position and the same extent except at the concat position p
// (any position when all extents agree), whose key is a spatial key of both outputs (it occurs in both LHS
// subscripts). Keys of nest i+1 are renamed to nest i's by position. Each slot whose access has the concat key as
// a plain entry is concatenated: it must not lie in a lazy branch (§7.4) and both accesses must use the same key
// positions. Every other slot must hold the identical access in both statements (after the renaming), without the
// concat key: a differing broadcast operand rejects the site (B6). The concatenated loop keeps the launch limits.
// Rewrite (fresh names: one concat buffer per concatenated slot in pre-order, then the result H):
//   per concatenated slot, a copy nest for each half writes G_{u} = access (u: the keys the access uses, header
//   order; the second half's concat entry offset by n1), header per §7.5;
//   H_{keys} = skeleton(G..., shared accesses) over nest i's header with extent n1+n2 at p;
//   the two write-back nests, with the site headers: O1_{s1} = H_{keys1}, O2_{s2} = H_{keys2 with p+n1}.
// Output metadata (dtype, subscript, header) comes from each site nest (B5). Class E: H has the outputs' dtype
// and the copies their sources' dtypes, so every operation runs on the same values in the same types.
#include <set>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/match.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subexpr.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::graph {
namespace {

struct Slot {
  const ir::Expr* a = nullptr;       // access in statement 1
  const ir::Expr* b = nullptr;       // access in statement 2
  bool concat = false;
  std::vector<std::size_t> pos;      // header positions of the keys the access uses (concat slots)
};

struct Pair {
  std::string why;                   // "" when the pair passes the position-independent checks
  const ir::Stmt* s1 = nullptr;
  const ir::Stmt* s2 = nullptr;
  std::vector<std::pair<const ir::Expr*, const ir::Expr*>> slots;
  analysis::KeyMap to1;              // key of nest i+1 -> key of nest i (by position)
};

bool uses_key_as_value(const ir::Expr& e) {
  if (e.kind == ir::ExprKind::Var) return true;
  if (e.kind == ir::ExprKind::Ref) return false;
  for (const auto& c : e.args)
    if (uses_key_as_value(c)) return true;
  return false;
}

bool in_lazy(const ir::Expr& root, const ir::Expr* target, bool lazy = false) {
  if (&root == target) return lazy;
  const bool ite = root.kind == ir::ExprKind::Call && root.fn == ir::Func::IfThenElse;
  for (std::size_t k = 0; k < root.args.size(); ++k)
    if (in_lazy(root.args[k], target, lazy || (ite && k > 0))) return true;
  return false;
}

bool plain_entry(const ir::Expr& ref, const std::string& key) {
  for (const auto& e : ref.args)
    if (analysis::is_plain_key(e, key)) return true;
  return false;
}

Pair check_pair(const ir::Task& t, std::uint32_t i) {
  Pair p;
  const auto& ns = t.program.nests;
  if (i + 1 >= ns.size()) return p.why = "last nest", p;
  const ir::Nest& n1 = ns[i];
  const ir::Nest& n2 = ns[i + 1];
  if (n1.body.size() != 1 || n2.body.size() != 1 || !n1.body[0].is_stmt() || !n2.body[0].is_stmt())
    return p.why = "not two single-statement nests", p;
  if (n1.loops.size() != n2.loops.size()) return p.why = "headers differ in length", p;
  for (std::size_t k = 0; k < n1.loops.size(); ++k)
    if (n1.loops[k].kind != n2.loops[k].kind) return p.why = "headers differ in kind", p;
  p.s1 = &n1.body[0].stmt();
  p.s2 = &n2.body[0].stmt();
  const auto b1 = analysis::nest_buffers(n1), b2 = analysis::nest_buffers(n2);
  for (const auto& x : b1.written)
    if (b2.read.count(x) || b2.written.count(x)) return p.why = "dependence on " + x, p;
  for (const auto& x : b2.written)
    if (b1.read.count(x)) return p.why = "dependence on " + x, p;
  for (const ir::Stmt* s : {p.s1, p.s2}) {
    if (b1.read.count(s->lhs.text) || b2.read.count(s->lhs.text)) return p.why = "reads its own output", p;
    bool scoped = false;
    ir::visit_expr(s->rhs, [&](const ir::Expr& x) { scoped = scoped || (x.is_ref() && x.scope != ir::Scope::Global); });
    if (scoped || s->lhs.scope != ir::Scope::Global) return p.why = "s/l reference", p;
    if (uses_key_as_value(s->rhs)) return p.why = "a loop key is used as a value", p;
  }
  if (analysis::effective_dtype(t, p.s1->lhs) != analysis::effective_dtype(t, p.s2->lhs))
    return p.why = "output dtypes differ", p;
  if (!analysis::same_skeleton(p.s1->rhs, p.s2->rhs, &p.slots)) return p.why = "skeletons differ", p;
  for (std::size_t k = 0; k < n1.loops.size(); ++k) p.to1[n2.loops[k].var] = ir::make_var(n1.loops[k].var);
  return p;
}

/// The slots for concat position `pos`, or why the position does not qualify.
std::string slots_for(const ir::Task& t, std::uint32_t i, const Pair& p, std::size_t pos, std::vector<Slot>* out) {
  const ir::Nest& n1 = t.program.nests[i];
  const ir::Nest& n2 = t.program.nests[i + 1];
  for (std::size_t k = 0; k < n1.loops.size(); ++k)
    if (k != pos && n1.loops[k].extent != n2.loops[k].extent) return "extents differ outside the concat position";
  const std::string& k1 = n1.loops[pos].var;
  const std::string& k2 = n2.loops[pos].var;
  if (!ir::mentions_var(p.s1->lhs, k1) || !ir::mentions_var(p.s2->lhs, k2)) return "concat key not spatial";
  bool any = false;
  for (const auto& [a, b] : p.slots) {
    Slot s{a, b, false, {}};
    const bool pa = plain_entry(*a, k1), pb = plain_entry(*b, k2);
    if (pa || pb) {
      if (!(pa && pb)) return "a slot has the concat key as a plain entry on one side only";
      if (in_lazy(p.s1->rhs, a) || in_lazy(p.s2->rhs, b)) return "a concatenated slot lies in a lazy branch";
      std::vector<std::size_t> pos2;
      for (std::size_t k = 0; k < n1.loops.size(); ++k) {
        if (ir::mentions_var(*a, n1.loops[k].var)) s.pos.push_back(k);
        if (ir::mentions_var(*b, n2.loops[k].var)) pos2.push_back(k);
      }
      if (s.pos != pos2) return "concatenated accesses use different key positions";
      if (analysis::effective_dtype(t, *a) != analysis::effective_dtype(t, *b)) return "slot dtypes differ";
      s.concat = any = true;
    } else {
      ir::Expr b1 = *b;
      analysis::substitute(b1, p.to1);
      if (!(b1 == *a)) return "a differing broadcast operand (B6)";
      if (ir::mentions_var(*a, k1)) return "a shared operand uses the concat key";
    }
    if (out) out->push_back(std::move(s));
  }
  if (!any) return "no slot to concatenate";
  // Launch limits of the concatenated loop.
  ir::Nest h = n1;
  h.loops[pos].extent = n1.loops[pos].extent + n2.loops[pos].extent;
  if (!analysis::launch_limits_ok(analysis::bound_tags(h), default_config())) return "launch limits";
  std::int64_t numel = 1;
  for (const auto& l : h.loops) numel *= l.extent;
  if (numel > default_config().max_new_elements) return "footprint above max_new_elements";
  return "";
}

std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  if (path.size() != 1) return {};
  Pair p = check_pair(t, path[0]);
  if (!p.why.empty()) return {};
  std::vector<Params> ps;
  for (std::size_t pos = 0; pos < t.program.nests[path[0]].loops.size(); ++pos)
    if (slots_for(t, path[0], p, pos, nullptr).empty())
      ps.push_back(Params{Param{"axis", static_cast<std::int64_t>(pos)}});
  if (ps.empty()) return {};
  SiteRef ref;
  ref.nest = path;
  return {Site{ref, list_params(std::move(ps))}};
}

/// Copy of `e` with its top-level accesses (pre-order, not inside subscripts) replaced by `with`.
ir::Expr fill_slots(const ir::Expr& e, const std::vector<ir::Expr>& with, std::size_t& next) {
  if (e.is_ref()) return with.at(next++);
  ir::Expr c = e;
  for (auto& a : c.args) a = fill_slots(a, with, next);
  return c;
}

std::vector<ir::Expr> key_refs(const std::vector<ir::Loop>& loops, std::size_t pos, std::int64_t off) {
  std::vector<ir::Expr> out;
  for (std::size_t k = 0; k < loops.size(); ++k)
    out.push_back(k == pos ? analysis::offset_index(loops[k].var, off) : ir::make_var(loops[k].var));
  return out;
}

ir::Nest single(const std::vector<ir::Loop>& loops, ir::Expr lhs, ir::Expr rhs) {
  ir::Nest n;
  n.loops = loops;
  ir::Stmt s;
  s.lhs = std::move(lhs);
  s.rhs = std::move(rhs);
  n.body.push_back(ir::Item{s});
  return n;
}

}  // namespace

std::vector<Site> enumerate_tensor_concat_to_fuse_operators(const ir::Task& t) {
  return enumerate_by_nest(t, nest_sites);
}

Applied apply_tensor_concat_to_fuse_operators(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("tensor_concat_to_fuse_operators");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const std::uint32_t i = c.ref.nest[0];
  const auto pos = static_cast<std::size_t>(param_int(c, "axis"));
  Pair p = check_pair(t, i);
  std::vector<Slot> slots;
  slots_for(t, i, p, pos, &slots);
  const ir::Nest& n1 = t.program.nests[i];
  const ir::Nest& n2 = t.program.nests[i + 1];
  const std::int64_t e1 = n1.loops[pos].extent, e2 = n2.loops[pos].extent;

  analysis::NameAllocator names(t);
  std::vector<ir::Nest> out;
  std::vector<ir::Expr> fill;  // per slot, the operand of H
  nlohmann::json concatenated = nlohmann::json::array(), shared = nlohmann::json::array(),
                 new_buffers = nlohmann::json::array();
  for (const auto& s : slots) {
    if (!s.concat) {
      fill.push_back(*s.a);
      shared.push_back(ir::print_expr(*s.a));
      continue;
    }
    const std::string g = names.tensor();
    const ir::DType dt = analysis::effective_dtype(t, *s.a);
    std::vector<ir::Expr> sub_h;
    std::vector<std::int64_t> shape;
    for (std::size_t k : s.pos) {
      sub_h.push_back(ir::make_var(n1.loops[k].var));
      shape.push_back(k == pos ? e1 + e2 : n1.loops[k].extent);
    }
    fill.push_back(ir::make_ref(g, dt, ir::Scope::Global, sub_h));
    for (int half = 0; half < 2; ++half) {
      const ir::Nest& n = half == 0 ? n1 : n2;
      std::vector<ir::Loop> used;
      std::vector<ir::Expr> sub;
      for (std::size_t k : s.pos) {
        used.push_back(n.loops[k]);
        sub.push_back(k == pos ? analysis::offset_index(n.loops[k].var, half == 0 ? 0 : e1)
                               : ir::make_var(n.loops[k].var));
      }
      out.push_back(analysis::materialise_nest(ir::make_ref(g, dt, ir::Scope::Global, sub), half == 0 ? *s.a : *s.b,
                                               used));
    }
    concatenated.push_back({{"sources", {ir::print_expr(*s.a), ir::print_expr(*s.b)}}, {"buffer", g}});
    new_buffers.push_back({{"name", g}, {"dtype", std::string(ir::dtype_name(dt))}, {"shape", shape}});
  }
  const std::string h = names.tensor();
  const ir::DType odt = analysis::effective_dtype(t, p.s1->lhs);
  std::vector<ir::Loop> hl = n1.loops;
  hl[pos].extent = e1 + e2;
  std::size_t next = 0;
  out.push_back(single(hl, ir::make_ref(h, odt, ir::Scope::Global, key_refs(hl, pos, 0)),
                       fill_slots(p.s1->rhs, fill, next)));
  std::vector<std::int64_t> hshape;
  for (const auto& l : hl) hshape.push_back(l.extent);
  new_buffers.push_back({{"name", h}, {"dtype", std::string(ir::dtype_name(odt))}, {"shape", hshape}});
  out.push_back(single(n1.loops, p.s1->lhs, ir::make_ref(h, odt, ir::Scope::Global, key_refs(n1.loops, pos, 0))));
  out.push_back(single(n2.loops, p.s2->lhs, ir::make_ref(h, odt, ir::Scope::Global, key_refs(n2.loops, pos, e1))));

  ir::Task after = t;
  auto& an = after.program.nests;
  an.erase(an.begin() + i, an.begin() + i + 2);
  nlohmann::json printed = nlohmann::json::array();
  for (const auto& n : out) printed.push_back(ir::print_nest(n));
  an.insert(an.begin() + i, out.begin(), out.end());

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("pair", {i, i + 1});
  f.set("skeleton", analysis::print_skeleton(p.s1->rhs));
  f.set("axis", {{"key", n1.loops[pos].var}, {"position", pos}, {"n1", e1}, {"n2", e2}, {"offset", e1}});
  f.set("concatenated", concatenated);
  f.set("shared_operands", shared);
  f.set("new_buffers", new_buffers);
  f.set("new_nests", printed);
  f.set("outputs", {{{"buffer", p.s1->lhs.text}, {"dtype", std::string(ir::dtype_name(odt))}, {"nest", i}},
                    {{"buffer", p.s2->lhs.text},
                     {"dtype", std::string(ir::dtype_name(analysis::effective_dtype(t, p.s2->lhs)))},
                     {"nest", i + 1}}});
  f.legality("no dependence between the two nests", "structural", true,
             "written sets disjoint from the other nest's accessed sets");
  f.legality("equal operand skeletons, identical shared operands (B6)", "structural", true);
  return finish(t, std::move(after), std::move(f), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(tensor_concat_to_fuse_operators, 4, Graph,
                         "Run two instances of the same operator on different tensors as one "
                         "operator over concatenated inputs, then split the result back into the "
                         "two outputs.",
                         enumerate_tensor_concat_to_fuse_operators, apply_tensor_concat_to_fuse_operators);

}  // namespace steptp::strategy::graph
