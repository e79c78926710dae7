// dead_code_elimination (STRATEGIES.md §11 entry 7): delete a statement none of whose write instances is live,
// and every nest that becomes empty.
// Liveness (B17; it never calls live code dead): a statement S writing X is live when X is a known buffer (known
// buffers are always live), or when a read of X by another statement that may execute after an instance of S
// (any statement of S's own top-level nest, since a loop may carry the value to a textually earlier statement, or
// of a later top-level nest; gathers in subscripts included) takes its value. Without such a reader S is dead.
// With readers, S is kept unless another statement that may run later overwrites X without reading it, at
// elements whose static ranges may meet S's (only such a write can kill S's values unread); then value-based flow
// (isl, §7.1, analysis/deps.hpp flow_live_writers) decides, so a write that is overwritten everywhere before any
// read is dead. S's reads of its own output (an accumulator, a prefix form) do not make it live: they disappear
// with it.
// Init status: the deletion must not change any other statement's §8.4 initialiser (rule 2 counts earlier writers
// in the text); such a site is rejected. Nothing is ever added, so no dead code is created. Class E.
#include <algorithm>
#include <optional>
#include <string_view>

#include "ir/init_rule.hpp"
#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/deps.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/name_ids.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::graph {
namespace {

/// Every statement of a program in text order (collect_stmts order) with its top-level nest and buffer, and every
/// buffer use (statement, read or write) grouped by buffer, so that a statement's liveness looks at the uses of
/// its own buffer only. Built in one walk without copying loop lists; the full statement contexts (loops, paths)
/// are built only when a verdict needs them (ctx()).
class Uses {
 public:
  struct Use {
    std::uint32_t buffer, stmt;
    bool write;
  };

  explicit Uses(const ir::Program& p) : p_(p) {
    analysis::NameIds ids;
    std::vector<Use> raw;
    raw.reserve(64);
    stmts_.reserve(32);
    for (std::size_t top = 0; top < p.nests.size(); ++top)
      walk(p.nests[top], static_cast<std::uint32_t>(top), ids, raw);
    // Counting sort by buffer; stable, so each buffer's uses stay in statement order, a write before a read.
    begin_.assign(ids.size() + 1, 0);
    for (const Use& u : raw) ++begin_[u.buffer + 1];
    for (std::size_t b = 0; b < ids.size(); ++b) begin_[b + 1] += begin_[b];
    uses_.resize(raw.size());
    std::vector<std::uint32_t> next(begin_.begin(), begin_.end() - 1);
    for (const Use& u : raw) uses_[next[u.buffer]++] = u;
  }
  std::size_t size() const { return stmts_.size(); }
  const ir::Stmt& stmt(std::size_t k) const { return *stmts_[k].stmt; }
  std::uint32_t top(std::size_t k) const { return stmts_[k].top; }
  /// Uses of the buffer statement k writes, by statement (a statement's write before its read).
  std::pair<const Use*, const Use*> of_written(std::size_t k) const {
    const std::uint32_t b = stmts_[k].buffer;
    return {uses_.data() + begin_[b], uses_.data() + begin_[b + 1]};
  }
  /// Does statement j read the buffer statement k writes?
  bool reads_written(std::size_t j, std::size_t k) const {
    auto [b, e] = of_written(k);
    for (const Use* u = b; u != e; ++u)
      if (u->stmt == j && !u->write) return true;
    return false;
  }
  const std::vector<analysis::StmtCtx>& ctx() const {
    if (!ctx_) ctx_ = analysis::collect_stmts(p_);
    return *ctx_;
  }

 private:
  /// Statements of `n` in text order (for_each_stmt's order, without its loop list).
  void walk(const ir::Nest& n, std::uint32_t top, analysis::NameIds& ids, std::vector<Use>& raw) {
    for (const auto& it : n.body) {
      if (!it.is_stmt()) {
        walk(it.nest(), top, ids, raw);
        continue;
      }
      const ir::Stmt& s = it.stmt();
      const auto j = static_cast<std::uint32_t>(stmts_.size());
      const std::uint32_t x = ids.id(s.lhs.text);
      stmts_.push_back({&s, top, x});
      raw.push_back({x, j, true});
      const std::size_t first_read = raw.size();
      auto read = [&](const ir::Expr& e) {
        if (e.kind != ir::ExprKind::Ref) return;
        const std::uint32_t b = ids.id(e.text);
        for (std::size_t r = first_read; r < raw.size(); ++r)
          if (raw[r].buffer == b) return;
        raw.push_back({b, j, false});
      };
      for (const auto& e : s.lhs.args) ir::visit_expr(e, read);
      ir::visit_expr(s.rhs, read);
    }
  }

