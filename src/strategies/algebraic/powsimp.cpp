// powsimp (STRATEGIES.md §11 entry 29): combine powers and exponentials that share a base into a single power or
// exponential. GiNaC merges equal bases on construction (§9.2, §9.3), so the site is read from the AST factors of a
// maximal product node (flattened through `*`, `/`, groups and unary minus; numeric exponents only, since a
// non-numeric power is an opaque atom, §9.1) and the merged factor is written back by hand:
//  - same_base       `x^a*x^b` -> `x^(a+b)`, every factor of base x merged; needs x>=0 unless every exponent is an
//                    integer (divisors and roots that disappear add their own §9.4 conditions in the driver);
//  - exp             `exp(a)*exp(b)` -> `exp(a+b)`, every exp factor merged; never offered when the merged
//                    argument scales an argument by a constant > 1 (`exp(A)*exp(A)` -> `exp(2*A)`, range rule §6);
//  - same_exponent   `x^a*y^a` -> `(x*y)^a` (a != +-1, distinct bases); needs x>=0 and y>=0 unless a is an integer;
//  - power_of_power  `(x^a)^b` -> `x^(a*b)` at a power node whose base is a power; needs x>=0 unless b is an integer.
// Parameters (rule, group): the group is the printed product of the merged factors; in first-occurrence order
// (index of the group's first factor, then the rule order above). Class R; D for the sign-conditioned rules.
#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/algebraic/logpow.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;
using GiNaC::numeric;
using namespace logpow;

/// One factor of the product, read as base^k (k signed: negative in a denominator).
struct Term {
  PowerForm p;
  numeric k;
  ex base;
  bool exp = false;       // base is exp(u): only the exp rule merges it
  bool constant = false;  // base has no atom
};

/// A merge: its rule, the factor indices, the merged factor (numerator or denominator), conditions and facts.
struct Merge {
  int order = 0;  // rule order for ties
  std::string rule;
  std::vector<std::size_t> members;
  ir::Expr merged;
  bool merged_inverse = false;
  std::vector<Rewrite::Condition> conditions;
  nlohmann::json facts;
};

ir::Expr signed_power(const ir::Expr& base, const numeric& k, bool& inverse) {
  inverse = k.is_negative();
  return power_ast(base, inverse ? numeric(-k) : k);
}

/// The product with the group replaced by its merged factor (at the position of the group's first factor).
ir::Expr rebuild(const Flat& flat, const Merge& m) {
  std::vector<ir::Expr> num, den;
  for (std::size_t i = 0; i < flat.factors.size(); ++i) {
    if (i == m.members[0]) {
      (m.merged_inverse ? den : num).push_back(m.merged);
      continue;
    }
    if (std::find(m.members.begin(), m.members.end(), i) != m.members.end()) continue;
    (flat.factors[i].inverse ? den : num).push_back(*flat.factors[i].e);
  }
  return build_product(num, den, flat.negative);
}

/// The printed product of the group's factors (the `group` parameter).
std::string group_text(const Flat& flat, const std::vector<std::size_t>& members) {
  std::vector<ir::Expr> num, den;
  for (std::size_t i : members) (flat.factors[i].inverse ? den : num).push_back(*flat.factors[i].e);
  return ir::print_expr(build_product(num, den, false));
}

