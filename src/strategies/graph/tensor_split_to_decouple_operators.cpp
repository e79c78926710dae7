// tensor_split_to_decouple_operators (STRATEGIES.md §11 entry 5): split the operator of a single-statement
// top-level nest into two independent operators on slices [0, v) and [v, n) of axis x, copy each input slice into
// its own tensor, and combine the two partial results.
// Site: the nest holds one statement O_s = e (no nested nest), not a prefix form; e reads no buffer the statement
// writes apart from its accumulator; every reference is global (the new nests are separate top-level nests, §7.4
// scope confinement); no access that uses x is a gather or lies in a lazy branch (§7.4: it would be copied),
// and every access uses x only as plain entries (its copies must be functions of the copy nest's iteration).
//  * spatial: x occurs in s exactly as one plain entry (so the halves write disjoint elements); a reduction must
//    have an implicit init (its partials restart from the identity, as O does). Halves write fresh O1, O2 over the
//    site header with x restricted; the concat nests (spatial loops, x restricted, §7.5) write O_s = O1_s and
//    O_{s[x->x+v]} = O2_s. Class E.
//  * reduction: the statement is a reduction (analysis/reduction.hpp) using every key in scope and x is one of its
//    reduction keys. Partials P1, P2 reduce over all reduction keys with x restricted to their half; one combine
//    nest over the spatial loops only (B2, §7.5) writes O_s = P1_s (+) P2_s (implicit init) or
//    O_s = O_s (+) (P1_s (+) P2_s) (continuing), where (+) is + for -. Class R for + - *, E for max/min.
// Both: x has extent n >= 2. Every distinct input access that uses x is copied, one copy nest per half (header:
// the site loops the copies use, x restricted, §7.5): half 1 writes C_a = a, half 2 writes C'_a = a[x->x+v]
// (a's own subscript on the left, so the partials read the copies with a's subscript). In half 2 every other use
// of x as a value becomes x+v. Fresh names: the half-1 copies, the half-2 copies (access pre-order), then the two
// partial results. Params (variant, axis, v): spatial before reduction, axes in header order, v in 1..n-1
// (indexed, never materialised).
#include <algorithm>
#include <set>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subexpr.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::graph {
namespace {

struct Axis {
  std::string variant;  // "spatial" or "reduction"
  std::string key;
  std::int64_t n = 0;
};

struct SiteInfo {
  std::optional<analysis::Reduction> red;  // pointers into the task's statement
  std::vector<Axis> axes;
};

/// Accesses of e (not the accumulator read, not inside subscripts) in pre-order, with their laziness.
void reads_of(const ir::Expr& e, const ir::Expr* acc, bool lazy, std::vector<std::pair<const ir::Expr*, bool>>& out) {
  if (e.is_ref()) {
    if (&e != acc) out.emplace_back(&e, lazy);
    return;
  }
  const bool ite = e.kind == ir::ExprKind::Call && e.fn == ir::Func::IfThenElse;
  for (std::size_t k = 0; k < e.args.size(); ++k) reads_of(e.args[k], acc, lazy || (ite && k > 0), out);
}

/// Does every access of the statement that uses `x` qualify for a copy: no gather, not lazy, and x only as plain
/// entries? The half-2 copy writes C'_a = a[x->x+v] with a's own subscript on the left, which is a function of the
/// copy's iteration only when every entry holding x is x itself: with `x//3` several iterations would write one
/// element of C' with different values (found by the differential fuzzer).
bool copies_ok(const ir::Stmt& st, const analysis::Reduction* red, const std::string& x) {
  std::vector<std::pair<const ir::Expr*, bool>> reads;
  reads_of(st.rhs, red ? red->acc_read : nullptr, false, reads);
  for (const auto& [r, lazy] : reads) {
    if (!ir::mentions_var(*r, x)) continue;
    if (lazy || analysis::has_gather(*r)) return false;
    for (const auto& e : r->args)
      if (ir::mentions_var(e, x) && !analysis::is_plain_key(e, x)) return false;
  }
  return true;
}

std::optional<SiteInfo> site_info(const ir::Task& t, std::uint32_t i) {
  const ir::Nest& n = t.program.nests[i];
  if (n.body.size() != 1 || !n.body[0].is_stmt()) return std::nullopt;
  const ir::Stmt& st = n.body[0].stmt();
  if (analysis::is_prefix_form(st)) return std::nullopt;
  auto sc = analysis::collect_stmts(n, {i});
  SiteInfo si;
  si.red = analysis::match_reduction(t.program, sc[0]);
  int own_reads = 0;
  bool scoped = st.lhs.scope != ir::Scope::Global;
  for (const auto& a : analysis::stmt_accesses(st)) {
    if (!a.write && a.buffer() == st.lhs.text) ++own_reads;
    scoped = scoped || a.ref->scope != ir::Scope::Global;
  }
  if (scoped || own_reads > (si.red ? 1 : 0)) return std::nullopt;
  const analysis::Reduction* red = si.red ? &*si.red : nullptr;
  // Spatial axes: one plain entry of s, x nowhere else in s.
  if (!red || red->implicit_init)
    for (const auto& l : n.loops) {
      if (l.extent < 2) continue;
      int plain = 0, uses = 0;
      for (const auto& e : st.lhs.args) {
        plain += analysis::is_plain_key(e, l.var);
        uses += ir::mentions_var(e, l.var);
      }
      if (plain == 1 && uses == 1 && copies_ok(st, red, l.var)) si.axes.push_back({"spatial", l.var, l.extent});
    }
  if (red && red->unused_keys.empty())
    for (const auto& l : n.loops)
      if (l.extent >= 2 &&
          std::find(red->reduction_keys.begin(), red->reduction_keys.end(), l.var) != red->reduction_keys.end() &&
          copies_ok(st, red, l.var))
        si.axes.push_back({"reduction", l.var, l.extent});
  if (si.axes.empty()) return std::nullopt;
  return si;
}

std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  if (path.size() != 1) return {};
  auto si = site_info(t, path[0]);
  if (!si) return {};
  std::vector<std::pair<Params, ParamSpace>> parts;
  for (const auto& a : si->axes)
    parts.emplace_back(Params{Param{"variant", a.variant}, Param{"axis", a.key}}, int_range_params("v", 1, a.n - 1));
  SiteRef ref;
  ref.nest = path;
  ref.stmt = 0;
  return {Site{ref, concat_params(std::move(parts))}};
}

