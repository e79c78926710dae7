// layout_transformation (STRATEGIES.md §11 entry 19): copy one operand X into a fresh buffer N indexed by a layout
// map L of its subscript (layout_map.hpp), in a helper nest placed just before the site nest, and read N instead.
// Site: top-level nest i. Candidate accesses: distinct reads X_s (first occurrence order) with rank >= 1 that occur
// outside every lazy branch, whose entries contain no buffer reference and use only header keys of nest i, where X
// is not written in nest i. Every statement of the nest runs at every header point, so the unguarded occurrence
// reads X_s at every point of the box of s's keys: the copy evaluates nothing new, and every structurally equal
// access of the nest (lazy ones included) can read N_{L(s)}.
// Entry extents are the sizes of the entries' static ranges over the header box (§7.3); L is injective on them.
// Helper nest: `N_{L(s)} = X_s` over the header loops whose keys s uses, bound by the §7.5 rule. Rejected when the
// helper would break the nest invariants (e.g. a bound loop whose iterations write one element of N) or N's
// accesses would lose an exact static range. Params: (access, variant, detail), accesses in order, then the
// layout_map order. Fresh name: N. Class E.
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/loop/loop_util.hpp"
#include "strategies/memory/layout_map.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {
namespace {

struct Operand {
  ir::Expr ref;                       // X_s
  std::string text;                   // printed
  std::vector<std::int64_t> extents;  // entry range sizes
};

std::vector<Operand> operands(const ir::Task& t, std::uint32_t i) {
  const ir::Nest& n = t.program.nests[i];
  const auto written = analysis::nest_buffers(n).written;
  std::vector<const ir::Loop*> header;
  for (const auto& l : n.loops) header.push_back(&l);
  const ir::LoopBox box = ir::make_loop_box(header);
  std::vector<Operand> out;
  for (const auto& sc : analysis::collect_stmts(n, {i}))
    for (const auto& a : analysis::stmt_accesses(*sc.stmt)) {
      const ir::Expr& r = *a.ref;
      if (a.write || a.lazy || r.args.empty() || written.count(r.text) || analysis::has_gather(r)) continue;
      bool dup = false;
      for (const auto& o : out) dup = dup || o.ref == r;
      if (dup) continue;
      Operand o{r, ir::print_expr(r), {}};
      bool ok = true;
      for (const auto& e : r.args) {
        for (const auto* l : sc.loops)
          if (ir::mentions_var(e, l->var) && !ir::find_axis(box, l->var)) ok = false;
        auto rg = ir::index_range(e, box);
        if (!rg.exact()) ok = false;
        o.extents.push_back(rg.hi - rg.lo + 1);
      }
      if (ok) out.push_back(std::move(o));
    }
  return out;
}

struct Built {
  ir::Task after;
  std::string name;
  ir::Nest copy;
  std::vector<ir::Expr> new_entries;
  std::vector<std::int64_t> shape;
  std::string why;
  bool invariants_broken = false;  // why is nest_invariants_broken's verdict
};

// `check_invariants` false skips nest_invariants_broken: its verdict on the copy nest does not depend on the map
// (an injective L keeps which iterations write the same element of N, and N is global), so enumeration computes it
// once per operand.
Built build(const ir::Task& t, std::uint32_t i, const Operand& o, const LayoutMap& m, analysis::NameAllocator& names,
            bool check_invariants = true) {
  Built b;
  const ir::Nest& n = t.program.nests[i];
  b.name = names.tensor();
  b.new_entries = apply_layout(m, o.ref.args, o.extents);
  const ir::Expr nref = ir::make_ref(b.name, analysis::effective_dtype(t, o.ref), ir::Scope::Global, b.new_entries);
  std::vector<ir::Loop> used;
  for (const auto& l : n.loops)
    if (ir::mentions_var(o.ref, l.var)) used.push_back(l);
  auto hh = analysis::helper_header(used);
  ir::Stmt st;
  st.lhs = nref;
  st.rhs = o.ref;
  b.copy.loops = used;
  b.copy.body.push_back(ir::Item{st});
  for (const auto& [from, to] : hh.renamed) analysis::rename_key(b.copy, from, to);
  b.copy.loops = hh.loops;

  b.after = t;
  auto& nests = b.after.program.nests;
  analysis::replace_equal(nests[i], o.ref, nref, false);
  nests.insert(nests.begin() + i, b.copy);
  if (check_invariants) b.why = loop::nest_invariants_broken(b.after.program, i);
  b.invariants_broken = !b.why.empty();
  if (b.invariants_broken) return b;
  b.shape = checked_shape(b.after.program, b.name, &b.why);
  if (b.shape.empty()) return b;
  std::int64_t numel = 1;
  for (auto x : b.shape) numel *= x;
  if (numel > default_config().max_new_elements) b.why = "footprint above max_new_elements";
  return b;
}

Params without_access(const Params& ps) {
  Params out;
  for (const auto& p : ps)
    if (p.name != "access") out.push_back(p);
  return out;
}

// The shape of N under map m, from the entry ranges of L(s) over the site header's box: the copy writes N_{L(s)}
// and every read is N_{L(s)} with the same s over the same header keys, so checked_shape of the built program
// reduces to this (empty when an entry has no exact range or leaves [0, 2^31)).
std::vector<std::int64_t> mapped_shape(const Operand& o, const LayoutMap& m, const ir::LoopBox& box) {
  std::vector<std::int64_t> shape;
  for (const auto& e : apply_layout(m, o.ref.args, o.extents)) {
    const auto r = ir::index_range(e, box);
    if (!r.exact() || r.lo < 0 || r.hi >= (std::int64_t{1} << 31) - 1) return {};
    shape.push_back(r.hi + 1);
  }
  return shape;
}

std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  if (path.size() != 1) return {};
  const std::uint32_t i = path[0];
  std::vector<const ir::Loop*> header;
  for (const auto& l : t.program.nests[i].loops) header.push_back(&l);
  const ir::LoopBox box = ir::make_loop_box(header);
  std::vector<Params> ps;
  for (const auto& o : operands(t, i)) {
    if (only && param_str(*only, "access") != o.text) continue;  // re-check of one candidate: its operand only
    ParamSpace sp = layout_params(o.extents);
    if (sp.size() == 0) continue;
    {
      // nest_invariants_broken's verdict on the copy nest does not depend on the map (an injective L keeps which
      // iterations write the same element of N, and N is global): decide it once per operand, on the first map,
      // so that the re-check of any candidate asks isl the same (memoised) question.
      analysis::NameAllocator names(t);
      if (build(t, i, o, layout_from_params(sp.at(0), o.extents), names).invariants_broken) continue;
    }
    for (std::uint64_t k = 0; k < sp.size(); ++k) {
      Params p = sp.at(k);
      if (only && without_access(only->params) != p) continue;
      const LayoutMap m = layout_from_params(p, o.extents);
      const auto shape = mapped_shape(o, m, box);
      if (shape.empty()) continue;
      std::int64_t numel = 1;
      bool fits = true;
      for (auto x : shape) {
        fits = fits && (x == 0 || numel <= default_config().max_new_elements / x);
        if (fits) numel *= x;
      }
      if (!fits || numel > default_config().max_new_elements) continue;
      p.insert(p.begin(), Param{"access", o.text});
      ps.push_back(std::move(p));
    }
  }
  if (ps.empty()) return {};
  SiteRef ref;
  ref.nest = path;
  return {Site{ref, list_params(std::move(ps))}};
}

}  // namespace