std::vector<std::pair<Params, Rewrite>> power_of_power(Bridge& b, const ir::Expr& e,
                                                       const analysis::SignAnalysis& signs) {
  const PowerForm outer = power_form(e);
  if (!outer.literal) return {};
  const PowerForm inner = power_form(*outer.base);
  if (!inner.literal || b.atoms_of(b.to_ex(*inner.base)).empty()) return {};
  const numeric k = inner.k * outer.k;
  if (k.is_zero()) return {};
  Rewrite r;
  bool inverse = false;
  const ir::Expr p = signed_power(*inner.base, k, inverse);
  r.after = inverse ? build_product({}, {p}, false) : p;
  r.cls = Exactness::Reassoc;
  if (!outer.k.is_integer()) r.conditions.push_back(condition("nonnegative", *inner.base, signs));
  r.facts = {{"rule", "power_of_power"},
             {"bases", {ir::print_expr(*inner.base)}},
             {"exponents_before", {print_number(inner.k), print_number(outer.k)}},
             {"exponent_after", print_number(k)}};
  return {{Params{{"rule", "power_of_power"}, {"group", ir::print_expr(e)}}, std::move(r)}};
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task& t) {
  const auto signs = analysis::task_signs(t);
  if (!is_product_node(n.e)) return power_of_power(b, *n.e, *signs);
  if (is_product_node(enclosing_operator(ts, n))) return {};
  const Flat flat = flatten_product(*n.e);
  std::vector<Term> terms;
  for (const auto& f : flat.factors) {
    Term tm;
    tm.p = power_form(*f.e);
    tm.k = f.inverse ? numeric(-tm.p.k) : tm.p.k;
    tm.base = b.to_ex(*tm.p.base);
    tm.exp = is_exp_call(*tm.p.base);
    tm.constant = b.atoms_of(tm.base).empty();
    terms.push_back(std::move(tm));
  }
  std::vector<Merge> merges;

  // same_base: every factor of one base.
  std::vector<bool> seen(terms.size(), false);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (seen[i] || terms[i].exp || terms[i].constant) continue;
    Merge m;
    m.order = 0;
    m.rule = "same_base";
    for (std::size_t j = i; j < terms.size(); ++j)
      if (!terms[j].exp && !terms[j].constant && terms[j].base.is_equal(terms[i].base)) {
        m.members.push_back(j);
        seen[j] = true;
      }
    if (m.members.size() < 2) continue;
    numeric sum = 0;
    bool integers = true;
    nlohmann::json before = nlohmann::json::array();
    for (std::size_t j : m.members) {
      sum += terms[j].k;
      integers = integers && terms[j].k.is_integer();
      before.push_back(print_number(terms[j].k));
    }
    if (sum.is_zero()) continue;  // x^a*x^-a is a cancellation, not a single power
    try {
      m.merged = signed_power(*terms[i].p.base, sum, m.merged_inverse);
    } catch (const NotRepresentable&) {
      continue;  // x^(3/2): not offered (§9.1)
    }
    if (!integers) m.conditions.push_back(condition("nonnegative", *terms[i].p.base, *signs));
    m.facts = {{"bases", {ir::print_expr(*terms[i].p.base)}},
               {"exponents_before", before},
               {"exponent_after", print_number(sum)}};
    merges.push_back(std::move(m));
  }

  // exp: every exp factor (integer powers of exp included).
  {
    Merge m;
    m.order = 1;
    m.rule = "exp";
    ex arg = 0;
    nlohmann::json before = nlohmann::json::array();
    for (std::size_t j = 0; j < terms.size(); ++j) {
      if (!terms[j].exp || !terms[j].k.is_integer()) continue;
      m.members.push_back(j);
      const ex a = terms[j].k * b.to_ex(terms[j].p.base->args[0]);
      arg = arg + a;
      before.push_back(b.print(a));
    }
    arg = arg.expand();
    if (m.members.size() >= 2 && !arg.is_zero()) {
      m.merged = ir::make_call(ir::Func::Exp, {b.to_ast(arg)});
      // Range rule (§6): exp(A)*exp(A) -> exp(2*A) is never offered.
      if (!breaks_range_rule(*n.e, m.merged)) {
        m.facts = {{"bases", {"exp"}}, {"exponents_before", before}, {"exponent_after", b.print(arg)}};
        merges.push_back(std::move(m));
      }
    }
  }

  // same_exponent: factors of distinct bases and one exponent a != +-1.
  std::vector<bool> used(terms.size(), false);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (used[i] || terms[i].exp || terms[i].constant || terms[i].k == 1 || terms[i].k == -1) continue;
    Merge m;
    m.order = 2;
    m.rule = "same_exponent";
    for (std::size_t j = i; j < terms.size(); ++j)
      if (!terms[j].exp && !terms[j].constant && terms[j].k == terms[i].k) {
        m.members.push_back(j);
        used[j] = true;
      }
    if (m.members.size() < 2) continue;
    bool distinct = true;
    for (std::size_t x = 0; x < m.members.size(); ++x)
      for (std::size_t y = x + 1; y < m.members.size(); ++y)
        distinct = distinct && !terms[m.members[x]].base.is_equal(terms[m.members[y]].base);
    if (!distinct) continue;  // same_base merges those first
    std::vector<ir::Expr> bases;
    nlohmann::json bases_j = nlohmann::json::array(), before = nlohmann::json::array();
    for (std::size_t j : m.members) {
      bases.push_back(*terms[j].p.base);
      bases_j.push_back(ir::print_expr(*terms[j].p.base));
      before.push_back(print_number(terms[j].k));
      if (!terms[i].k.is_integer()) m.conditions.push_back(condition("nonnegative", *terms[j].p.base, *signs));
    }
    try {
      m.merged = signed_power(build_product(bases, {}, false), terms[i].k, m.merged_inverse);
    } catch (const NotRepresentable&) {
      continue;
    }
    m.facts = {{"bases", bases_j}, {"exponents_before", before}, {"exponent_after", print_number(terms[i].k)}};
    merges.push_back(std::move(m));
  }

  std::stable_sort(merges.begin(), merges.end(), [](const Merge& x, const Merge& y) {
    return std::make_pair(x.members[0], x.order) < std::make_pair(y.members[0], y.order);
  });
  std::vector<std::pair<Params, Rewrite>> out;
  for (auto& m : merges) {
    Rewrite r;
    r.after = rebuild(flat, m);
    r.cls = Exactness::Reassoc;
    r.conditions = std::move(m.conditions);
    r.facts = std::move(m.facts);
    r.facts["rule"] = m.rule;
    out.push_back({Params{{"rule", m.rule}, {"group", group_text(flat, m.members)}}, std::move(r)});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_powsimp(const ir::Task& t) { return enumerate_rule("powsimp", t, rule); }
Applied apply_powsimp(const ir::Task& t, const Candidate& c) { return apply_rule("powsimp", t, c, rule); }

STEPTP_REGISTER_STRATEGY(powsimp, 29, Algebraic,
                         "Combine powers and exponentials that share a base into a single power "
                         "or exponential.",
                         enumerate_powsimp, apply_powsimp);

}  // namespace steptp::strategy::algebraic
