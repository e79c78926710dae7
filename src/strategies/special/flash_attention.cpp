// flashattention_wo_tiling (STRATEGIES.md §11 entry 42): a softmax triple followed by the product
// `O_{s,j}=O_{s,j}+P_{s,k}*V_w` (analysis::match_attention) becomes
//   (1) the max nest's header:  Mp, Lp of entry 40 (guarded when the scores may be -inf), then a nested nest over
//       the keys j (fresh keys, product header order, L loops) computing
//       Acc_{s,j,k}=if_then_else(k-1<0,1,Acc_{s,j,k-1})*if_then_else(k-1<0,1,Lp_{s,k-1})
//                   *exp(if_then_else(k-1<0,-inf,Mp_{s,k-1})-Mp_{s,k})/Lp_{s,k}+exp(y-Mp_{s,k})/Lp_{s,k}*V_w
//       with V_w substituted exactly as written (B8); guarded like Lp (if_then_else(Mp_{s,k}==-inf,0,...)).
//   (2) the extraction of M / S (only for a known buffer or one read elsewhere), right after the fused nest;
//   (3) the normalisation nest: kept, reading Mp_{s,n-1} and Lp_{s,n-1}, when P is known or read elsewhere (B22);
//       removed otherwise;
//   (4) at the product's position, the extraction O_{s,j}=Acc_{s,j,n-1} (§7.5, product header order).
// Nests between the softmax and the product are kept; the product moves up to the max nest only when no nest in
// between writes V or a buffer the scores read (value preservation, §7.4, buffer level). Mp and Lp are local when
// no other nest reads them. Fresh names: Mp, Lp, Acc, then the keys j. No parameters. Class R.
#include <algorithm>
#include <set>

#include "ir/printer.hpp"
#include "strategies/analysis/softmax.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"
#include "strategies/special/special_util.hpp"