std::vector<Site> enumerate_layout_transformation(const ir::Task& t) { return enumerate_by_nest(t, nest_sites); }

Applied apply_layout_transformation(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("layout_transformation");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const std::uint32_t i = c.ref.nest[0];
  const std::string access = param_str(c, "access");
  Operand op;
  for (const auto& o : operands(t, i))
    if (o.text == access) op = o;
  const LayoutMap m = layout_from_params(without_access(c.params), op.extents);
  analysis::NameAllocator names(t);
  Built b = build(t, i, op, m, names, /*check_invariants=*/false);  // recheck_nest has just checked them
  std::int64_t numel = 1;
  for (auto x : b.shape) numel *= x;
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("access", access);
  f.set("variant", m.variant);
  f.set("map", layout_json(m, op.ref.args, b.new_entries));
  f.set("entry_extents", op.extents);
  f.set("new_buffer", {{"name", b.name}, {"shape", b.shape}});
  f.set("copy_nest", ir::print_nest(b.copy));
  f.legality("map injective on the entry ranges", "structural", true, m.variant);
  f.legality("operand not written in the nest and read outside lazy branches", "structural", true, access);
  f.cost("elements_added", numel);
  f.cost("bytes_added", numel * ir::dtype_bytes(analysis::effective_dtype(t, op.ref)));
  return finish(t, std::move(b.after), std::move(f), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(layout_transformation, 19, Memory,
                         "Give one operand a new memory layout by copying it into a fresh buffer "
                         "indexed in the new order or shape, and read the copy instead.",
                         enumerate_layout_transformation, apply_layout_transformation);

}  // namespace steptp::strategy::memory
