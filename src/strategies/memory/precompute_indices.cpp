// precompute_indices (STRATEGIES.md §11 entry 22): precompute one compound subscript entry e into an i64 lookup
// table Idx^{i64,g}_{K} = e, computed by a helper nest just before the site nest (§7.5 binding rule), and replace
// every structurally equal entry of a read subscript in the nest by Idx^{i64,g}_{K}.
// Site: a distinct entry e of a read access in top-level nest i (first occurrence order): not a plain key, not
// constant (it uses a key), no buffer reference, only header keys of nest i (K = those keys in header order), and
// at least one occurrence outside every lazy branch, so that e is evaluated at every point of K's box already
// (§7.4 lazy-branch rule). Entries of write subscripts are never replaced (a gather there is E206). The site is
// addressed by e's first occurrence (nest path, statement, expression path). Fresh name: the table. Class E (e is
// computed in i64 either way: keys are i64, LEIR.md §7.3).
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {
namespace {

struct Entry {
  ir::Expr e;
  SiteRef ref;                   // first occurrence
  std::vector<ir::Loop> keys;    // header loops e uses, header order
  bool unguarded = false;
};

bool has_ref(const ir::Expr& e) {
  bool r = false;
  ir::visit_expr(e, [&](const ir::Expr& x) { r = r || x.is_ref(); });
  return r;
}

/// Every read-subscript entry position of a statement: (path of the entry, lazy). The statement's own accumulator
/// read (a read equal to its LHS) is skipped: a gather there would break the LHS match of LEIR.md §8.4 rule 4 and
/// drop the initialiser.
void entry_paths(const ir::Expr& e, const ir::Expr& lhs, std::vector<std::uint32_t>& cur, bool lazy,
                 std::vector<std::pair<std::vector<std::uint32_t>, bool>>& out) {
  if (e.is_ref() && e == lhs) return;
  if (e.is_ref())
    for (std::uint32_t k = 0; k < e.args.size(); ++k) {
      cur.push_back(k);
      out.emplace_back(cur, lazy);
      entry_paths(e.args[k], lhs, cur, lazy, out);
      cur.pop_back();
    }
  else
    for (std::uint32_t k = 0; k < e.args.size(); ++k) {
      cur.push_back(k);
      const bool l = lazy || (e.kind == ir::ExprKind::Call && e.fn == ir::Func::IfThenElse && k > 0);
      entry_paths(e.args[k], lhs, cur, l, out);
      cur.pop_back();
    }
}

std::vector<Entry> entries(const ir::Task& t, std::uint32_t i) {
  const ir::Nest& n = t.program.nests[i];
  std::vector<Entry> out;
  for (const auto& sc : analysis::collect_stmts(n, {i})) {
    std::vector<std::pair<std::vector<std::uint32_t>, bool>> paths;
    std::vector<std::uint32_t> cur{1};
    entry_paths(sc.stmt->rhs, sc.stmt->lhs, cur, false, paths);
    for (const auto& [path, lazy] : paths) {
      const ir::Expr& e = *analysis::expr_at(*sc.stmt, path);
      if (e.kind == ir::ExprKind::Var || has_ref(e)) continue;
      std::vector<ir::Loop> keys;
      for (const auto& l : n.loops)
        if (ir::mentions_var(e, l.var)) keys.push_back(l);
      std::size_t all = 0;  // keys in scope that e uses: more than the header's means a nested key
      for (const auto* l : sc.loops) all += ir::mentions_var(e, l->var);
      if (keys.empty() || all != keys.size()) continue;
      Entry* found = nullptr;
      for (auto& x : out)
        if (x.e == e) found = &x;
      if (!found) {
        SiteRef r;
        r.nest = sc.nest;
        r.stmt = sc.item;
        r.expr = path;
        out.push_back(Entry{e, r, keys, false});
        found = &out.back();
      }
      found->unguarded = found->unguarded || !lazy;
    }
  }
  std::erase_if(out, [](const Entry& x) { return !x.unguarded; });
  return out;
}

/// Replaces every read-subscript entry equal to `from` (pre-order, not descending into replacements), except
/// inside the statement's accumulator read (a read equal to `lhs`, see entry_paths).
int replace_entries(ir::Expr& e, const ir::Expr& from, const ir::Expr& to, const ir::Expr& lhs) {
  if (e.is_ref() && e == lhs) return 0;
  int n = 0;
  for (auto& c : e.args) {
    if (e.is_ref() && c == from) {
      c = to;
      ++n;
    } else {
      n += replace_entries(c, from, to, lhs);
    }
  }
  return n;
}
int replace_entries(ir::Nest& nest, const ir::Expr& from, const ir::Expr& to) {
  int n = 0;
  for (auto& it : nest.body) {
    if (it.is_nest()) {
      n += replace_entries(it.nest(), from, to);
    } else {
      n += replace_entries(it.stmt().rhs, from, to, it.stmt().lhs);
    }
  }
  return n;
}

}  // namespace

std::vector<Site> enumerate_precompute_indices(const ir::Task& t) {
  std::vector<Site> out;
  for (std::uint32_t i = 0; i < t.program.nests.size(); ++i)
    for (const auto& e : entries(t, i)) {
      std::int64_t numel = 1;
      for (const auto& l : e.keys) numel *= l.extent;
      if (numel <= default_config().max_new_elements) out.push_back(Site{e.ref, no_params()});
    }
  return out;
}

Applied apply_precompute_indices(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("precompute_indices");
  recheck(info, t, c);
  const std::uint32_t i = c.ref.nest[0];
  Entry en;
  for (const auto& e : entries(t, i))
    if (e.ref == c.ref) en = e;
  analysis::NameAllocator names(t);
  const std::string table = names.tensor();
  std::vector<ir::Expr> k_entries;
  std::vector<std::int64_t> shape;
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& l : en.keys) {
    k_entries.push_back(ir::make_var(l.var));
    shape.push_back(l.extent);
    keys.push_back(l.var);
  }
  const ir::Expr tref = ir::make_ref(table, ir::DType::I64, ir::Scope::Global, k_entries);
  auto hh = analysis::helper_header(en.keys);
  ir::Nest helper;
  helper.loops = en.keys;
  ir::Stmt st;
  st.lhs = tref;
  st.rhs = en.e;
  helper.body.push_back(ir::Item{st});
  for (const auto& [from, to] : hh.renamed) analysis::rename_key(helper, from, to);
  helper.loops = hh.loops;

  ir::Task after = t;
  auto& nests = after.program.nests;
  const int occ = replace_entries(nests[i], en.e, tref);
  nests.insert(nests.begin() + i, helper);

  std::int64_t numel = 1;
  for (auto x : shape) numel *= x;
  Facts f(info, c);
  f.site_nest(t.program, {i});
  f.site_stmt(analysis::nest_at(t.program, c.ref.nest)->body.at(*c.ref.stmt).stmt());
  f.set("entry", ir::print_expr(en.e));
  f.set("keys", keys);
  f.set("table", {{"name", table}, {"dtype", "i64"}, {"shape", shape}});
  f.set("occurrences", occ);
  f.set("helper_nest", ir::print_nest(helper));
  if (!hh.renamed.empty()) f.set("helper_binding", hh.renamed);
  f.legality("entry evaluated outside lazy branches at every point of its keys' box", "structural", true,
             ir::print_expr(en.e));
  f.cost("elements_added", numel);
  f.cost("bytes_added", numel * 8);
  return finish(t, std::move(after), std::move(f), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(precompute_indices, 22, Memory,
                         "Precompute one compound index expression into an integer lookup table, "
                         "and index through the table instead.",
                         enumerate_precompute_indices, apply_precompute_indices);

}  // namespace steptp::strategy::memory
