// apart (STRATEGIES.md §11 entry 27): a real partial-fraction decomposition of a division node N/D in one atom v
// (B14: not the reverse of together). Site: N and D polynomials in their atoms, v an atom of D, and either D has
// at least two coprime non-constant factors in v, or deg_v N >= deg_v D >= 1. If gcd(N, D) != 1 the node is
// cancelled first (the shared driver then derives entry 25's condition). D is factored (`factor`); the factors
// free of v form the content c; the polynomial part P = quo(N, D, v) and the remainder R = rem(N, D, v) are split
// off; the numerators a_jk of R/D = (1/c) * sum_j sum_{k<=m_j} a_jk / f_j^k (deg_v a_jk < deg_v f_j) are solved
// for by undetermined coefficients (`lsolve`; §9.3: GiNaC's sqrfree_parfrac alone keeps factors of equal
// multiplicity together, so the driver is ours). Every factor of D divides a denominator of the result and vice
// versa, so no condition arises (§9.4). Class R.
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

struct Factor {
  ex f;
  int m = 1;
};

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt&, const TargetNode& n, const ir::Task&) {
  if (n.e->kind != ir::ExprKind::Binary || n.e->bop != ir::BinOp::Div) return {};
  ex num = b.to_ex(n.e->args[0]).expand(), den = b.to_ex(n.e->args[1]).expand();
  if (!b.is_polynomial(num) || !b.is_polynomial(den)) return {};
  const ex g = GiNaC::gcd(num, den);
  if (!GiNaC::is_a<GiNaC::numeric>(g)) {  // cancel first (exact division by the gcd)
    ex qn, qd;
    if (!GiNaC::divide(num, g, qn) || !GiNaC::divide(den, g, qd)) return {};
    num = qn.expand();
    den = qd.expand();
  }
  std::vector<std::pair<Params, Rewrite>> out;
  for (const auto& v : b.atoms_of(den)) {
    const int dd = den.degree(v), dn = num.degree(v);
    if (dd < 1) continue;
    // Factors of D containing v, with multiplicities; the rest is the content c.
    const ex fd = GiNaC::factor(den);
    std::vector<Factor> fs;
    ex content = 1;
    auto take = [&](const ex& x) {
      ex base = x;
      int m = 1;
      if (GiNaC::is_a<GiNaC::power>(x) && GiNaC::is_a<GiNaC::numeric>(x.op(1))) {
        base = x.op(0);
        m = GiNaC::ex_to<GiNaC::numeric>(x.op(1)).to_int();
      }
      if (base.has(v)) fs.push_back({base, m});
      else content = content * x;
    };
    if (GiNaC::is_a<GiNaC::mul>(fd))
      for (std::size_t i = 0; i < fd.nops(); ++i) take(fd.op(i));
    else
      take(fd);
    if (!(fs.size() >= 2 || dn >= dd)) continue;
    // GiNaC lists (and signs) the factors by its own object order: put each factor's first term positive (the
    // sign joins the content) and order them by §9.1 key, so the decomposition does not depend on the process.
    for (auto& f : fs) {
      const ex c = b.canonical_signs(f.f);
      if (!c.is_equal(f.f) && f.m % 2 == 1) content = -content;
      f.f = c;
    }
    {
      std::vector<std::pair<std::pair<std::vector<std::uint32_t>, std::string>, Factor>> keyed;
      for (const auto& f : fs) keyed.push_back({{b.key_of(f.f), b.print(f.f)}, f});
      std::stable_sort(keyed.begin(), keyed.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
      for (std::size_t i = 0; i < fs.size(); ++i) fs[i] = keyed[i].second;
    }
    // Leading coefficients in v must be free of other atoms, so quo/rem over Q(other atoms) stay polynomial.
    const ex dv = (den / content).expand();
    if (!GiNaC::is_a<GiNaC::numeric>(dv.lcoeff(v))) continue;
    const ex P = GiNaC::quo(num, dv, v), R = GiNaC::rem(num, dv, v);
    // Unknown numerators.
    GiNaC::lst unknowns, eqs;
    std::vector<std::vector<ex>> a(fs.size());
    ex sum = 0;
    int serial = 0;
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const int df = fs[j].f.degree(v);
      for (int k = 1; k <= fs[j].m; ++k) {
        ex ajk = 0;
        for (int i = 0; i < df; ++i) {
          GiNaC::symbol c("c" + std::to_string(serial++));
          unknowns.append(c);
          ajk = ajk + c * GiNaC::pow(v, i);
        }
        a[j].push_back(ajk);
        ex rest = 1;
        for (std::size_t o = 0; o < fs.size(); ++o)
          rest = rest * GiNaC::pow(fs[o].f, o == j ? fs[o].m - k : fs[o].m);
        sum = sum + ajk * rest;
      }
    }
    const ex diff = (R - sum).expand();
    for (int i = 0; i <= std::max(diff.degree(v), 0); ++i) eqs.append(diff.coeff(v, i) == 0);
    const ex sol = GiNaC::lsolve(eqs, unknowns);
    if (sol.nops() != unknowns.nops()) continue;
    ex result = P;
    nlohmann::json terms = nlohmann::json::array();
    for (std::size_t j = 0; j < fs.size(); ++j)
      for (int k = 1; k <= fs[j].m; ++k) {
        const ex ajk = a[j][k - 1].subs(sol).normal();
        if (ajk.is_zero()) continue;
        const ex term = ajk * GiNaC::pow(fs[j].f, -k) / content;
        result = result + term;
        terms.push_back(b.print(term));
      }
    Rewrite r;
    r.after = b.to_ast(result);
    r.cls = Exactness::Reassoc;
    nlohmann::json dfs = nlohmann::json::array();
    for (const auto& f : fs) dfs.push_back({{"factor", b.print(f.f)}, {"multiplicity", f.m}});
    r.facts = {{"variable", b.atom_text(v)}, {"denominator_factors", dfs}, {"polynomial_part", b.print(P)},
               {"terms", terms}};
    out.push_back({Params{{"v", b.atom_text(v)}}, std::move(r)});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_apart(const ir::Task& t) { return enumerate_rule("apart", t, rule); }
Applied apply_apart(const ir::Task& t, const Candidate& c) { return apply_rule("apart", t, c, rule); }

STEPTP_REGISTER_STRATEGY(apart, 27, Algebraic,
                         "Decompose a rational expression into partial fractions with respect to "
                         "one variable.",
                         enumerate_apart, apply_apart);

}  // namespace steptp::strategy::algebraic
