// normal_loop_summation_on_exp_to_prefix_summation_on_exp (STRATEGIES.md §11 entry 40): the (max, sum of exp)
// nests m, m+1 (analysis/softmax.hpp) become
//   the max nest's header:  Mp_{s,k}=max(if_then_else(k-1<0,-inf,Mp_{s,k-1}),y)
//                           Lp_{s,k}=if_then_else(k-1<0,1,Lp_{s,k-1})*exp(if_then_else(k-1<0,-inf,Mp_{s,k-1})-Mp_{s,k})
//                                    +exp(y-Mp_{s,k})
//   extraction (§7.5):      M_s=Mp_{s,n-1}; S_s=Lp_{s,n-1}
// When y may be -inf (analysis::may_be_neg_inf: masked scores), Lp's right-hand side is wrapped in
// if_then_else(Mp_{s,k}==-inf,0,...): the catalogue's form computes -inf-(-inf) = NaN on a row whose leading
// scores are -inf. Fresh names: Mp then Lp. No parameters. Class R.
#include "ir/printer.hpp"
#include "strategies/analysis/softmax.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/special/special_util.hpp"

namespace steptp::strategy::special {

std::vector<Site> enumerate_prefix_sum_exp(const ir::Task& t) {
  std::vector<Site> out;
  for (std::uint32_t m = 0; m + 1 < t.program.nests.size(); ++m)
    if (analysis::match_max_sum(t, m)) {
      SiteRef ref;
      ref.nest = {m};
      ref.stmt = 0;
      out.push_back(Site{ref, no_params()});
    }
  return out;
}

Applied apply_prefix_sum_exp(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("normal_loop_summation_on_exp_to_prefix_summation_on_exp");
  recheck(info, t, c);
  const std::uint32_t m = c.ref.nest[0];
  auto pr = analysis::match_max_sum(t, m);
  if (!pr) throw_stale(c.id() + " is not a site of this task");
  const ir::Stmt& mst = *pr->max.stmt;

  analysis::NameAllocator names(t);
  const std::string mp = names.tensor();
  const std::string lp = names.tensor();
  FusedSoftmax f = fused_softmax(t, *pr, mp, lp, ir::Scope::Global);
  const ir::Expr last = ir::make_int(pr->max.n - 1);
  ir::Nest extraction = helper_nest(t.program.nests[m].loops,
                                    {make_stmt(mst.lhs, f.mp.at(last)), make_stmt(sum_ref_in_max_keys(*pr), f.lp.at(last))});

  ir::Task after = t;
  auto& nests = after.program.nests;
  nests.erase(nests.begin() + m, nests.begin() + m + 2);
  nests.insert(nests.begin() + m, {f.nest, extraction});

  Facts fa(info, c);
  fa.site_nest(t.program, c.ref.nest);
  fa.site_stmt(mst);
  fa.set("max_nest", {{"index", m}, {"statement", ir::print_stmt(mst)}});
  fa.set("sum_nest", {{"index", m + 1}, {"statement", ir::print_stmt(*pr->sum_stmt)}});
  fa.set("axis", {{"key", pr->max.k}, {"extent", pr->max.n}});
  fa.set("prefix_buffers", {{{"name", mp}, {"role", "running maximum"}, {"statement", ir::print_stmt(f.nest.body[0].stmt())}},
                            {{"name", lp}, {"role", "running rescaled sum"}, {"statement", ir::print_stmt(f.nest.body[1].stmt())}}});
  fa.set("extraction", ir::print_nest(extraction));
  fa.legality("headers equal up to key renaming; y' equals y after renaming", "structural", true,
              print_header(t.program.nests[m]) + " ~ " + print_header(t.program.nests[m + 1]));
  fa.legality("implicit init of both reductions, one serial reduction key", "structural", true, pr->max.k);
  if (f.guarded)
    guard_fact(fa, f);
  prefix_cost(fa, t.program.nests[m], f);
  return finish(t, std::move(after), std::move(fa), Exactness::Reassoc, &names);
}

STEPTP_REGISTER_STRATEGY(normal_loop_summation_on_exp_to_prefix_summation_on_exp, 40, Special,
                         "Fuse a max-reduction and the sum of exponentials that follows it into "
                         "one pass that keeps a running maximum and a running rescaled sum (the "
                         "online normaliser).",
                         enumerate_prefix_sum_exp, apply_prefix_sum_exp);

}  // namespace steptp::strategy::special
