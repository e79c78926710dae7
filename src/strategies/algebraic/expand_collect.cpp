// expand_collect (STRATEGIES.md §11 entry 34): distribute one factor over a sum, c*(t1+t2) -> c*t1+c*t2. The site
// is a maximal product node with exactly one sum factor, all other factors monomials (no sums); the result is
// GiNaC `expand()` of that node alone (§9.3). A product of several sums belongs to expand_factorization. Class R.
#include "strategies/registry.hpp"
#include "strategies/algebraic/site.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

using GiNaC::ex;

bool has_sum(const ex& f) {
  if (GiNaC::is_a<GiNaC::add>(f)) return true;
  return GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<GiNaC::add>(f.op(0));
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task&) {
  if (n.e->kind != ir::ExprKind::Binary || n.e->bop != ir::BinOp::Mul || is_product_node(parent_of(ts, n)))
    return {};
  const ex x = b.to_ex(*n.e);
  if (!GiNaC::is_a<GiNaC::mul>(x)) return {};
  int sums = 0;
  ex sum, rest = 1;
  for (std::size_t i = 0; i < x.nops(); ++i) {
    if (GiNaC::is_a<GiNaC::add>(x.op(i))) {
      ++sums;
      sum = x.op(i);
    } else if (has_sum(x.op(i))) {
      return {};  // a power of a sum is not a monomial
    } else {
      rest = rest * x.op(i);
    }
  }
  if (sums != 1) return {};
  // GiNaC keeps a product's sign on whichever factor its term order (symbol serial numbers, so thread timing) puts
  // first: state the factor without a leading minus, the sum carrying the sign, so the facts are reproducible.
  if (b.print(rest).rfind('-', 0) == 0) {
    rest = -rest;
    sum = -sum;
  }
  const ex e = x.expand();
  Rewrite r;
  r.after = b.to_ast(e);
  r.cls = Exactness::Reassoc;
  r.facts = {{"distributed_factor", b.print(rest)}, {"sum_before", b.print(sum)}};
  return {{Params{}, std::move(r)}};
}

}  // namespace

std::vector<Site> enumerate_expand_collect(const ir::Task& t) { return enumerate_rule("expand_collect", t, rule); }
Applied apply_expand_collect(const ir::Task& t, const Candidate& c) {
  return apply_rule("expand_collect", t, c, rule);
}

STEPTP_REGISTER_STRATEGY(expand_collect, 34, Algebraic,
                         "Distribute one factor over a sum, undoing a collection: `c*(t1+t2)` → "
                         "`c*t1+c*t2`.",
                         enumerate_expand_collect, apply_expand_collect);

}  // namespace steptp::strategy::algebraic
