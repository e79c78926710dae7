// collect (STRATEGIES.md §11 entry 33): group the terms of a maximal sum node by powers of one atom v, with GiNaC
// `collect(e, v)` (§9.3). The site fires for v when at least two terms of the sum carry the same power v^k,
// k >= 1 (those terms merge into one coefficient). v ranges over the atoms of the sum in first-occurrence order;
// the sum must be a polynomial in v. Class R.
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task&) {
  if (!is_sum_node(n.e) || is_sum_node(parent_of(ts, n))) return {};
  const ex x = b.to_ex(*n.e);
  if (!GiNaC::is_a<GiNaC::add>(x)) return {};
  std::vector<std::pair<Params, Rewrite>> out;
  for (const auto& v : b.atoms_of(x)) {
    if (!x.is_polynomial(v)) continue;
    std::map<int, int> per_power;
    for (std::size_t i = 0; i < x.nops(); ++i) {
      const int k = x.op(i).degree(v);
      if (k >= 1) ++per_power[k];
    }
    bool merges = false;
    for (const auto& [k, cnt] : per_power) merges = merges || cnt >= 2;
    if (!merges) continue;
    const ex c = GiNaC::collect(x, v);
    Rewrite r;
    r.after = b.to_ast(c);
    r.cls = Exactness::Reassoc;
    nlohmann::json groups = nlohmann::json::object();
    for (int k = x.ldegree(v); k <= x.degree(v); ++k) {
      const ex co = x.coeff(v, k);
      if (!co.is_zero()) groups[std::to_string(k)] = b.print(co);
    }
    r.facts = {{"variable", b.atom_text(v)}, {"groups", groups}};
    out.push_back({Params{{"v", b.atom_text(v)}}, std::move(r)});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_collect(const ir::Task& t) { return enumerate_rule("collect", t, rule); }
Applied apply_collect(const ir::Task& t, const Candidate& c) { return apply_rule("collect", t, c, rule); }

STEPTP_REGISTER_STRATEGY(collect, 33, Algebraic,
                         "Group the terms of a sum by powers of one chosen atom.",
                         enumerate_collect, apply_collect);

}  // namespace steptp::strategy::algebraic
