// expression_splitting (STRATEGIES.md §11 entry 3): materialise one sub-expression e of a statement in a fresh
// intermediate F, computed by a new top-level nest placed just before the statement's top-level nest, and read F
// in place of every structurally identical sub-tree of the statement's right-hand side.
// Site: e is an AST node of the right-hand side (B10), found in pre-order: an operator node (binary, call, unary
// minus; parentheses are looked through: a replaced node's enclosing group is replaced with it), not the whole
// right-hand side, not inside a lazy branch of if_then_else (§7.4) nor inside a subscript, not a constant, of a
// float static type; it does not read the statement's output, any buffer written by the statement's top-level
// nest (value preservation, §7.4: F is computed before that nest runs) or any s/l buffer (scope confinement).
// F is indexed by the enclosing loop keys that e mentions (subscripts and values), in header order; its header
// follows §7.5 (analysis/binding.hpp) and its size is bounded by max_new_elements (§7.4).
// F's dtype is e's static type (LEIR.md §7.3). Class E when that equals the float type in which the statement
// evaluates its float constants (F of §7.3), otherwise R: e's float constants are then rounded differently.
// One candidate per structurally distinct e, at its first (pre-order) occurrence. Fresh name: F.
#include <set>

#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/config.hpp"
#include "ir/typing.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/subexpr.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::graph {
namespace {

struct Ctx {
  ir::Task typed;                         // analyze()d copy (static types)
  std::vector<analysis::StmtCtx> stmts;   // of typed.program
};

struct Plan {
  std::string why;                        // "" when legal
  const ir::Expr* e = nullptr;            // in ctx.typed
  std::vector<const ir::Loop*> loops;     // enclosing loops whose keys e mentions, header order
  std::int64_t numel = 1;
};

Plan plan(const ir::Task& t, const analysis::StmtCtx& sc, const ir::Expr& e) {
  Plan p;
  p.e = &e;
  const ir::Stmt& s = *sc.stmt;
  auto nb = analysis::nest_buffers(t.program.nests[sc.nest[0]]);
  bool bad_read = false;
  std::string which;
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (!x.is_ref() || bad_read) return;
    if (x.text == s.lhs.text) bad_read = true, which = "contains the statement's output " + x.text;
    else if (nb.written.count(x.text)) bad_read = true, which = "reads " + x.text + ", written by the statement's nest";
    else if (x.scope != ir::Scope::Global) bad_read = true, which = "reads the s/l buffer " + x.text;
  });
  if (bad_read) {
    p.why = which;
    return p;
  }
  for (const auto* l : sc.loops)
    if (ir::mentions_var(e, l->var)) {
      p.loops.push_back(l);
      p.numel *= l->extent;
      if (p.numel > default_config().max_new_elements) {
        p.why = "footprint above max_new_elements";
        return p;
      }
    }
  return p;
}

/// Site candidates of one statement, in pre-order, structurally distinct, each with its plan.
std::vector<std::pair<analysis::SubexprNode, Plan>> stmt_sites(const ir::Task& typed, const analysis::StmtCtx& sc) {
  std::vector<std::pair<analysis::SubexprNode, Plan>> out;
  std::vector<const ir::Expr*> seen;
  for (auto& c : analysis::materialisable_nodes(*sc.stmt)) {
    bool dup = false;
    for (const auto* s : seen) dup = dup || *s == *c.e;
    if (dup) continue;
    seen.push_back(c.e);
    Plan p = plan(typed, sc, *c.e);
    if (p.why.empty()) out.emplace_back(std::move(c), std::move(p));
  }
  return out;
}

Ctx make_ctx(const ir::Task& t) {
  Ctx c;
  c.typed = t;
  ir::analyze(c.typed);
  c.stmts = analysis::collect_stmts(c.typed.program);
  return c;
}

ir::DType eval_float_type(const ir::Task& t, const ir::Expr& lhs) {
  return ir::float_type_for(analysis::effective_dtype(t, lhs));
}

}  // namespace