  struct Entry {
    const ir::Stmt* stmt;
    std::uint32_t top, buffer;
  };
  const ir::Program& p_;
  std::vector<Entry> stmts_;
  std::vector<Use> uses_;
  std::vector<std::uint32_t> begin_;  // uses of buffer b: [begin_[b], begin_[b+1])
  mutable std::optional<std::vector<analysis::StmtCtx>> ctx_;
};

bool updates_known(const ir::Task& t, const std::string& x) {
  const auto* k = t.find_known(x);
  return k && k->role != ir::Role::Output;
}

/// Liveness verdict of statement `k` (text order): dead when `reason` is Dead, in which case its deletion keeps
/// every other statement's initialiser; `method` says how deadness was shown and `other` names the statement
/// behind a live verdict. The message is rendered only on demand (enumeration asks only dead or alive).
struct Verdict {
  enum Reason { Dead, Known, ReadLater, FlowReaches, InitChange } reason = Dead;
  std::size_t other = 0;
  std::string method = "structural";
  std::string why(const Uses& u, std::size_t k) const {
    const std::string x = u.stmt(k).lhs.text;
    switch (reason) {
      case Dead: return "";
      case Known: return "writes known buffer " + x;
      case ReadLater: return "read later by " + ir::print_stmt(u.stmt(other));
      case FlowReaches:
        return "value-based flow: a later read takes its value, e.g. " + ir::print_stmt(u.stmt(other));
      case InitChange: return "deleting it would change the init status of " + ir::print_stmt(u.stmt(other));
    }
    return "";
  }
};

Verdict liveness(const ir::Task& t, const Uses& u, std::size_t k) {
  const ir::Stmt& s = u.stmt(k);
  const std::string& x = s.lhs.text;
  if (t.find_known(x)) return {Verdict::Known};
  const std::uint32_t top = u.top(k);
  const auto [ub, ue] = u.of_written(k);
  std::vector<std::size_t> readers, writers;
  for (const auto* use = ub; use != ue; ++use) {
    if (use->write) writers.push_back(use->stmt);
    else if (use->stmt != k && u.top(use->stmt) >= top) readers.push_back(use->stmt);
  }
  Verdict v;
  if (!readers.empty()) {
    // With a single writer every later read takes its values. Otherwise value-based flow (isl) decides whether
    // another write kills them first.
    // Only a later write that does not read x (a pure overwrite) and may touch an element S writes can kill S's
    // values unread; without one, S is kept (conservatively live). The element test is static ranges
    // (analysis::refs_may_overlap): the two writers of a concatenation, F_{a,0} and F_{a,tx+1}, never meet.
    bool pure_overwrite = false;
    for (std::size_t j : writers)
      pure_overwrite = pure_overwrite || (j != k && u.top(j) >= top && !u.reads_written(j, k) &&
                                          analysis::refs_may_overlap(s.lhs, u.ctx()[k].loops, u.stmt(j).lhs,
                                                                     u.ctx()[j].loops));
    if (!pure_overwrite) return {Verdict::ReadLater, readers[0]};
    const auto& all = u.ctx();
    std::vector<analysis::PolyStmt> ps;
    std::size_t self = 0;
    for (std::size_t j = 0; j < all.size(); ++j) {
      bool touches = all[j].stmt->lhs.text == x || u.reads_written(j, k);
      if (!touches) continue;
      if (j == k) self = ps.size();
      analysis::PolyStmt p;
      p.stmt = all[j].stmt;
      for (const auto* l : all[j].loops) p.loops.push_back(*l);
      p.sched_old = analysis::schedule_2d1(t.program, all[j]);
      ps.push_back(std::move(p));
    }
    if (analysis::flow_live_writers(ps, x)[self]) return {Verdict::FlowReaches, readers[0]};
    v.method = "isl";
  }
  // Init status of the other writers of x (rule 2: an earlier statement in the text writes x).
  int before = 0;
  for (std::size_t j : writers) {
    const ir::Stmt& o = u.stmt(j);
    if (j > k) {
      const bool upd_before = updates_known(t, x) || before > 0;
      const bool upd_after = updates_known(t, x) || before > 1;
      if (ir::statement_initialiser(o, upd_before) != ir::statement_initialiser(o, upd_after))
        return {Verdict::InitChange, j};
    }
    ++before;
  }
  return v;
}

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
  const Uses u(t.program);
  for (std::size_t k = 0; k < u.size(); ++k) {
    if (liveness(t, u, k).reason != Verdict::Dead) continue;
    SiteRef ref;
    ref.nest = u.ctx()[k].nest;
    ref.stmt = u.ctx()[k].item;
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
  const Uses u(t.program);
  const std::size_t k = c.ref.stmt ? find_stmt(u.ctx(), c.ref.nest, *c.ref.stmt) : static_cast<std::size_t>(-1);
  if (k == static_cast<std::size_t>(-1) || !c.ref.expr.empty()) throw_stale(c.id() + ": no statement there");
  const Verdict v = liveness(t, u, k);
  if (v.reason != Verdict::Dead)
    throw_stale(c.id() + ": " + ir::print_stmt(u.stmt(k)) + " is live (" + v.why(u, k) + ")");
  const ir::Stmt& s = u.stmt(k);
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

STEPTP_REGISTER_STRATEGY(dead_code_elimination, 7, Graph,
                         "Delete a statement whose results are never used, and delete its nest "
                         "too if the nest becomes empty.",
                         enumerate_dead_code_elimination, apply_dead_code_elimination);

}  // namespace steptp::strategy::graph