/// Rebuilds `e` for one half: copied accesses -> their copy (same subscript), the output/accumulator -> `out`,
/// other uses of x as a value -> x+shift (references not using x are left as they are).
ir::Expr rebuild(const ir::Expr& e, const std::vector<ir::Expr>& copied, const std::vector<ir::Expr>& copy_refs,
                 const std::string& outname, const std::string& x, std::int64_t shift, const std::string& oname) {
  if (e.is_ref()) {
    if (e.text == oname) {
      ir::Expr r = e;
      r.text = outname;
      return r;
    }
    for (std::size_t k = 0; k < copied.size(); ++k)
      if (e == copied[k]) return copy_refs[k];
    return e;  // does not use x
  }
  if (e.kind == ir::ExprKind::Var && e.text == x) return analysis::offset_index(x, shift);
  ir::Expr c = e;
  for (auto& a : c.args) a = rebuild(a, copied, copy_refs, outname, x, shift, oname);
  return c;
}

std::vector<ir::Loop> restricted(const std::vector<ir::Loop>& loops, const std::string& x, std::int64_t ext) {
  auto out = loops;
  for (auto& l : out)
    if (l.var == x) l.extent = ext;
  return out;
}

}  // namespace

std::vector<Site> enumerate_tensor_split_to_decouple_operators(const ir::Task& t) {
  return enumerate_by_nest(t, nest_sites);
}

