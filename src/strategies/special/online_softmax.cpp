// online_softmax (STRATEGIES.md §11 entry 41): a (max, sum, normalise) triple (analysis/softmax.hpp) becomes the
// fused nest of entry 40 (Mp, Lp; guarded the same way when the scores may be -inf) and the normalisation reads
// `Mp_{s,n-1}` and `Lp_{s,n-1}` instead of M_s and S_s. The extraction of M or S (a §7.5 helper nest right after
// the fused nest) is emitted only for a buffer that is known or read by a statement other than the three of the
// triple. Every triple is a site, addressed by its normalisation statement; no triple gives an empty list (B21).
// Fresh names: Mp then Lp. No parameters. Class R.
#include <algorithm>

#include "ir/printer.hpp"
#include "strategies/analysis/softmax.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/special/special_util.hpp"

namespace steptp::strategy::special {

std::vector<Site> enumerate_online_softmax(const ir::Task& t) {
  std::vector<Site> out;
  for (const auto& tr : analysis::match_softmax_triples(t)) {
    SiteRef ref;
    ref.nest = tr.div_nest;
    ref.stmt = tr.div_item;
    out.push_back(Site{ref, no_params()});
  }
  return out;
}

Applied apply_online_softmax(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("online_softmax");
  recheck(info, t, c);
  std::optional<analysis::SoftmaxTriple> tri;
  for (auto& tr : analysis::match_softmax_triples(t))
    if (tr.div_nest == c.ref.nest && c.ref.stmt && tr.div_item == *c.ref.stmt) tri = std::move(tr);
  if (!tri) throw_stale(c.id() + " is not a site of this task");
  const auto& pr = tri->pair;
  const std::uint32_t m = pr.max.nest;
  const std::string& M = pr.max.acc();
  const std::string& S = pr.sum();

  analysis::NameAllocator names(t);
  const std::string mp = names.tensor();
  const std::string lp = names.tensor();
  FusedSoftmax f = fused_softmax(t, pr, mp, lp, ir::Scope::Global);
  const std::vector<const ir::Stmt*> triple = {pr.max.stmt, pr.sum_stmt, tri->div};
  const bool keep_m = t.find_known(M) || analysis::read_elsewhere(t.program, M, triple);
  const bool keep_s = t.find_known(S) || analysis::read_elsewhere(t.program, S, triple);
  const ir::Expr last = ir::make_int(pr.max.n - 1);
  std::vector<ir::Stmt> ext;
  if (keep_m) ext.push_back(make_stmt(pr.max.stmt->lhs, f.mp.at(last)));
  if (keep_s) ext.push_back(make_stmt(sum_ref_in_max_keys(pr), f.lp.at(last)));

  ir::Task after = t;
  ir::Nest* dn = analysis::nest_at(after.program, tri->div_nest);
  ir::Stmt& div = dn->body[tri->div_item].stmt();
  read_final_prefix(div, pr, f);
  const std::string div_after = ir::print_stmt(div);
  auto& nests = after.program.nests;
  nests.erase(nests.begin() + m, nests.begin() + m + 2);
  std::vector<ir::Nest> ins = {f.nest};
  if (!ext.empty()) ins.push_back(helper_nest(t.program.nests[m].loops, std::move(ext)));
  nests.insert(nests.begin() + m, ins.begin(), ins.end());

  Facts fa(info, c);
  fa.site_nest(t.program, c.ref.nest);
  fa.site_stmt(*tri->div);
  fa.set("max_nest", {{"index", m}, {"statement", ir::print_stmt(*pr.max.stmt)}});
  fa.set("sum_nest", {{"index", pr.sum_nest}, {"statement", ir::print_stmt(*pr.sum_stmt)}});
  fa.set("div_nest", {{"path", tri->div_nest}, {"statement", ir::print_stmt(*tri->div)}, {"after", div_after}});
  fa.set("axis", {{"key", pr.max.k}, {"extent", pr.max.n}});
  fa.set("prefix_buffers", {{{"name", mp}, {"statement", ir::print_stmt(f.nest.body[0].stmt())}},
                            {{"name", lp}, {"statement", ir::print_stmt(f.nest.body[1].stmt())}}});
  nlohmann::json kept = nlohmann::json::array();
  if (keep_m) kept.push_back(M);
  if (keep_s) kept.push_back(S);
  fa.set("extractions_kept", kept);
  if (ins.size() > 1) fa.set("extraction", ir::print_nest(ins[1]));
  fa.legality("(max, sum, normalise) triple; y'' equals y up to key renaming", "structural", true,
              ir::print_stmt(*tri->div));
  fa.legality("no write to " + M + " or " + S + " between the sum and the normalisation", "structural", true);
  guard_fact(fa, f);
  prefix_cost(fa, t.program.nests[m], f);
  return finish(t, std::move(after), std::move(fa), Exactness::Reassoc, &names);
}

STEPTP_REGISTER_STRATEGY(online_softmax, 41, Special,
                         "Compute a softmax with the online normaliser, reading the final running "
                         "maximum and sum directly in the normalisation step instead of "
                         "materialising the separate max and sum.",
                         enumerate_online_softmax, apply_online_softmax);

}  // namespace steptp::strategy::special
