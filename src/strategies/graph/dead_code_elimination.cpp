// dead_code_elimination (STRATEGIES.md §11 entry 7): delete a statement none of whose write instances is live,
// and every nest that becomes empty.
// Liveness (B17; it never calls live code dead): a statement S writing X is live when X is a known buffer (known
// buffers are always live), or when a read of X by another statement that may execute after an instance of S
// (any statement of S's own top-level nest, since a loop may carry the value to a textually earlier statement, or
// of a later top-level nest; gathers in subscripts included) takes its value. Without such a reader S is dead.
// With readers, S is kept unless another statement that may run later overwrites X without reading it (only such
// a write can kill S's values unread); then value-based flow (isl, §7.1, analysis/deps.hpp flow_live_writers)
// decides, so a write that is overwritten everywhere before any read is dead. S's reads of its own output (an
// accumulator, a prefix form) do not make it live: they disappear with it.
// Init status: the deletion must not change any other statement's §8.4 initialiser (rule 2 counts earlier writers
// in the text); such a site is rejected. Nothing is ever added, so no dead code is created. Class E.
#include <algorithm>
#include <set>

#include "ir/init_rule.hpp"
#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/common.hpp"
#include "strategies/graph/graph.hpp"

namespace steptp::strategy::graph {
namespace {

/// The buffers each statement of `all` reads (gathers in subscripts included), computed once per program so
/// that the liveness of every statement costs one pass over the others, not one access walk per pair.
class ReadSets {
 public:
  explicit ReadSets(const std::vector<analysis::StmtCtx>& all) : reads_(all.size()) {
    for (std::size_t j = 0; j < all.size(); ++j) {
      for (const auto& a : analysis::stmt_accesses(*all[j].stmt))
        if (!a.write) reads_[j].push_back(a.buffer());
      std::sort(reads_[j].begin(), reads_[j].end());
      reads_[j].erase(std::unique(reads_[j].begin(), reads_[j].end()), reads_[j].end());
    }
  }
  /// Does statement j read buffer x?
  bool reads(std::size_t j, const std::string& x) const {
    return std::binary_search(reads_[j].begin(), reads_[j].end(), x);
  }