namespace steptp::strategy::special {

std::vector<Site> enumerate_flash_attention(const ir::Task& t) {
  std::vector<Site> out;
  for (const auto& a : analysis::match_attention(t)) {
    SiteRef ref;
    ref.nest = {a.mm};
    ref.stmt = 0;
    out.push_back(Site{ref, no_params()});
  }
  return out;
}

Applied apply_flash_attention(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("flashattention_wo_tiling");
  recheck(info, t, c);
  std::optional<analysis::AttentionSite> site;
  for (auto& a : analysis::match_attention(t))
    if (c.ref.nest.size() == 1 && a.mm == c.ref.nest[0]) site = std::move(a);
  if (!site) throw_stale(c.id() + " is not a site of this task");
  const auto& tri = site->tri;
  const auto& pr = tri.pair;
  const ir::Program& p = t.program;
  const std::uint32_t m = pr.max.nest;
  const std::string& M = pr.max.acc();
  const std::string& S = pr.sum();
  const ir::Nest& mmn = p.nests[site->mm];
  const ir::Stmt& mst = *site->mm_stmt;

  const std::vector<const ir::Stmt*> triple = {pr.max.stmt, pr.sum_stmt, tri.div};
  const bool keep_m = t.find_known(M) || analysis::read_elsewhere(p, M, triple);
  const bool keep_s = t.find_known(S) || analysis::read_elsewhere(p, S, triple);
  const bool local = !(keep_m || keep_s || site->keep_p);

  analysis::NameAllocator names(t);
  const std::string mp = names.tensor();
  const std::string lp = names.tensor();
  FusedSoftmax f = fused_softmax(t, pr, mp, lp, local ? ir::Scope::Local : ir::Scope::Global);
  const std::string accn = names.tensor();
  std::set<std::string> visible;
  for (const auto& l : p.nests[m].loops) visible.insert(l.var);
  analysis::KeyMap to_fused;  // product key -> key of the fused nest
  for (const auto& [pk, mk] : site->to_max) to_fused[pk] = ir::make_var(mk);
  ir::Nest inner;
  for (const auto& l : mmn.loops)
    if (std::find(site->j_keys.begin(), site->j_keys.end(), l.var) != site->j_keys.end()) {
      std::string key = names.key(visible);
      to_fused[l.var] = ir::make_var(key);
      inner.loops.push_back(ir::Loop{ir::LoopKind::L, l.extent, key, 0});
    }
  PrefixBuf acc{accn, analysis::effective_dtype(t, mst.lhs), ir::Scope::Global, pr.max.stmt->lhs.args, pr.max.k};
  for (const auto& jk : site->j_keys) acc.s.push_back(to_fused.at(jk));
  ir::Expr v = *site->v;
  analysis::substitute(v, to_fused);
  const std::string v_after = ir::print_expr(v);
  using ir::BinOp;
  ir::Expr rescale = ir::make_call(ir::Func::Exp, {bin(BinOp::Sub, f.mp.prev(neg_inf()), f.mp.at_k())});
  ir::Expr old = bin(BinOp::Div,
                     bin(BinOp::Mul, bin(BinOp::Mul, acc.prev(ir::make_int(1)), f.lp.prev(ir::make_int(1))), rescale),
                     f.lp.at_k());
  ir::Expr term = bin(BinOp::Mul,
                      bin(BinOp::Div, ir::make_call(ir::Func::Exp, {bin(BinOp::Sub, pr.max.y(), f.mp.at_k())}),
                          f.lp.at_k()),
                      std::move(v));
  ir::Expr rhs = bin(BinOp::Add, std::move(old), std::move(term));
  inner.body.push_back(ir::Item{make_stmt(acc.at_k(), f.guarded ? neg_inf_guard(f.mp, f.n, std::move(rhs)) : std::move(rhs))});
  ir::Nest fused = f.nest;
  if (inner.loops.empty()) fused.body.push_back(inner.body[0]);  // no key j (a product into O_s): no nested nest
  else fused.body.push_back(ir::Item{inner});

  const ir::Expr last = ir::make_int(pr.max.n - 1);
  std::vector<ir::Stmt> ext;
  if (keep_m) ext.push_back(make_stmt(pr.max.stmt->lhs, f.mp.at(last)));
  if (keep_s) ext.push_back(make_stmt(sum_ref_in_max_keys(pr), f.lp.at(last)));
  // O_{s,j}=Acc_{s,j,n-1} in the product's keys.
  analysis::KeyMap to_prod;
  for (const auto& [pk, mk] : site->to_max) to_prod[mk] = ir::make_var(pk);
  PrefixBuf acc_p = acc;
  acc_p.s = pr.max.stmt->lhs.args;
  for (auto& e : acc_p.s) analysis::substitute(e, to_prod);
  for (const auto& jk : site->j_keys) acc_p.s.push_back(ir::make_var(jk));
  ir::Nest out_ext = helper_nest(mmn.loops, {make_stmt(mst.lhs, acc_p.at(last))});

  std::vector<ir::Nest> nests;
  std::string div_after;
  for (std::uint32_t i = 0; i < p.nests.size(); ++i) {
    if (i == m) {
      nests.push_back(fused);
      if (!ext.empty()) nests.push_back(helper_nest(p.nests[m].loops, ext));
    } else if (i == pr.sum_nest) {
      continue;
    } else if (i == tri.div_top()) {
      if (!site->keep_p) continue;
      ir::Nest dn = p.nests[i];
      read_final_prefix(dn.body[0].stmt(), pr, f);
      div_after = ir::print_nest(dn);
      nests.push_back(std::move(dn));
    } else if (i == site->mm) {
      nests.push_back(out_ext);
    } else {
      nests.push_back(p.nests[i]);
    }
  }
  ir::Task after = t;
  after.program.nests = std::move(nests);

  Facts fa(info, c);
  fa.site_nest(p, c.ref.nest);
  fa.site_stmt(mst);
  fa.set("softmax_nests", {{{"index", m}, {"statement", ir::print_stmt(*pr.max.stmt)}},
                           {{"index", pr.sum_nest}, {"statement", ir::print_stmt(*pr.sum_stmt)}},
                           {{"index", tri.div_top()}, {"statement", ir::print_stmt(*tri.div)}}});
  fa.set("matmul_nest", {{"index", site->mm}, {"statement", ir::print_stmt(mst)}});
  fa.set("axis", {{"key", pr.max.k}, {"extent", pr.max.n}});
  fa.set("output_keys", site->j_keys);
  fa.set("v_access", {{"before", ir::print_expr(*site->v)}, {"after", v_after}});
  fa.set("prefix_buffers", {{{"name", mp}, {"scope", local ? "l" : "g"}}, {{"name", lp}, {"scope", local ? "l" : "g"}}});
  fa.set("accumulator", {{"name", accn}, {"statement", ir::print_stmt(inner.body[0].stmt())}});
  fa.set("nests_kept", site->kept_between);
  fa.set("p_nest_kept", site->keep_p);
  if (!div_after.empty()) fa.set("div_after", div_after);
  fa.legality("softmax triple followed by a sum-product over k reading P", "structural", true, ir::print_stmt(mst));
  fa.legality("no write to " + site->v->text + " or the scores' inputs between the softmax and the product",
              "structural", true, "value preservation at buffer level (§7.4)");
  guard_fact(fa, f);
  const std::int64_t acc_elems = prefix_cost(fa, p.nests[m], f) * nest_elements(inner);
  fa.cost("elements_added", acc_elems);  // Facts::cost adds to the prefix buffers' figures
  fa.cost("bytes_added", acc_elems * ir::dtype_bytes(acc.dtype));
  return finish(t, std::move(after), std::move(fa), Exactness::Reassoc, &names);
}

STEPTP_REGISTER_STRATEGY(flashattention_wo_tiling, 42, Special,
                         "Fuse an online softmax with the matrix product that consumes it: a "
                         "running, rescaled output accumulator is updated along the softmax axis, "
                         "and the probability matrix is never materialised.",
                         enumerate_flash_attention, apply_flash_attention);

}  // namespace steptp::strategy::special
