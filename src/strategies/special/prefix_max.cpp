// normal_loop_max_to_prefix_max (STRATEGIES.md §11 entry 36): a genuine max reduction `O_s=max(O_s,e)` (B4:
// accumulator as the root max's direct operand; implicit init; one serial reduction key k of extent n) becomes
//   the same header:   F_{s,k}=max(if_then_else(k-1<0,-inf,F_{s,k-1}),e)
//   extraction (§7.5): O_s=F_{s,n-1}
// Fresh name: F. No parameters. Class E (max is exact and runs in the same order).
#include "ir/printer.hpp"
#include "strategies/analysis/softmax.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/special/special_util.hpp"

namespace steptp::strategy::special {

std::vector<Site> enumerate_prefix_max(const ir::Task& t) {
  std::vector<Site> out;
  for (std::uint32_t i = 0; i < t.program.nests.size(); ++i)
    if (analysis::match_max_reduction(t, i)) {
      SiteRef ref;
      ref.nest = {i};
      ref.stmt = 0;
      out.push_back(Site{ref, no_params()});
    }
  return out;
}

Applied apply_prefix_max(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("normal_loop_max_to_prefix_max");
  recheck(info, t, c);
  const std::uint32_t i = c.ref.nest[0];
  auto mx = analysis::match_max_reduction(t, i);
  if (!mx) throw_stale(c.id() + " is not a site of this task");
  const ir::Nest& site = t.program.nests[i];
  const ir::Stmt& st = *mx->stmt;

  analysis::NameAllocator names(t);
  PrefixBuf f{names.tensor(), analysis::effective_dtype(t, st.lhs), ir::Scope::Global, st.lhs.args, mx->k};
  ir::Nest prefix = site;
  prefix.body[0].stmt() = prefix_max_stmt(f, mx->y());
  ir::Nest extraction = helper_nest(site.loops, {make_stmt(st.lhs, f.at(ir::make_int(mx->n - 1)))});

  ir::Task after = t;
  auto& nests = after.program.nests;
  nests.erase(nests.begin() + i);
  nests.insert(nests.begin() + i, {prefix, extraction});

  Facts fa(info, c);
  fa.site_nest(t.program, c.ref.nest);
  fa.site_stmt(st);
  fa.set("reduction", {{"buffer", mx->acc()}, {"subscript", ir::print_expr(st.lhs)}, {"op", "max"},
                       {"init_status", "implicit"}});
  fa.set("axis", {{"key", mx->k}, {"extent", mx->n}});
  fa.set("prefix_buffer", {{"name", f.name}, {"statement", ir::print_stmt(prefix.body[0].stmt())}});
  fa.set("extraction", ir::print_nest(extraction));
  fa.legality("max at the root with the accumulator as a direct operand (B4)", "structural", true,
              ir::print_stmt(st));
  fa.legality("implicit init and one serial reduction key", "structural", true, mx->k);
  const std::int64_t elems = nest_elements(site);
  fa.cost("elements_added", elems);
  fa.cost("bytes_added", elems * ir::dtype_bytes(f.dtype));
  fa.set("growth_factor", mx->n);
  return finish(t, std::move(after), std::move(fa), Exactness::Exact, &names);
}

STEPTP_REGISTER_STRATEGY(normal_loop_max_to_prefix_max, 36, Special,
                         "Turn a max-reduction into a running (prefix) maximum along its "
                         "reduction axis, followed by a read of the last prefix element.",
                         enumerate_prefix_max, apply_prefix_max);

}  // namespace steptp::strategy::special