 private:
  std::vector<std::vector<std::string>> reads_;
};

bool updates_known(const ir::Task& t, const std::string& x) {
  const auto* k = t.find_known(x);
  return k && k->role != ir::Role::Output;
}

/// Liveness verdict of statement `k` (of `all`, text order): `why` is "" when it is dead and its deletion keeps
/// every other statement's initialiser; `method` says how deadness was shown.
struct Verdict {
  std::string why;
  std::string method = "structural";
};

Verdict liveness(const ir::Task& t, const std::vector<analysis::StmtCtx>& all, const ReadSets& rs, std::size_t k) {
  const ir::Stmt& s = *all[k].stmt;
  const std::string& x = s.lhs.text;
  if (t.find_known(x)) return {"writes known buffer " + x};
  const std::uint32_t top = all[k].nest[0];
  std::vector<std::size_t> readers, writers;
  for (std::size_t j = 0; j < all.size(); ++j) {
    if (all[j].stmt->lhs.text == x) writers.push_back(j);
    if (j == k || all[j].nest[0] < top) continue;
    if (rs.reads(j, x)) readers.push_back(j);
  }
  Verdict v;
  if (!readers.empty()) {
    // With a single writer every later read takes its values. Otherwise value-based flow (isl) decides whether
    // another write kills them first.
    // Only a later write that does not read x (a pure overwrite) can kill S's values unread; without one, S is
    // kept (conservatively live).
    bool pure_overwrite = false;
    for (std::size_t j : writers)
      pure_overwrite = pure_overwrite || (j != k && all[j].nest[0] >= top && !rs.reads(j, x));
    if (!pure_overwrite) return {"read later by " + ir::print_stmt(*all[readers[0]].stmt)};
    std::vector<analysis::PolyStmt> ps;
    std::size_t self = 0;
    for (std::size_t j = 0; j < all.size(); ++j) {
      bool touches = all[j].stmt->lhs.text == x || rs.reads(j, x);
      if (!touches) continue;
      if (j == k) self = ps.size();
      analysis::PolyStmt p;
      p.stmt = all[j].stmt;
      for (const auto* l : all[j].loops) p.loops.push_back(*l);
      p.sched_old = analysis::schedule_2d1(t.program, all[j]);
      ps.push_back(std::move(p));
    }
    if (analysis::flow_live_writers(ps, x)[self])
      return {"value-based flow: a later read takes its value, e.g. " + ir::print_stmt(*all[readers[0]].stmt)};
    v.method = "isl";
  }
  // Init status of the other writers of x (rule 2: an earlier statement in the text writes x).
  int before = 0;
  for (std::size_t j : writers) {
    const ir::Stmt& o = *all[j].stmt;
    if (j > k) {
      const bool upd_before = updates_known(t, x) || before > 0;
      const bool upd_after = updates_known(t, x) || before > 1;
      if (ir::statement_initialiser(o, upd_before) != ir::statement_initialiser(o, upd_after))
        return {"deleting it would change the init status of " + ir::print_stmt(o)};
    }
    ++before;
  }
  return v;
}

std::vector<analysis::StmtCtx> stmts_of(const ir::Program& p) { return analysis::collect_stmts(p); }

/// Index in collect_stmts order of the statement at (nest path, item), or npos.
std::size_t find_stmt(const std::vector<analysis::StmtCtx>& all, const analysis::NestPath& path, std::uint32_t item) {
  for (std::size_t k = 0; k < all.size(); ++k)
    if (all[k].nest == path && all[k].item == item) return k;
  return static_cast<std::size_t>(-1);
}

/// Removes item `item` of the nest at `path`, then every ancestor nest left empty. Returns the path of the
/// outermost nest removed (empty when only the statement went).
analysis::NestPath remove_item(ir::Program& p, analysis::NestPath path, std::uint32_t item) {
  analysis::NestPath removed;
  for (;;) {
    ir::Nest* n = analysis::nest_at(p, path);
    n->body.erase(n->body.begin() + item);
    if (!n->body.empty()) {
      // A nested nest written in tail form must stay the last item.
      for (std::size_t k = 0; k + 1 < n->body.size(); ++k)
        if (n->body[k].is_nest()) n->body[k].nest().tail = false;
      return removed;
    }
    removed = path;
    if (path.size() == 1) {
      p.nests.erase(p.nests.begin() + path[0]);
      return removed;
    }
    item = path.back();
    path.pop_back();
  }
}

std::vector<Site> sites(const ir::Task& t) {
  std::vector<Site> out;
  auto all = stmts_of(t.program);
  const ReadSets rs(all);
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (!liveness(t, all, rs, k).why.empty()) continue;
    SiteRef ref;
    ref.nest = all[k].nest;
    ref.stmt = all[k].item;
    out.push_back(Site{ref, no_params()});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_dead_code_elimination(const ir::Task& t) { return sites(t); }

Applied apply_dead_code_elimination(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("dead_code_elimination");
  if (c.strategy != info.name) throw_bad_params(c.id());
  if (!c.params.empty()) throw_bad_params(c.id() + " takes no parameters");
  auto all = stmts_of(t.program);
  const std::size_t k = c.ref.stmt ? find_stmt(all, c.ref.nest, *c.ref.stmt) : static_cast<std::size_t>(-1);
  if (k == static_cast<std::size_t>(-1) || !c.ref.expr.empty()) throw_stale(c.id() + ": no statement there");
  const Verdict v = liveness(t, all, ReadSets(all), k);
  if (!v.why.empty()) throw_stale(c.id() + ": " + ir::print_stmt(*all[k].stmt) + " is live (" + v.why + ")");
  const ir::Stmt& s = *all[k].stmt;
  ir::Task after = t;
  const analysis::NestPath gone = remove_item(after.program, c.ref.nest, *c.ref.stmt);
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(s);
  f.set("removed", {{"nest", c.ref.nest}, {"statement", *c.ref.stmt}, {"printed", ir::print_stmt(s)}});
  f.set("buffer", s.lhs.text);
  f.set("liveness", {{"known", "no"}, {"readers", "none"}, {"method", v.method}});
  f.set("nest_removed", gone.empty() ? nlohmann::json(nullptr) : nlohmann::json(gone));
  f.legality("no live write instance", v.method, true,
             v.method == "isl" ? s.lhs.text + " is not known and value-based flow finds no read of its values"
                               : s.lhs.text + " is not known and no statement that may run after it reads " +
                                     s.lhs.text);
  f.legality("init status of the other statements unchanged", "structural", true);
  return finish(t, std::move(after), std::move(f), Exactness::Exact);
}

}  // namespace steptp::strategy::graph
