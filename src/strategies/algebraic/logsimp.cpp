// logsimp (STRATEGIES.md §11 entry 32): combine a sum of logarithms, including integer multiples, into the logarithm
// of one product, `Σ k_i*log(f_i)` -> `log(∏ f_i^k_i)`. Hand-written (§9.3). The site is a maximal sum node with at
// least two terms k_i*log(f_i) in GiNaC (k_i a non-zero integer; GiNaC has already merged equal logs). Parameter
// `group`: the log terms to merge, printed; all of them first, then, when there are more than two, every proper
// subset of size >= 2 in first-occurrence order (index tuples in lexicographic order, a prefix first; at most
// kMaxTerms terms are split into subsets). The merged log is finite for some inputs where the original is not (two
// negative f_i), so every merged f_i needs f_i>0, proven or guarded (§6). Class D.
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

constexpr std::size_t kMaxTerms = 8;  // 2^8 - 9 = 247 proper subsets at most

/// A term k*log(f) with a non-zero integer k.
std::optional<LogFactor> log_term(const ex& x) {
  if (is_log(x)) return LogFactor{x.op(0), 1};
  if (GiNaC::is_a<GiNaC::mul>(x) && x.nops() == 2) {
    for (int i = 0; i < 2; ++i) {
      const ex k = x.op(i), l = x.op(1 - i);
      if (GiNaC::is_a<numeric>(k) && GiNaC::ex_to<numeric>(k).is_integer() && is_log(l))
        return LogFactor{l.op(0), GiNaC::ex_to<numeric>(k)};
    }
  }
  return std::nullopt;
}

/// Every subset of {0..n-1} of size >= 2 in lexicographic order of its sorted index tuple, the full set excluded.
void subsets(std::size_t n, std::size_t from, std::vector<std::size_t>& cur,
             std::vector<std::vector<std::size_t>>& out) {
  for (std::size_t i = from; i < n; ++i) {
    cur.push_back(i);
    if (cur.size() >= 2 && cur.size() < n) out.push_back(cur);
    subsets(n, i + 1, cur, out);
    cur.pop_back();
  }
}

std::vector<std::pair<Params, Rewrite>> rule(Bridge& b, const TargetStmt& ts, const TargetNode& n, const ir::Task& t) {
  if (!is_sum_node(n.e) || is_sum_node(enclosing_operator(ts, n))) return {};
  const ex x = b.to_ex(*n.e);
  if (!GiNaC::is_a<GiNaC::add>(x)) return {};
  std::vector<std::pair<ex, LogFactor>> logs;  // (term, k*log(f))
  ex rest = 0;
  for (std::size_t i = 0; i < x.nops(); ++i) {
    if (auto lt = log_term(x.op(i))) logs.push_back({x.op(i), *lt});
    else rest = rest + x.op(i);
  }
  if (logs.size() < 2) return {};
  std::stable_sort(logs.begin(), logs.end(), [&](const auto& p, const auto& q) {
    return std::make_pair(b.key_of(p.first), b.print(p.first)) < std::make_pair(b.key_of(q.first), b.print(q.first));
  });
  std::vector<std::vector<std::size_t>> groups(1);
  for (std::size_t i = 0; i < logs.size(); ++i) groups[0].push_back(i);
  if (logs.size() > 2 && logs.size() <= kMaxTerms) {
    std::vector<std::size_t> cur;
    subsets(logs.size(), 0, cur, groups);
  }
  const auto signs = analysis::task_signs(t);
  std::vector<std::pair<Params, Rewrite>> out;
  for (const auto& g : groups) {
    ex prod = 1, merged_terms = 0, others = rest;
    std::vector<LogFactor> fs;
    nlohmann::json terms = nlohmann::json::array();
    for (std::size_t i = 0; i < logs.size(); ++i) {
      if (std::find(g.begin(), g.end(), i) == g.end()) {
        others = others + logs[i].first;
        continue;
      }
      prod = prod * GiNaC::pow(logs[i].second.f, logs[i].second.k);
      merged_terms = merged_terms + logs[i].first;
      fs.push_back(logs[i].second);
      terms.push_back(b.print(logs[i].first));
    }
    if (GiNaC::is_a<numeric>(prod)) continue;  // log(A)-log(A) cannot occur (GiNaC merged it); log(1/A)+log(A)
    Rewrite r;
    r.after = b.to_ast(others + GiNaC::log(prod));
    r.cls = Exactness::Domain;
    r.conditions = positive_factors(b, fs, *signs, nullptr);
    r.facts = {{"merged_terms", terms}, {"merged_log", b.print(GiNaC::log(prod))}};
    out.push_back({Params{{"group", b.print(merged_terms)}}, std::move(r)});
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_logsimp(const ir::Task& t) { return enumerate_rule("logsimp", t, rule); }
Applied apply_logsimp(const ir::Task& t, const Candidate& c) { return apply_rule("logsimp", t, c, rule); }

STEPTP_REGISTER_STRATEGY(logsimp, 32, Algebraic,
                         "Combine a sum of logarithms, including integer multiples, into the "
                         "logarithm of one product: `log(a)+log(b)` → `log(a*b)`.",
                         enumerate_logsimp, apply_logsimp);

}  // namespace steptp::strategy::algebraic
