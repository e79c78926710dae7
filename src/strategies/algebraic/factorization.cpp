// factorization (STRATEGIES.md §11 entry 23): factor a maximal polynomial sum node of a statement's target.
// GiNaC calls (§9.3): `sqrfree(p, vars)` (mode sqrfree; GiNaC's square-free decomposition also extracts the
// content, so A*D+A*E -> A*(D+E)) and `factor(p)` (mode full, offered only when its result differs from the
// square-free one). The site is non-trivial when the result has at least two non-constant factors or a factor
// with multiplicity > 1. Class R.
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

/// Non-constant factors of a product with their multiplicities, in the §9.1 order of the back-converter.
std::vector<std::pair<ex, long>> factor_list(const Bridge& b, const ex& f) {
  std::vector<std::pair<ex, long>> out;
  auto add = [&](const ex& x) {
    if (GiNaC::is_a<GiNaC::numeric>(x)) return;
    if (GiNaC::is_a<GiNaC::power>(x) && GiNaC::is_a<GiNaC::numeric>(x.op(1)))
      out.push_back({x.op(0), GiNaC::ex_to<GiNaC::numeric>(x.op(1)).to_long()});
    else
      out.push_back({x, 1});
  };
  if (GiNaC::is_a<GiNaC::mul>(f))
    for (std::size_t i = 0; i < f.nops(); ++i) add(f.op(i));
  else
    add(f);
  std::vector<ex> order;
  for (const auto& [g, k] : out) order.push_back(g);
  b.sort_by_key(order);
  std::vector<std::pair<ex, long>> sorted;
  for (const auto& g : order)
    for (const auto& [h, k] : out)
      if (h.is_equal(g)) sorted.push_back({b.canonical_signs(h), k});
  return sorted;
}

bool nontrivial(const Bridge& b, const ex& f) {
  auto l = factor_list(b, f);
  return l.size() >= 2 || (l.size() == 1 && l[0].second > 1);
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task&) {
  if (!is_sum_node(n.e) || is_sum_node(parent_of(ts, n))) return {};  // a maximal sum node
  const ex x = b.to_ex(*n.e);
  if (!GiNaC::is_a<GiNaC::add>(x) || !b.is_polynomial(x)) return {};
  GiNaC::lst vars;
  for (const auto& a : b.atoms_of(x)) vars.append(a);
  const ex sq = GiNaC::sqrfree(x, vars);
  const ex full = GiNaC::factor(x);
  std::vector<std::pair<Params, Rewrite>> out;
  auto offer = [&](const std::string& mode, const ex& f) {
    Rewrite r;
    r.after = b.to_ast(f);
    r.cls = Exactness::Reassoc;
    nlohmann::json fl = nlohmann::json::array();
    for (const auto& [g, k] : factor_list(b, f)) fl.push_back({{"factor", b.print(g)}, {"multiplicity", k}});
    nlohmann::json atoms = nlohmann::json::object();
    for (const auto& a : b.atoms_of(x)) atoms[b.atom_text(a)] = GiNaC::ex_to<GiNaC::symbol>(a).get_name();
    r.facts = {{"mode", mode}, {"factors", fl}, {"atoms", atoms}};
    out.push_back({Params{{"mode", mode}}, std::move(r)});
  };
  const bool sq_ok = nontrivial(b, sq);
  if (sq_ok) offer("sqrfree", sq);
  if (nontrivial(b, full) && (!sq_ok || b.print(full) != b.print(sq))) offer("full", full);
  return out;
}

}  // namespace

std::vector<Site> enumerate_factorization(const ir::Task& t) { return enumerate_rule("factorization", t, rule); }
Applied apply_factorization(const ir::Task& t, const Candidate& c) { return apply_rule("factorization", t, c, rule); }

STEPTP_REGISTER_STRATEGY(factorization, 23, Algebraic,
                         "Factor a polynomial sub-expression into a product, using square-free or "
                         "full factorisation.",
                         enumerate_factorization, apply_factorization);

}  // namespace steptp::strategy::algebraic
