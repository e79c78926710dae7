// common_subexpression_elimination (STRATEGIES.md §11 entry 6): compute a repeated sub-expression once, into a
// fresh intermediate F placed (as a new top-level nest) just before the top-level nest of its first occurrence,
// and read F at every occurrence.
// Occurrences: materialisable nodes (analysis/subexpr.hpp: operator nodes of a float static type, never inside a
// lazy branch or a subscript, never a whole right-hand side, never constant) of every statement, grouped by
// structural equality up to a bijective renaming between keys of equal extent (analysis/match.hpp). A group with
// two or more occurrences is a repeated expression; all occurrences must have the same static type.
// Legality: the expression reads no s/l buffer (scope confinement), and no statement of the top-level nests from
// the first occurrence's to the last occurrence's writes a buffer it reads (value preservation from the insertion
// point to the last occurrence, buffer level, B11); this also keeps every occurrence free of its statement's
// accumulator. F, indexed by the keys the first occurrence mentions in header order, has at most
// max_new_elements elements (§7.4). Maximality: a legal repeated expression is not a site when every one of its
// occurrences is a direct operand (parentheses looked through) of an occurrence of one other legal repeated
// expression. One candidate per site, ordered by first occurrence. F's header follows §7.5.
// Class E when F's dtype (the expression's static type) equals every occurrence statement's float evaluation type
// (F of LEIR.md §7.3), otherwise R (§6 "stored intermediates").
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "ir/printer.hpp"
#include "ir/typing.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/match.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subexpr.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::graph {
namespace {

struct Occ {
  std::size_t stmt = 0;                       // index in Ctx::stmts
  analysis::ExprPath path;
  const ir::Expr* e = nullptr;
  int parent = -1;                            // occurrence index of the enclosing materialisable node, if any
  int cls = -1;
  analysis::KeyRenaming ren;                  // representative's keys <-> this occurrence's keys
};

struct Class {
  std::vector<int> occs;                      // occurrence indices, program order
  bool legal = false;
  std::string why;
  std::vector<const ir::Loop*> loops;         // of the representative: the loops whose keys it mentions
  std::int64_t numel = 1;
  std::uint32_t first_top = 0, last_top = 0;
};

struct Ctx {
  ir::Task typed;
  std::vector<analysis::StmtCtx> stmts;
  std::vector<Occ> occs;
  std::vector<Class> classes;
  std::vector<int> sites;                     // class indices, in order of first occurrence
};

std::size_t shape_hash(const ir::Expr& e) {
  std::size_t h = static_cast<std::size_t>(e.kind) * 1000003u;
  auto mix = [&](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  switch (e.kind) {
    case ir::ExprKind::Ref: mix(std::hash<std::string>{}(e.text)); break;
    case ir::ExprKind::Binary: mix(static_cast<std::size_t>(e.bop)); break;
    case ir::ExprKind::Call: mix(static_cast<std::size_t>(e.fn)); break;
    case ir::ExprKind::IntLit: mix(static_cast<std::size_t>(e.ival)); break;
    case ir::ExprKind::FloatLit: mix(std::hash<double>{}(e.fval)); break;
    default: break;
  }
  for (const auto& c : e.args) mix(shape_hash(c));
  return h;
}

std::int64_t extent_of(const analysis::StmtCtx& sc, const std::string& key) {
  for (const auto* l : sc.loops)
    if (l->var == key) return l->extent;
  return -1;
}

/// Occurrences of every statement, with their enclosing materialisable node.
void collect(Ctx& c) {
  for (std::size_t si = 0; si < c.stmts.size(); ++si) {
    const auto nodes = analysis::materialisable_nodes(*c.stmts[si].stmt);
    std::map<analysis::ExprPath, int> at;
    for (const auto& n : nodes) {
      Occ o;
      o.stmt = si;
      o.path = n.path;
      o.e = n.e;
      // The parent operator, looking through one group.
      analysis::ExprPath pp(n.path.begin(), n.path.end() - 1);
      if (pp.size() > 1) {
        const ir::Expr* pe = analysis::expr_at(*c.stmts[si].stmt, pp);
        if (pe && pe->kind == ir::ExprKind::Group) pp.pop_back();
      }
      auto it = at.find(pp);
      if (it != at.end()) o.parent = it->second;
      at[n.path] = static_cast<int>(c.occs.size());
      c.occs.push_back(std::move(o));
    }
  }
}

void group(Ctx& c) {
  std::map<std::size_t, std::vector<int>> buckets;  // hash -> class indices
  for (int k = 0; k < static_cast<int>(c.occs.size()); ++k) {
    Occ& o = c.occs[k];
    auto& b = buckets[shape_hash(*o.e)];
    for (int ci : b) {
      const Occ& rep = c.occs[c.classes[ci].occs[0]];
      analysis::KeyRenaming r;
      const auto& rs = c.stmts[rep.stmt];
      const auto& os = c.stmts[o.stmt];
      auto compatible = [&](const std::string& a, const std::string& bk) {
        const auto ea = extent_of(rs, a);
        return ea >= 0 && ea == extent_of(os, bk);
      };
      if (analysis::equal_up_to_keys(*rep.e, *o.e, r, compatible)) {
        o.cls = ci;
        o.ren = std::move(r);
        break;
      }
    }
    if (o.cls < 0) {
      o.cls = static_cast<int>(c.classes.size());
      c.classes.emplace_back();
      b.push_back(o.cls);
      for (const auto* l : c.stmts[o.stmt].loops) o.ren.bind(l->var, l->var);
    }
    c.classes[o.cls].occs.push_back(k);
  }
}

void legality(const ir::Task& t, Ctx& c, Class& cl) {
  const Occ& rep = c.occs[cl.occs[0]];
  const auto& rs = c.stmts[rep.stmt];
  cl.first_top = rs.nest[0];
  cl.last_top = cl.first_top;
  for (int k : cl.occs) {
    const Occ& o = c.occs[k];
    cl.last_top = std::max(cl.last_top, c.stmts[o.stmt].nest[0]);
    if (o.e->ty != rep.e->ty) return void(cl.why = "occurrences differ in static type");
  }
  std::set<std::string> reads;
  bool scoped = false;
  ir::visit_expr(*rep.e, [&](const ir::Expr& x) {
    if (!x.is_ref()) return;
    reads.insert(x.text);
    scoped = scoped || x.scope != ir::Scope::Global;
  });
  if (scoped) return void(cl.why = "reads an s/l buffer");
  for (std::uint32_t n = cl.first_top; n <= cl.last_top; ++n) {
    const auto nb = analysis::nest_buffers(t.program.nests[n]);
    for (const auto& x : reads)
      if (nb.written.count(x)) return void(cl.why = x + " is written by nest " + std::to_string(n));
  }
  for (const auto* l : rs.loops)
    if (ir::mentions_var(*rep.e, l->var)) {
      cl.loops.push_back(l);
      cl.numel *= l->extent;
      if (cl.numel > default_config().max_new_elements) return void(cl.why = "footprint above max_new_elements");
    }
  cl.legal = true;
}

Ctx analyse(const ir::Task& t) {
  Ctx c;
  c.typed = t;
  ir::analyze(c.typed);
  c.stmts = analysis::collect_stmts(c.typed.program);
  collect(c);
  group(c);
  for (auto& cl : c.classes)
    if (cl.occs.size() >= 2) legality(c.typed, c, cl);
  for (int ci = 0; ci < static_cast<int>(c.classes.size()); ++ci) {
    const Class& cl = c.classes[ci];
    if (!cl.legal) continue;
    // Maximality: every occurrence's parent in one other legal repeated class.
    int pc = -2;
    for (int k : cl.occs) {
      const int p = c.occs[k].parent;
      const int pcl = p < 0 ? -1 : c.occs[p].cls;
      if (pc == -2) pc = pcl;
      else if (pc != pcl) pc = -1;
    }
    if (pc >= 0 && c.classes[pc].legal) continue;
    c.sites.push_back(ci);
  }
  return c;
}

/// analyse(t), memoised per thread for the most recent task: apply re-derives the sites of the task it was
/// enumerated on. The Ctx owns its typed copy of the task, so its pointers stay valid while it is shared.
std::shared_ptr<const Ctx> analyse_cached(const ir::Task& t) {
  thread_local std::shared_ptr<const Ctx> last;
  if (last && last->typed.known == t.known && last->typed.program == t.program) return last;
  last = std::make_shared<const Ctx>(analyse(t));
  return last;
}

SiteRef ref_of(const Ctx& c, const Occ& o) {
  SiteRef r;
  r.nest = c.stmts[o.stmt].nest;
  r.stmt = c.stmts[o.stmt].item;
  r.expr = o.path;
  return r;
}

}  // namespace

std::vector<Site> enumerate_common_subexpression_elimination(const ir::Task& t) {
  const auto cp = analyse_cached(t);
  const Ctx& c = *cp;
  std::vector<Site> out;
  for (int ci : c.sites) out.push_back(Site{ref_of(c, c.occs[c.classes[ci].occs[0]]), no_params()});
  return out;
}

Applied apply_common_subexpression_elimination(const ir::Task& t, const Candidate& cand) {
  const StrategyInfo& info = info_of("common_subexpression_elimination");
  if (cand.strategy != info.name) throw_bad_params(cand.id());
  if (!cand.params.empty()) throw_bad_params(cand.id() + " takes no parameters");
  const auto cp = analyse_cached(t);
  const Ctx& c = *cp;
  const Class* cl = nullptr;
  for (int ci : c.sites)
    if (ref_of(c, c.occs[c.classes[ci].occs[0]]) == cand.ref) cl = &c.classes[ci];
  if (!cl) {
    const ir::Nest* n = analysis::nest_at(t.program, cand.ref.nest);
    const ir::Item* it = n && cand.ref.stmt && *cand.ref.stmt < n->body.size() ? &n->body[*cand.ref.stmt] : nullptr;
    const ir::Expr* e = it && it->is_stmt() ? analysis::expr_at(it->stmt(), cand.ref.expr) : nullptr;
    throw_stale(cand.id() + ": " + (e ? ir::print_expr(*e) : std::string("no expression there")) +
                " is not a maximal repeated sub-expression of this task");
  }
  const Occ& rep = c.occs[cl->occs[0]];
  const ir::DType fdt = rep.e->ty;

  analysis::NameAllocator names(t);
  const std::string fname = names.tensor();
  std::vector<ir::Loop> site_loops;
  std::vector<std::int64_t> shape;
  for (const auto* l : cl->loops) {
    site_loops.push_back(*l);
    shape.push_back(l->extent);
  }
  auto fref_for = [&](const Occ& o) {
    std::vector<ir::Expr> sub;
    for (const auto* l : cl->loops) sub.push_back(ir::make_var(o.ren.to_second.at(l->var)));
    return ir::make_ref(fname, fdt, ir::Scope::Global, std::move(sub));
  };
  std::map<std::string, std::string> renamed;
  ir::Nest nest = analysis::materialise_nest(fref_for(rep), *rep.e, site_loops, &renamed);

  ir::Task after = t;
  nlohmann::json occs = nlohmann::json::array();
  bool exact = true;
  for (int k : cl->occs) {
    const Occ& o = c.occs[k];
    const auto& sc = c.stmts[o.stmt];
    ir::Stmt& s = analysis::nest_at(after.program, sc.nest)->body[sc.item].stmt();
    const ir::Expr fr = fref_for(o);
    analysis::replace_node(s, o.path, fr);
    exact = exact && fdt == ir::float_type_for(analysis::effective_dtype(t, sc.stmt->lhs));
    nlohmann::json km = nlohmann::json::object();
    for (const auto* l : cl->loops) km[l->var] = o.ren.to_second.at(l->var);
    occs.push_back({{"nest", sc.nest}, {"statement", sc.item}, {"path", o.path},
                    {"printed", ir::print_expr(*o.e)}, {"key_map", km}, {"read", ir::print_expr(fr)}});
  }
  after.program.nests.insert(after.program.nests.begin() + cl->first_top, std::move(nest));

  Facts f(info, cand);
  f.site_nest(t.program, cand.ref.nest);
  f.site_stmt(*c.stmts[rep.stmt].stmt);
  f.set("subexpr", {{"printed", ir::print_expr(*rep.e)}, {"path", rep.path}});
  f.set("occurrences", occs);
  f.set("insertion_point", cl->first_top);
  f.set("new_buffer", {{"name", fname}, {"subscript", ir::print_expr(fref_for(rep))}, {"shape", shape},
                       {"dtype", std::string(ir::dtype_name(fdt))}});
  f.set("new_nest", ir::print_nest(after.program.nests[cl->first_top]));
  if (!renamed.empty()) f.set("binding", {{"renamed", renamed}});
  f.set("intervening_writes", {{"nests", {cl->first_top, cl->last_top}}, {"writes_to_operands", "none"}});
  f.cost("elements_added", cl->numel);
  f.cost("bytes_added", cl->numel * static_cast<std::int64_t>(ir::dtype_bytes(fdt)));
  f.legality("occurrences outside lazy branches, without their accumulator", "structural", true,
             std::to_string(cl->occs.size()) + " occurrences");
  f.legality("value preservation from the insertion point to the last occurrence (B11)", "structural", true,
             "nests " + std::to_string(cl->first_top) + ".." + std::to_string(cl->last_top) +
                 " write no buffer the expression reads");
  f.legality("footprint", "structural", true,
             std::to_string(cl->numel) + " <= max_new_elements " + std::to_string(default_config().max_new_elements));
  return finish(t, std::move(after), std::move(f), exact ? Exactness::Exact : Exactness::Reassoc, &names);
}

STEPTP_REGISTER_STRATEGY(common_subexpression_elimination, 6, Graph,
                         "Compute a repeated sub-expression once, into a fresh intermediate "
                         "placed before its first use, and read that intermediate at every "
                         "occurrence.",
                         enumerate_common_subexpression_elimination, apply_common_subexpression_elimination);

}  // namespace steptp::strategy::graph
