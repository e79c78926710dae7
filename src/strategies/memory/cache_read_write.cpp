// cache_read_write (STRATEGIES.md §11 entry 18): stage one operand through a fresh l/s buffer Y filled inside the
// nest before use (read), or compute one output into Y and copy it back afterwards (write). The cache is nested
// under the first d header loops, so Y stays confined (§7.4, B9).
// Site: a statement directly in the body of top-level nest i; its loops are the header. Params (variant, access,
// scope, d): variants read then write; accesses in pre-order; scope l then s; d ascending. For every d, the first d
// loops hold every B loop of the header and at least one (so Y can be confined), and some loop after them appears
// in the cached subscript s.
//  read: X_s is not in a lazy branch, has no gather entry, X is not written in the nest. The nest becomes
//        outer[ inner_s[ Y_s = X_s; ]; inner[ body with every X_s replaced by Y_s ]; ] where inner_s are the inner
//        loops s uses (kind L). The site statement reads X_s at every point, so the copy evaluates nothing new.
//  write: O_s is the statement's LHS, O has scope g and is written by no other statement of the nest, every access
//        to O in the nest uses s, other statements access O only after the writer (text order), the writer reads O
//        only as the accumulator of an implicit-init reduction (a continuing accumulator would lose its earlier
//        contents in a fresh Y), and every reduction key is an inner loop. The nest becomes
//        outer[ inner[ body with every O_s replaced by Y_s ]; inner_s[ O_s = Y_s; ]; ].
// Every candidate must keep Y confined and the nest invariants: by the structural proof of structurally_safe when it
// applies, else by isl (loop::nest_invariants_broken, which includes confined(Y, scope), value-based flow). Y's dtype
// is the cached buffer's effective dtype; its shape is inferred from s. Fresh name: Y. Class E.
#include <set>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "ir/ranges.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/loop/loop_util.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {
namespace {

struct Access {
  std::string variant;  // "read" / "write"
  ir::Expr ref;
  std::string text;
};

/// Cacheable accesses of statement k (a direct body statement of nest i), in order: reads, then the write.
std::vector<Access> accesses(const ir::Task& t, std::uint32_t i, std::uint32_t k) {
  const ir::Nest& n = t.program.nests[i];
  const ir::Stmt& st = n.body[k].stmt();
  const auto nb = analysis::nest_buffers(n);
  std::vector<Access> out;
  for (const auto& a : analysis::stmt_accesses(st)) {
    if (a.write || a.lazy || a.ref->args.empty() || nb.written.count(a.buffer()) || analysis::has_gather(*a.ref))
      continue;
    bool dup = false;
    for (const auto& o : out) dup = dup || o.ref == *a.ref;
    if (!dup) out.push_back(Access{"read", *a.ref, ir::print_expr(*a.ref)});
  }
  const ir::Expr& o = st.lhs;
  if (o.args.empty() || o.scope != ir::Scope::Global) return out;
  const auto stmts = analysis::collect_stmts(n, {i});
  bool seen_writer = false, ok = true;
  for (const auto& sc : stmts) {
    const bool writer = sc.stmt == &st;
    if (!writer && sc.stmt->lhs.text == o.text) ok = false;
    for (const auto& a : analysis::stmt_accesses(*sc.stmt)) {
      if (a.buffer() != o.text) continue;
      if (!(a.ref->args == o.args)) ok = false;
      if (!writer && !seen_writer) ok = false;
    }
    seen_writer = seen_writer || writer;
  }
  bool reads_o = false;
  ir::visit_expr(st.rhs, [&](const ir::Expr& x) { reads_o = reads_o || x.is_ref(o.text); });
  if (reads_o) {
    std::optional<analysis::Reduction> red;
    for (const auto& sc : stmts)
      if (sc.stmt == &st) red = analysis::match_reduction(t.program, sc);
    if (!red || !red->implicit_init) ok = false;
  }
  if (ok) out.push_back(Access{"write", o, ir::print_expr(o)});
  return out;
}

struct Built {
  ir::Task after;
  std::string name;
  ir::Nest helper;                                   // the copy (read) or write-back (write) nest
  std::vector<std::int64_t> shape;
  std::string method;                                // how confinement and the invariants were shown
  std::string why;
};

bool has_b_loop(const ir::Nest& n) {
  for (const auto& l : n.loops)
    if (l.kind == ir::LoopKind::B) return true;
  for (const auto& it : n.body)
    if (it.is_nest() && has_b_loop(it.nest())) return true;
  return false;
}

/// Structural proof of confinement and of the nest invariants, used instead of isl when it applies. With every
/// header B loop outer (depth rule) and no B loop in the original body's nested nests, every read of Y reads an
/// element that the copy (read) or the writer (write; at the point with the reduction keys zeroed, which comes
/// first) wrote earlier in the same iteration of the outer loops, and nothing else writes Y: Y is confined for l
/// and s. The original statements keep their accesses up to the renaming of one buffer, so their dependences and
/// loop kinds are unchanged; the only new conflicts could be on Y (and O for write-back) across iterations of an
/// outer non-reducing P/V/B loop x, which a plain entry x in s excludes. Otherwise the isl path decides.
bool structurally_safe(const ir::Nest& before, const ir::Nest& after, const ir::Expr& s, std::size_t d) {
  for (const auto& it : before.body)
    if (it.is_nest() && has_b_loop(it.nest())) return false;
  for (std::size_t j = 0; j < d; ++j) {
    const ir::Loop& l = before.loops[j];
    if (l.kind == ir::LoopKind::L || l.kind == ir::LoopKind::U || l.extent <= 1) continue;
    if (ir::is_reducing_loop(after, l.var)) continue;
    bool plain = false;
    for (const auto& e : s.args) plain = plain || (e.kind == ir::ExprKind::Var && e.text == l.var);
    if (!plain) return false;
  }
  return true;
}

/// The rewrite of one candidate. With `need_program` false (enumeration) the new task is built only when the isl
/// path needs it; `after` is then empty.
Built build(const ir::Task& t, std::uint32_t i, const Access& acc, ir::Scope scope, std::size_t d,
            analysis::NameAllocator& names, bool need_program = true) {
  Built b;
  const ir::Nest& n = t.program.nests[i];
  b.name = names.tensor();
  const ir::Expr y = ir::make_ref(b.name, analysis::effective_dtype(t, acc.ref), scope, acc.ref.args);
  std::vector<ir::Loop> outer(n.loops.begin(), n.loops.begin() + d), inner(n.loops.begin() + d, n.loops.end());
  b.helper.loops.clear();
  for (const auto& l : inner)
    if (ir::mentions_var(acc.ref, l.var)) b.helper.loops.push_back(ir::Loop{ir::LoopKind::L, l.extent, l.var, 0});
  ir::Stmt st;
  ir::Nest rest;
  rest.loops = inner;
  rest.body = n.body;
  ir::Nest top;
  top.loops = outer;
  if (acc.variant == "read") {
    st.lhs = y;
    st.rhs = acc.ref;
    b.helper.body.push_back(ir::Item{st});
    analysis::replace_equal(rest, acc.ref, y, false);
    top.body.push_back(ir::Item{b.helper});
    top.body.push_back(ir::Item{rest});
  } else {
    st.lhs = acc.ref;
    st.rhs = y;
    b.helper.body.push_back(ir::Item{st});
    analysis::replace_equal(rest, acc.ref, y, true);
    top.body.push_back(ir::Item{rest});
    top.body.push_back(ir::Item{b.helper});
  }
  b.method = structurally_safe(n, top, acc.ref, d) ? "structural" : "isl";
  if (need_program || b.method == "isl") {
    b.after = t;
    b.after.program.nests[i] = std::move(top);
  }
  if (b.method == "isl") {
    // nest_invariants_broken includes scopes_confined, i.e. confined(Y, scope) (value-based flow).
    b.why = loop::nest_invariants_broken(b.after.program, i);
    if (!b.why.empty()) return b;
  }
  std::vector<const ir::Loop*> lp;
  for (const auto& l : n.loops) lp.push_back(&l);
  const ir::LoopBox box = ir::make_loop_box(lp);
  std::int64_t numel = 1;
  for (const auto& e : acc.ref.args) {
    auto r = ir::index_range(e, box);
    if (!r.exact()) {
      b.why = "no exact range";
      return b;
    }
    b.shape.push_back(r.hi + 1);
    numel *= r.hi + 1;
  }
  if (numel > default_config().max_new_elements) b.why = "footprint above max_new_elements";
  return b;
}

/// Legal depths for an access: the first d loops hold every B loop of the header (and at least one), some later
/// loop appears in s, and (write) every reduction key is after them.
std::vector<std::size_t> depths(const ir::Task& t, std::uint32_t i, std::uint32_t k, const Access& acc) {
  const ir::Nest& n = t.program.nests[i];
  std::size_t dmin = 0;
  for (std::size_t j = 0; j < n.loops.size(); ++j)
    if (n.loops[j].kind == ir::LoopKind::B) dmin = j + 1;
  std::vector<std::size_t> out;
  if (dmin == 0) return out;
  std::set<std::string> red;
  if (acc.variant == "write") {
    const ir::Stmt& st = n.body[k].stmt();
    for (const auto& l : n.loops)
      if (!ir::mentions_var(st.lhs, l.var) && ir::mentions_var(st.rhs, l.var)) red.insert(l.var);
  }
  for (std::size_t d = dmin; d < n.loops.size(); ++d) {
    bool used = false, red_outer = false;
    for (std::size_t j = d; j < n.loops.size(); ++j) used = used || ir::mentions_var(acc.ref, n.loops[j].var);
    for (std::size_t j = 0; j < d; ++j) red_outer = red_outer || red.count(n.loops[j].var);
    if (used && !red_outer) out.push_back(d);
  }
  return out;
}

ir::Scope scope_of(const std::string& s) { return s == "s" ? ir::Scope::Shared : ir::Scope::Local; }

/// Sites of top-level nest path[0]: its direct body statements, in order.
std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  if (path.size() != 1) return {};
  const std::uint32_t i = path[0];
  const ir::Nest& n = t.program.nests[i];
  std::vector<Site> out;
  const analysis::NameAllocator fresh(t);  // copied per candidate: each build takes the same first fresh name
  for (std::uint32_t k = 0; k < n.body.size(); ++k) {
    if (!n.body[k].is_stmt() || (only && only->ref.stmt != k)) continue;
    std::vector<Params> ps;
    for (const auto& acc : accesses(t, i, k))
      for (const char* sc : {"l", "s"})
        for (std::size_t d : depths(t, i, k, acc)) {
          Params p{Param{"variant", acc.variant}, Param{"access", acc.text}, Param{"scope", sc},
                   Param{"d", static_cast<std::int64_t>(d)}};
          if (!probe_params(only, p)) continue;
          analysis::NameAllocator names = fresh;
          if (!build(t, i, acc, scope_of(sc), d, names, /*need_program=*/false).why.empty()) continue;
          ps.push_back(std::move(p));
        }
    if (ps.empty()) continue;
    SiteRef ref;
    ref.nest = path;
    ref.stmt = k;
    out.push_back(Site{ref, list_params(std::move(ps))});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_cache_read_write(const ir::Task& t) { return enumerate_by_nest(t, nest_sites); }

Applied apply_cache_read_write(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("cache_read_write");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const std::uint32_t i = c.ref.nest[0];
  const std::uint32_t k = *c.ref.stmt;
  const std::string variant = param_str(c, "variant");
  const std::string access = param_str(c, "access");
  const std::string scope = param_str(c, "scope");
  const auto d = static_cast<std::size_t>(param_int(c, "d"));
  Access acc;
  for (const auto& a : accesses(t, i, k))
    if (a.variant == variant && a.text == access) acc = a;
  analysis::NameAllocator names(t);
  Built b = build(t, i, acc, scope_of(scope), d, names);
  std::int64_t numel = 1;
  for (auto x : b.shape) numel *= x;
  const ir::Nest& n = t.program.nests[i];
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(n.body[k].stmt());
  f.set("variant", variant);
  f.set("access", access);
  f.set("cache_buffer", {{"name", b.name}, {"scope", scope}, {"shape", b.shape}});
  f.set("attach_depth", d);
  std::string outer;
  for (std::size_t j = 0; j < d; ++j) outer += ir::print_loop(n.loops[j]);
  f.set("outer_loops", outer);
  f.set("copied_region", {{"helper", ir::print_nest(b.helper)}, {"shape", b.shape}});
  f.legality("confined(" + b.name + ", " + scope + ")", b.method, true,
             "the cache is read only in the iteration of the first " + std::to_string(d) + " loops that fills it");
  f.legality("nest invariants (parallel loops, scope confinement)", b.method, true);
  f.cost("elements_added", numel);
  f.cost("bytes_added", numel * ir::dtype_bytes(analysis::effective_dtype(t, acc.ref)));
  return finish(t, std::move(b.after), std::move(f), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(cache_read_write, 18, Memory,
                         "Stage one input through a fresh shared or local buffer that is filled "
                         "inside the nest before use (cache read), or compute one output into "
                         "such a buffer and copy it back afterwards (cache write).",
                         enumerate_cache_read_write, apply_cache_read_write);

}  // namespace steptp::strategy::memory
