// chain, greedy, beam, dfs and bfs (DATASET.md §9.2); mcts lives in mcts.cpp.
#include <algorithm>
#include <deque>

#include "search/engine.hpp"

namespace steptp::search {
namespace {

/// Children sorted by speedup, best first; ties keep creation order.
std::vector<int> best_first(const Search& s, std::vector<int> ids) {
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int a, int b) { return s.nodes()[a].speedup > s.nodes()[b].speedup; });
  return ids;
}

}  // namespace

// chain: current = root; ask for one program; an accepted child becomes current unconditionally; stop after
// `patience` consecutive failures.
void run_chain(Search& s) {
  int current = 0, fails = 0;
  while (fails < s.config().patience && !s.out_of_budget()) {
    AskResult r = s.ask(current, s.config().programs_per_request());
    if (r.requested == 0) return;
    if (r.accepted.empty()) {
      ++fails;
      continue;
    }
    fails = 0;
    current = best_first(s, r.accepted).front();
  }
}

// greedy: ask current for k programs; move to the best child only if it beats current by more than epsilon
// (relative), else retry; stop after `patience` consecutive stalls.
void run_greedy(Search& s) {
  int current = 0, stalls = 0;
  while (stalls < s.config().patience && !s.out_of_budget()) {
    AskResult r = s.ask(current, s.config().programs_per_request());
    if (r.requested == 0) return;
    if (!r.accepted.empty()) {
      const int best = best_first(s, r.accepted).front();
      if (s.nodes()[best].speedup > s.nodes()[current].speedup * (1 + s.config().epsilon)) {
        current = best;
        stalls = 0;
        continue;
      }
    }
    ++stalls;
  }
}

// beam: beam = [root]; each round asks every beam node for top_k programs and keeps the best `beam_width` children
// of the round; stop when a round yields no child.
void run_beam(Search& s) {
  std::vector<int> beam{0};
  while (!beam.empty() && !s.out_of_budget()) {
    std::vector<int> round;
    for (int b : beam) {
      AskResult r = s.ask(b, s.config().programs_per_request());
      round.insert(round.end(), r.accepted.begin(), r.accepted.end());
      if (s.out_of_budget()) break;
    }
    round = best_first(s, round);
    if (round.size() > std::size_t(s.config().beam_width)) round.resize(s.config().beam_width);
    beam = std::move(round);
  }
}

namespace {

/// dfs / bfs: a stack or queue of accepted nodes; pop, ask for k programs if depth < max_depth, push the accepted
/// children (DFS pushes them in increasing speedup order, so the best is expanded next).
void run_frontier(Search& s, bool depth_first) {
  std::deque<int> frontier{0};
  while (!frontier.empty() && !s.out_of_budget()) {
    int v;
    if (depth_first) {
      v = frontier.back();
      frontier.pop_back();
    } else {
      v = frontier.front();
      frontier.pop_front();
    }
    if (s.nodes()[v].depth >= s.config().max_depth) continue;
    AskResult r = s.ask(v, s.config().programs_per_request());
    std::vector<int> kids = best_first(s, r.accepted);
    if (depth_first) std::reverse(kids.begin(), kids.end());  // worst pushed first, best on top
    for (int c : kids) frontier.push_back(c);
  }
}

}  // namespace

void run_dfs(Search& s) { run_frontier(s, true); }
void run_bfs(Search& s) { run_frontier(s, false); }

}  // namespace steptp::search