std::vector<Site> enumerate_expression_splitting(const ir::Task& t) {
  Ctx ctx = make_ctx(t);
  std::vector<Site> out;
  for (const auto& sc : ctx.stmts)
    for (const auto& [c, p] : stmt_sites(ctx.typed, sc)) {
      SiteRef ref;
      ref.nest = sc.nest;
      ref.stmt = sc.item;
      ref.expr = c.path;
      out.push_back(Site{ref, no_params()});
    }
  return out;
}

Applied apply_expression_splitting(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("expression_splitting");
  if (c.strategy != info.name) throw_bad_params(c.id());
  if (!c.params.empty()) throw_bad_params(c.id() + " takes no parameters");
  Ctx ctx = make_ctx(t);
  const analysis::StmtCtx* sc = nullptr;
  for (const auto& s : ctx.stmts)
    if (c.ref.stmt && s.nest == c.ref.nest && s.item == *c.ref.stmt) sc = &s;
  if (!sc) throw_stale(c.id() + ": no statement there");
  std::optional<Plan> found;
  for (auto& [cand, p] : stmt_sites(ctx.typed, *sc))
    if (cand.path == c.ref.expr) found = std::move(p);
  if (!found) throw_stale(c.id() + ": no splittable sub-expression at that path of " + ir::print_stmt(*sc->stmt));
  const Plan& p = *found;
  const ir::Expr& e = *p.e;
  const std::uint32_t top = sc->nest[0];

  analysis::NameAllocator names(t);
  const std::string fname = names.tensor();
  const ir::DType fdt = e.ty;
  std::vector<ir::Loop> site_loops;
  std::vector<ir::Expr> sub;
  std::vector<std::int64_t> shape;
  for (const auto* l : p.loops) {
    site_loops.push_back(*l);
    sub.push_back(ir::make_var(l->var));
    shape.push_back(l->extent);
  }
  const ir::Expr fref = ir::make_ref(fname, fdt, ir::Scope::Global, sub);

  std::map<std::string, std::string> renamed;
  ir::Nest nest = analysis::materialise_nest(fref, e, site_loops, &renamed);

  // The rewritten statement: every structurally identical sub-tree of the RHS.
  ir::Task after = t;
  ir::Stmt* target = nullptr;
  {
    ir::Nest* n = analysis::nest_at(after.program, sc->nest);
    target = &n->body[sc->item].stmt();
  }
  const int occ = analysis::replace_all_equal(target->rhs, e, fref);
  after.program.nests.insert(after.program.nests.begin() + top, std::move(nest));

  const ir::DType ef = eval_float_type(t, sc->stmt->lhs);
  const Exactness cls = fdt == ef ? Exactness::Exact : Exactness::Reassoc;
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(*sc->stmt);
  f.set("subexpr", {{"printed", ir::print_expr(e)}, {"path", c.ref.expr}});
  f.set("occurrences", occ);
  f.set("new_buffer", {{"name", fname}, {"subscript", ir::print_expr(fref)}, {"shape", shape},
                       {"dtype", std::string(ir::dtype_name(fdt))}});
  f.set("new_nest", {{"index", top}, {"printed", ir::print_nest(after.program.nests[top])}});
  if (!renamed.empty()) f.set("binding", {{"renamed", renamed}});
  f.set("dtype_check", std::string("new buffer ") + std::string(ir::dtype_name(fdt)) + ", statement evaluates in " +
                           std::string(ir::dtype_name(ef)));
  f.cost("elements_added", p.numel);
  f.cost("bytes_added", p.numel * static_cast<std::int64_t>(ir::dtype_bytes(fdt)));
  f.legality("sub-expression outside lazy branches, without the output", "structural", true);
  f.legality("value preservation", "structural", true,
             "the sub-expression reads no buffer written by nest " + std::to_string(top));
  f.legality("footprint", "structural", true,
             std::to_string(p.numel) + " <= max_new_elements " + std::to_string(default_config().max_new_elements));
  return finish(t, std::move(after), std::move(f), cls, &names);
}

STEPTP_REGISTER_STRATEGY(expression_splitting, 3, Graph,
                         "Materialise one sub-expression of a statement in a fresh intermediate, "
                         "computed by a new nest just before the statement's nest, and read the "
                         "intermediate in its place.",
                         enumerate_expression_splitting, apply_expression_splitting);

}  // namespace steptp::strategy::graph