Applied apply_tensor_split_to_decouple_operators(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("tensor_split_to_decouple_operators");
  if (c.strategy != info.name) throw_bad_params(c.id());
  // Site check without materialising the parameter space.
  if (c.ref.nest.size() != 1 || !c.ref.stmt || *c.ref.stmt != 0 || c.ref.loop || !c.ref.expr.empty() ||
      c.ref.nest[0] >= t.program.nests.size())
    throw_stale(c.id() + " is not a site of this task");
  const std::uint32_t i = c.ref.nest[0];
  auto si = site_info(t, i);
  if (!si) throw_stale(c.id() + ": " + ir::print_nest(t.program.nests[i]) + " is not a site of this task");
  if (c.params.size() != 3) throw_bad_params(c.id());
  const std::string variant = param_str(c, "variant");
  const std::string x = param_str(c, "axis");
  const std::int64_t v = param_int(c, "v");
  std::int64_t n = 0;
  for (const auto& a : si->axes)
    if (a.variant == variant && a.key == x) n = a.n;
  if (n == 0 || v < 1 || v > n - 1) throw_bad_params(c.id() + ": (variant, axis, v) out of range");
  const bool spatial = variant == "spatial";

  const ir::Nest& site = t.program.nests[i];
  const ir::Stmt& st = site.body[0].stmt();
  const analysis::Reduction* red = si->red ? &*si->red : nullptr;
  const ir::DType odt = analysis::effective_dtype(t, st.lhs);

  // Distinct accesses that use x, pre-order.
  std::vector<std::pair<const ir::Expr*, bool>> reads;
  reads_of(st.rhs, red ? red->acc_read : nullptr, false, reads);
  std::vector<ir::Expr> copied;
  for (const auto& [r, lazy] : reads)
    if (ir::mentions_var(*r, x) && std::find(copied.begin(), copied.end(), *r) == copied.end()) copied.push_back(*r);

  analysis::NameAllocator names(t);
  std::vector<ir::Nest> nests;
  nlohmann::json copies = nlohmann::json::array();
  std::vector<std::vector<ir::Expr>> copy_refs(2);
  for (int half = 0; half < 2; ++half) {
    const std::int64_t ext = half == 0 ? v : n - v, shift = half == 0 ? 0 : v;
    ir::Nest cn;
    std::vector<ir::Loop> used;
    for (const auto& l : site.loops)
      for (const auto& a : copied)
        if (ir::mentions_var(a, l.var)) {
          used.push_back(l);
          break;
        }
    used = restricted(used, x, ext);
    nlohmann::json list = nlohmann::json::array();
    for (const auto& a : copied) {
      const std::string name = names.tensor();
      ir::Expr lhs = ir::make_ref(name, analysis::effective_dtype(t, a), ir::Scope::Global, a.args);
      ir::Expr src = a;
      if (shift) analysis::substitute(src, analysis::KeyMap{{x, analysis::offset_index(x, shift)}});
      copy_refs[half].push_back(lhs);
      ir::Stmt s;
      s.lhs = lhs;
      s.rhs = src;
      cn.body.push_back(ir::Item{s});
      list.push_back({{"buffer", name}, {"source", ir::print_expr(src)}, {"copy", ir::print_expr(lhs)}});
    }
    if (!copied.empty()) {
      auto hh = analysis::helper_header(used);
      cn.loops = hh.loops;
      for (const auto& [from, to] : hh.renamed) analysis::rename_key(cn, from, to);
      cn.loops = hh.loops;
      nests.push_back(std::move(cn));
    }
    copies.push_back({{"half", half + 1}, {"range", {shift, shift + ext}}, {"copies", list}});
  }
  const std::string p1 = names.tensor(), p2 = names.tensor();
  std::vector<std::string> pn = {p1, p2};
  for (int half = 0; half < 2; ++half) {
    const std::int64_t ext = half == 0 ? v : n - v, shift = half == 0 ? 0 : v;
    ir::Stmt s;
    s.lhs = st.lhs;
    s.lhs.text = pn[half];
    s.lhs.dtype = odt;
    s.rhs = rebuild(st.rhs, copied, copy_refs[half], pn[half], x, shift, st.lhs.text);
    // The renamed accumulator read carries O's superscript; give it the partial's dtype.
    ir::visit_expr_mut(s.rhs, [&](ir::Expr& r) {
      if (r.is_ref(pn[half])) r.dtype = odt;
    });
    ir::Nest pnest;
    pnest.loops = restricted(site.loops, x, ext);
    pnest.body.push_back(ir::Item{s});
    nests.push_back(std::move(pnest));
  }
  // Combine (reduction) or concat (spatial) nests, over the spatial loops.
  std::vector<ir::Loop> sp;
  for (const auto& l : site.loops)
    if (ir::mentions_var(st.lhs, l.var)) sp.push_back(l);
  auto pref = [&](const std::string& name) { return ir::make_ref(name, odt, ir::Scope::Global, st.lhs.args); };
  nlohmann::json combine_j;
  if (spatial) {
    for (int half = 0; half < 2; ++half) {
      ir::Expr o = st.lhs;
      if (half == 1) analysis::substitute(o, analysis::KeyMap{{x, analysis::offset_index(x, v)}});
      nests.push_back(analysis::materialise_nest(o, pref(pn[half]), restricted(sp, x, half == 0 ? v : n - v)));
    }
    combine_j = {{"concat", {ir::print_nest(nests[nests.size() - 2]), ir::print_nest(nests.back())}}};
  } else {
    const analysis::ReduceOp cop = red->op == analysis::ReduceOp::Sub ? analysis::ReduceOp::Add : red->op;
    ir::Expr both = analysis::combine_partials(cop, pref(p1), pref(p2));
    ir::Expr rhs =
        red->implicit_init ? std::move(both) : analysis::combine_partials(cop, st.lhs, std::move(both));
    nests.push_back(analysis::materialise_nest(st.lhs, rhs, sp));
    combine_j = {{"nest", ir::print_nest(nests.back())}, {"op", std::string(analysis::reduce_op_text(cop))}};
  }

  ir::Task after = t;
  auto& an = after.program.nests;
  an.erase(an.begin() + i);
  nlohmann::json printed = nlohmann::json::array();
  for (const auto& nn : nests) printed.push_back(ir::print_nest(nn));
  an.insert(an.begin() + i, nests.begin(), nests.end());

  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(st);
  f.set("variant", variant);
  f.set("axis", {{"key", x}, {"n", n}});
  f.set("split_point", v);
  if (red) f.set("reduction_op", std::string(analysis::reduce_op_text(red->op)));
  if (red) f.set("init_status", red->implicit_init ? "implicit" : "continuing");
  f.set("copies", copies);
  f.set("partials", {{{"name", p1}, {"range", {0, v}}}, {{"name", p2}, {"range", {v, n}}}});
  f.set("combine", combine_j);
  f.set("new_nests", printed);
  f.legality("inputs read in place are not written by the nest", "structural", true,
             "the statement reads no buffer it writes apart from its accumulator");
  f.legality("copied accesses are neither lazy nor gathers (§7.4)", "structural", true,
             std::to_string(copied.size()) + " accesses copied per half");
  const Exactness cls = spatial || !analysis::reassociates(red->op) ? Exactness::Exact : Exactness::Reassoc;
  return finish(t, std::move(after), std::move(f), cls, &names);
}

STEPTP_REGISTER_STRATEGY(tensor_split_to_decouple_operators, 5, Graph,
                         "Split one operator into two independent operators on slices of its "
                         "inputs, copy each slice into its own tensor, and combine the two "
                         "partial results.",
                         enumerate_tensor_split_to_decouple_operators, apply_tensor_split_to_decouple_operators);

}  // namespace steptp::strategy::graph
