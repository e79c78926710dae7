// loop_fusion (STRATEGIES.md §11 entry 12; inverse of loop_split, analysing its own input): merge adjacent
// header loops k (outer, extent f0) and x (inner, extent f1) into one loop of extent f0*f1 when every use of k or
// x has an affine normal form in which they appear only as c*(f1*k + x). Each maximal affine node that mentions
// k or x must satisfy coef(k) == f1*coef(x); it is rewritten by k -> 0 (folding the touched nodes), so
// c*(f1*k+x)+r becomes c*x+r with x now the merged key. The merged loop takes the kind of the loop that is not L
// (L if both are; rejected if neither is) and keeps the inner key — unless the outer loop is the B loop, whose
// bound key is kept (bound names are required for B). Iteration order is unchanged. Class E.
#include "ir/printer.hpp"
#include "strategies/analysis/affine.hpp"
#include "strategies/analysis/binding.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/loop/loop_util.hpp"

#include "ir/validate.hpp"

namespace steptp::strategy::loop {
namespace {

struct UseCheck {
  bool ok = true;
  std::vector<std::pair<std::string, std::string>> rewritten;  // printed before -> after, distinct
};

void check_uses(const ir::Expr& e, const std::string& k, const std::string& x, std::int64_t f1, UseCheck& u) {
  if (!u.ok) return;
  if (!ir::mentions_var(e, k) && !ir::mentions_var(e, x)) return;
  if (auto lf = analysis::linear_form(e)) {
    if (lf->at(k) != f1 * lf->at(x)) {
      u.ok = false;
      return;
    }
    ir::Expr after = e;
    analysis::substitute_zero_fold(after, k);
    std::pair<std::string, std::string> pr{ir::print_expr(e), ir::print_expr(after)};
    if (pr.first != pr.second && std::find(u.rewritten.begin(), u.rewritten.end(), pr) == u.rewritten.end())
      u.rewritten.push_back(pr);
    return;
  }
  for (const auto& c : e.args) check_uses(c, k, x, f1, u);
}

void check_nest(const ir::Nest& n, const std::string& k, const std::string& x, std::int64_t f1, UseCheck& u) {
  for (const auto& it : n.body) {
    if (it.is_nest()) {
      check_nest(it.nest(), k, x, f1, u);
    } else {
      check_uses(it.stmt().lhs, k, x, f1, u);
      check_uses(it.stmt().rhs, k, x, f1, u);
    }
  }
}

void rewrite_nest(ir::Nest& n, const std::string& k) {
  for (auto& it : n.body) {
    if (it.is_nest()) {
      rewrite_nest(it.nest(), k);
    } else {
      analysis::substitute_zero_fold(it.stmt().lhs, k);
      analysis::substitute_zero_fold(it.stmt().rhs, k);
    }
  }
}

struct Merge {
  bool ok = false;
  ir::Task task;
  ir::Loop merged;
  UseCheck uses;
  std::string why;
};

Merge merge(const ir::Task& t, const analysis::NestPath& path, std::uint32_t j) {
  Merge m;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  const ir::Loop ko = n.loops[j], xi = n.loops[j + 1];
  if (ko.kind != ir::LoopKind::L && xi.kind != ir::LoopKind::L) return m;
  if (ko.extent * xi.extent >= (std::int64_t{1} << 31)) return m;
  check_nest(n, ko.var, xi.var, xi.extent, m.uses);
  if (!m.uses.ok) return m;
  const ir::LoopKind kind = ko.kind != ir::LoopKind::L ? ko.kind : xi.kind;
  const auto& cfg = default_config();
  const std::int64_t ext = ko.extent * xi.extent;
  if (kind == ir::LoopKind::U && ext >= cfg.max_unroll) return m;
  if (kind == ir::LoopKind::V && ext > cfg.vector_width) return m;
  m.task = t;
  ir::Nest& nn = *analysis::nest_at(m.task.program, path);
  rewrite_nest(nn, ko.var);
  const bool keep_outer = ko.kind == ir::LoopKind::B;
  m.merged = ir::Loop{kind, ext, keep_outer ? ko.var : xi.var, 0};
  nn.loops.erase(nn.loops.begin() + j + 1);
  nn.loops[j] = m.merged;
  if (keep_outer) analysis::substitute(nn, analysis::KeyMap{{xi.var, ir::make_var(ko.var)}});
  if (kind == ir::LoopKind::B) {
    std::string why;
    if (!analysis::launch_limits_ok(analysis::bound_tags(m.task.program.nests[path[0]]), cfg, &why)) return m;
  }
  if (kind != ir::LoopKind::L) {
    m.why = nest_invariants_broken(m.task.program, path[0]);
    if (!m.why.empty()) return m;
  }
  m.ok = true;
  return m;
}

}  // namespace

namespace {
std::vector<Site> fusion_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate* only) {
  std::vector<Site> out;
  const ir::Nest& n = *analysis::nest_at(t.program, path);
  for (std::uint32_t j = 0; j + 1 < n.loops.size(); ++j) {
    if (!probe_loop(only, j) || !merge(t, path, j).ok) continue;
    SiteRef ref;
    ref.nest = path;
    ref.loop = j;
    out.push_back(Site{ref, no_params()});
  }
  return out;
}
}  // namespace

std::vector<Site> enumerate_fusion(const ir::Task& t) { return enumerate_by_nest(t, fusion_sites); }

Applied apply_fusion(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("loop_fusion");
  recheck_nest(t, c, fusion_sites);
  const std::uint32_t j = *c.ref.loop;
  const ir::Nest& n = *analysis::nest_at(t.program, c.ref.nest);
  Merge m = merge(t, c.ref.nest, j);
  if (!m.ok) throw_stale("loops no longer fusable");
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("nest", c.ref.nest);
  f.set("outer", {{"key", n.loops[j].var}, {"extent", n.loops[j].extent}});
  f.set("inner", {{"key", n.loops[j + 1].var}, {"extent", n.loops[j + 1].extent}});
  f.set("merged", loop_json(m.merged));
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [b, a] : m.uses.rewritten) entries.push_back({{"before", b}, {"after", a}});
  f.set("entries", entries);
  f.set("header_before", print_header(n));
  f.set("header_after", print_header(*analysis::nest_at(m.task.program, c.ref.nest)));
  f.legality("all uses combined", "structural", true,
             "every use of " + n.loops[j].var + " and " + n.loops[j + 1].var + " is c*(" +
                 std::to_string(n.loops[j + 1].extent) + "*" + n.loops[j].var + "+" + n.loops[j + 1].var + ")");
  return finish(t, std::move(m.task), std::move(f), Exactness::Exact);
}

STEPTP_REGISTER_STRATEGY(loop_fusion, 12, Loop,
                         "Merge two directly nested loops, whose keys are used only in the "
                         "combination outer*inner_extent+inner, into one loop over the product "
                         "extent.",
                         enumerate_fusion, apply_fusion);

}  // namespace steptp::strategy::loop
