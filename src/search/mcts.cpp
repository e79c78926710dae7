// mcts (DATASET.md §9.2): UCT with progressive widening.
//
// From the root, at node v: if |children(v)| < floor(c_pw · N(v)^alpha) + 1 and v is not exhausted, expand v;
// otherwise move to the child maximising W/N + c·sqrt(ln N(v) / N(child)), ties broken by stream "mcts". Expansion
// asks for k programs. An accepted child c starts with N = 1 and W = r = clamp(log2(speedup_vs_root(c)), -1, 2); a
// failed proposal has r = -1; for each outcome every node on the path from v to the root gets N += 1 and W += r.
// A node failing `patience` requests in a row is exhausted (Search::ask); an exhausted childless node backs up its
// mean W/N instead. An expansion with a child from which the policy planned a further step follows that plan
// (follow_plan below; §9.2's plan macro-expansion). The search ends when the budgets are spent or every node is
// exhausted and childless below exhausted nodes (nothing left to expand).
#include <algorithm>
#include <cmath>

#include "base/hash.hpp"
#include "base/rng.hpp"
#include "search/engine.hpp"

namespace steptp::search {
namespace {

double reward(double speedup) { return std::clamp(std::log2(std::max(speedup, 1e-9)), -1.0, 2.0); }

void backup(Search& s, const std::vector<int>& path, double r) {
  for (int v : path) {
    s.nodes()[v].visits += 1;
    s.nodes()[v].value += r;
  }
}

/// Gives each accepted child of one request N = 1, W = r and backs every outcome up along `path` (the expanded
/// node first, the root last); a failed proposal backs up -1.
void back_up_outcomes(Search& s, const std::vector<int>& path, const AskResult& r) {
  for (int c : r.accepted) {
    const double rc = reward(s.nodes()[c].speedup);
    s.nodes()[c].visits = 1;
    s.nodes()[c].value = rc;
    backup(s, path, rc);
  }
  for (int i = 0; i < r.failed; ++i) backup(s, path, -1.0);
}

/// The plan macro-expansion: when an accepted child of an expansion (the first such) is a program from which the
/// policy planned a further step (Node::plan_continues), the expansion goes on at that child with a request for one
/// program, and so on down the plan, until the plan ends, a proposal fails or a budget is spent. Every program on
/// the way is an ordinary node (verified against the root, measured, N = 1, W = r) whose outcome is backed up along
/// its own path. UCT with progressive widening re-expands every node about twice before it goes one level deeper,
/// so without this a plan of seven steps whose middle steps gain nothing is never completed within the §9.1 budgets.
void follow_plan(Search& s, std::vector<int> path, AskResult r) {
  for (;;) {
    int next = -1;
    for (int c : r.accepted)
      if (s.nodes()[c].plan_continues) {
        next = c;
        break;
      }
    if (next < 0 || s.out_of_budget()) return;
    path.insert(path.begin(), next);
    r = s.ask(next, 1);
    if (r.requested == 0) return;
    back_up_outcomes(s, path, r);
  }
}

/// True when some node under (and including) v can still be expanded.
bool expandable(const Search& s, int v) {
  const Node& n = s.nodes()[v];
  if (!n.exhausted) return true;
  for (int c : n.children)
    if (expandable(s, c)) return true;
  return false;
}

}  // namespace

void run_mcts(Search& s) {
  const SearchConfig& cfg = s.config();
  core::Rng rng(core::derive(cfg.seed, "mcts", {s.root().task_key()}));
  // The root starts visited once with value 0, so that ln N(root) is defined at the first selection.
  s.nodes()[0].visits = std::max(s.nodes()[0].visits, 1.0);
  // Selections that end at exhausted leaves cost no budget; UCT moves away from them as their visits grow, and the
  // cap below only guards against a tree whose expandable nodes UCT never reaches.
  int idle = 0;
  while (!s.out_of_budget() && expandable(s, 0) && idle < 100000) {
    std::vector<int> path{0};
    int v = 0;
    for (;;) {
      const Node& n = s.nodes()[v];
      const double widen = std::floor(cfg.c_pw * std::pow(n.visits, cfg.alpha_pw)) + 1;
      if (!n.exhausted && double(n.children.size()) < widen) break;  // expand v
      if (n.children.empty()) break;                                  // exhausted leaf
      std::vector<int> best;
      double best_u = -1e300;
      for (int c : n.children) {
        const Node& ch = s.nodes()[c];
        const double u = ch.value / ch.visits + cfg.c_uct * std::sqrt(std::log(n.visits) / ch.visits);
        if (u > best_u) best_u = u, best.assign(1, c);
        else if (u == best_u) best.push_back(c);
      }
      v = best.size() == 1 ? best[0] : best[rng.below(best.size())];
      path.push_back(v);
    }
    std::reverse(path.begin(), path.end());  // v first, root last
    const Node& n = s.nodes()[v];
    if (n.exhausted) {  // an exhausted childless node backs up its mean
      backup(s, path, n.visits > 0 ? n.value / n.visits : -1.0);
      ++idle;
      continue;
    }
    AskResult r = s.ask(v, cfg.programs_per_request());
    if (r.requested == 0) break;
    idle = 0;
    back_up_outcomes(s, path, r);
    follow_plan(s, path, r);
  }
}

}  // namespace steptp::search
