#include "dataset/filter.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "ir/canon.hpp"
#include "base/hash.hpp"
#include "step/prompt.hpp"
#include "step/reasoning.hpp"
#include "step/record.hpp"
#include "base/rng.hpp"
#include "step/tokens.hpp"
#include "strategies/registry.hpp"

namespace steptp::dataset {
namespace {

int catalogue_index(const std::string& name) {
  const auto* s = strategy::find(name);
  return s ? s->index : 1000;
}

struct RecView {
  std::string id, strategy, workload, family, user, before_key, after_key, signature;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  double speedup = 0;
  bool noisy = false, measured = false;
};

std::string loop_signature(const ir::Task& t) {
  std::string s = std::to_string(t.program.nests.size());
  for (const auto& n : t.program.nests) {
    int loops = 0, stmts = 0;
    std::vector<const ir::Nest*> stack{&n};
    while (!stack.empty()) {
      const ir::Nest* x = stack.back();
      stack.pop_back();
      loops += int(x->loops.size());
      for (const auto& it : x->body) {
        if (it.is_stmt()) ++stmts;
        else stack.push_back(&it.nest());
      }
    }
    s += "|" + std::to_string(loops) + "," + std::to_string(stmts);
  }
  return s;
}

class Filter {
 public:
  Filter(const std::vector<ojson>& a, const std::vector<Reject>& pre_rejects, const FilterConfig& fc,
         std::uint64_t master, const TokenCounter& tokens)
      : a_(a), pre_rejects_(pre_rejects), fc_(fc), seed_(fc.seed(master)), tokens_(tokens) {}

  FilterOutput run() {
    views();
    dedup_pairs();
    assign_splits();
    for (const char* sp : kSplits) build_split(sp);
    leakage();
    baselines();
    eval_prompts();
    return std::move(out_);
  }

 private:
  void views() {
    std::map<std::string, std::pair<std::string, std::string>> by_task;  // task_id -> (canon key, signature)
    for (const auto& r : a_) {
      RecView v;
      v.id = r["record_id"];
      v.strategy = r["strategy"]["name"];
      v.workload = r["workload"];
      v.family = r["family"];
      v.user = render_user(v.workload, r["before"]["leir"].get<std::string>(), r["before"]["known"], 1);
      auto it = by_task.find(r["task_id"]);
      if (it == by_task.end()) {
        ir::Task b = record_task(r, false);
        it = by_task.emplace(r["task_id"], std::make_pair(alpha_canonical(b) + "|" + canonical_known_json(b),
                                                          v.family + "|" + loop_signature(b))).first;
      }
      v.before_key = it->second.first;
      v.signature = it->second.second;
      v.after_key = alpha_canonical(record_task(r, true));
      v.prompt_tokens = r["tokens"]["prompt"];
      v.completion_tokens = r["tokens"]["completion"];
      if (!r["measurement"].is_null()) {
        v.measured = true;
        v.speedup = r["measurement"]["speedup"];
        v.noisy = r["measurement"]["noisy"];
      }
      v_.push_back(std::move(v));
    }
  }

  void reject(std::size_t i, const char* stage, const char* reason) {
    out_.rejects.push_back({a_[i]["unit"], v_[i].strategy, stage, reason, v_[i].id});
  }

  /// §7.3 before §7.1: an over-long record is dropped before it can win a duplicate pair, as the pre-measurement
  /// filter of generate drops it before it becomes a record.
  void dedup_pairs() {
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < v_.size(); ++i) {
      if (too_long(v_[i].prompt_tokens, v_[i].completion_tokens)) reject(i, "S10", "too_long");
      else groups[v_[i].before_key + "\x1f" + v_[i].after_key].push_back(i);
    }
    alive_.assign(v_.size(), false);
    for (auto& [k, g] : groups) {
      std::sort(g.begin(), g.end(), [&](std::size_t x, std::size_t y) {
        int cx = catalogue_index(v_[x].strategy), cy = catalogue_index(v_[y].strategy);
        return cx != cy ? cx < cy : v_[x].id < v_[y].id;
      });
      alive_[g[0]] = true;
      std::set<std::string> alias;
      for (std::size_t j = 1; j < g.size(); ++j) {
        if (v_[g[j]].strategy != v_[g[0]].strategy) alias.insert(v_[g[j]].strategy);
        reject(g[j], "S10", "duplicate_pair");
      }
      if (!alias.empty()) out_.aliases[g[0]] = {alias.begin(), alias.end()};
    }
  }

  /// DATASET.md §7.2, with the family rule refined (issue #9): a family keeps a place in every split only when it has
  /// enough groups for the proportions to give each split one, k >= ceil(1 / min(split_val, split_test)) (10 at the
  /// default 0.8/0.1/0.1); the groups of smaller families are pooled and dealt together by the same rule, so a
  /// selection of few workloads per family still leaves train with about `split_train` of the groups.
  void assign_splits() {
    std::map<std::string, std::vector<std::pair<double, std::string>>> fam;
    std::set<std::string> seen;
    auto add = [&](const std::string& workload, const std::string& family) {
      if (!seen.insert(workload).second) return;
      double u = double(u64_le_of_hex(H({"split", std::to_string(seed_), workload}))) / 18446744073709551616.0;
      fam[family].push_back({u, workload});
    };
    for (const auto& v : v_) add(v.workload, v.family);
    // A workload whose every sample generate dropped as too long before measuring is still a split group, as it
    // would be had its records been measured and dropped here.
    for (const auto& r : pre_rejects_)
      if (r.stage == "S10" && r.reason == "too_long" && !r.family.empty()) add(r.unit.substr(0, r.unit.rfind('#')), r.family);
    const double tot = fc_.split_train + fc_.split_val + fc_.split_test;
    double smallest = 1.0;
    for (double f : {fc_.split_val / tot, fc_.split_test / tot})
      if (f > 0) smallest = std::min(smallest, f);
    const std::size_t min_groups = std::size_t(std::ceil(1.0 / smallest - 1e-9));
    std::vector<std::pair<double, std::string>> pool;
    auto deal = [&](std::vector<std::pair<double, std::string>>& groups) {
      std::sort(groups.begin(), groups.end());
      std::size_t k = groups.size();
      std::size_t n_val = 0, n_test = 0;
      if (k >= 3) {
        n_val = std::max<std::size_t>(fc_.split_val > 0 ? 1 : 0, std::size_t(std::llround(k * fc_.split_val / tot)));
        n_test = std::max<std::size_t>(fc_.split_test > 0 ? 1 : 0, std::size_t(std::llround(k * fc_.split_test / tot)));
        if (n_val + n_test >= k) n_val = n_test = 1;
      }
      for (std::size_t j = 0; j < k; ++j)
        out_.split_of[groups[j].second] = j >= k - n_test ? "test" : j >= k - n_test - n_val ? "val" : "train";
    };
    for (auto& [f, groups] : fam) {
      if (groups.size() >= min_groups) deal(groups);
      else pool.insert(pool.end(), groups.begin(), groups.end());
    }
    deal(pool);
  }

  /// The system prompt's tokens, which every prompt count includes (§4 "Token counts").
  std::int64_t system_tokens() {
    if (system_tokens_ < 0) system_tokens_ = tokens_.count(render_system());
    return system_tokens_;
  }

  bool too_long(std::int64_t p, std::int64_t c) const { return fc_.too_long(p, c); }

  static bool in(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  }

  Sample single(std::size_t i) const {
    Sample s;
    s.recs = {i};
    s.user = v_[i].user;
    s.assistant = render_assistant(a_[i]["reasoning"].get<std::string>(),
                                   {{v_[i].strategy, a_[i]["after"]["leir"].get<std::string>()}});
    return s;
  }

  Sample multi(const std::vector<std::size_t>& recs) const {
    Sample s;
    s.recs = recs;
    s.n = int(recs.size());
    const auto& r0 = a_[recs[0]];
    s.user = render_user(v_[recs[0]].workload, r0["before"]["leir"].get<std::string>(), r0["before"]["known"], s.n);
    std::vector<std::string> rs;
    std::vector<std::pair<std::string, std::string>> ans;
    for (auto i : recs) {
      rs.push_back(a_[i]["reasoning"].get<std::string>());
      ans.emplace_back(v_[i].strategy, a_[i]["after"]["leir"].get<std::string>());
    }
    s.assistant = render_assistant(render_multi_reasoning(rs), ans);
    return s;
  }

  /// Prefer non-noisy, higher speedup, then smaller id.
  bool better(std::size_t x, std::size_t y) const {
    if (v_[x].noisy != v_[y].noisy) return !v_[x].noisy;
    if (v_[x].speedup != v_[y].speedup) return v_[x].speedup > v_[y].speedup;
    return v_[x].id < v_[y].id;
  }

  void build_split(const std::string& sp) {
    std::vector<std::size_t> recs;
    for (std::size_t i = 0; i < v_.size(); ++i)
      if (alive_[i] && out_.split_of[v_[i].workload] == sp) recs.push_back(i);
    std::vector<Sample> samples;
    if (sp == "test") {
      for (auto i : recs) samples.push_back(single(i));
    } else {
      balance(sp, recs, samples);
    }
    Rng order(derive(seed_, "order", {sp}));
    order.shuffle(samples);
    std::set<std::size_t> used;
    for (const auto& s : samples) used.insert(s.recs.begin(), s.recs.end());
    out_.kept[sp] = {used.begin(), used.end()};
    out_.samples[sp] = std::move(samples);
  }

  void balance(const std::string& sp, const std::vector<std::size_t>& recs, std::vector<Sample>& samples) {
    // 1. prompt groups: one sample per strategy, at most max_answers_per_prompt
    std::map<std::string, std::vector<std::size_t>> groups;
    for (auto i : recs) groups[v_[i].user].push_back(i);
    std::map<std::string, std::set<std::string>> group_strats;
    std::vector<std::size_t> singles;
    for (auto& [u, g] : groups) {
      for (auto i : g) group_strats[u].insert(v_[i].strategy);
      std::map<std::string, std::size_t> best;
      for (auto i : g) {
        auto it = best.find(v_[i].strategy);
        if (it == best.end()) best[v_[i].strategy] = i;
        else if (better(i, it->second)) {
          reject(it->second, "S10", "duplicate_prompt");
          it->second = i;
        } else {
          reject(i, "S10", "duplicate_prompt");
        }
      }
      std::vector<std::size_t> keep;
      for (auto& [s, i] : best) keep.push_back(i);
      std::sort(keep.begin(), keep.end(), [&](std::size_t x, std::size_t y) { return better(x, y); });
      for (std::size_t j = 0; j < keep.size(); ++j) {
        if (int(j) < fc_.max_answers_per_prompt) singles.push_back(keep[j]);
        else reject(keep[j], "S10", "duplicate_prompt");
      }
    }
    std::sort(singles.begin(), singles.end());
    // 2. quotas
    Rng qrng(derive(seed_, "quota", {sp}));
    qrng.shuffle(singles);
    std::map<std::string, int> protected_n;
    std::set<std::size_t> prot;
    for (auto i : singles)
      if (protected_n[v_[i].strategy] < fc_.min_per_strategy) {
        protected_n[v_[i].strategy]++;
        prot.insert(i);
      }
    ojson shortfall = ojson::object();
    for (auto& [s, n] : protected_n)
      if (n < fc_.min_per_strategy) shortfall[s] = fc_.min_per_strategy - n;
    out_.audit["quota_shortfalls"][sp] = shortfall;
    // 3-4. thinning
    Rng trng(derive(seed_, "thin", {sp}));
    std::map<std::string, int> count;
    for (auto i : prot) count[v_[i].strategy]++;
    std::vector<std::size_t> kept;
    for (auto i : singles) {
      const std::string& s = v_[i].strategy;
      if (prot.count(i)) {
        kept.push_back(i);
        continue;
      }
      double p = 1;
      int cap = -1;
      if (in(fc_.easy, s)) p = fc_.p_easy, cap = fc_.cap_easy;
      else if (in(fc_.forward_reversible, s)) p = fc_.p_forward, cap = fc_.cap_forward;
      else if (in(fc_.reverse_rewrites, s)) p = fc_.p_reverse, cap = fc_.cap_reverse;
      bool draw = p >= 1 || trng.chance(p);
      if (!draw || (cap >= 0 && count[s] >= cap)) {
        reject(i, "S10", "thinned");
        continue;
      }
      count[s]++;
      kept.push_back(i);
    }
    // 5. caps (protected samples first)
    std::stable_partition(kept.begin(), kept.end(), [&](std::size_t i) { return prot.count(i) > 0; });
    std::int64_t share = std::max<std::int64_t>(std::int64_t(std::ceil(fc_.max_strategy_share * double(kept.size()))),
                                                fc_.min_per_strategy);
    std::int64_t limit = std::min<std::int64_t>(fc_.cap_per_strategy, share);
    std::map<std::string, std::int64_t> used;
    std::vector<std::size_t> capped;
    for (auto i : kept) {
      if (used[v_[i].strategy]++ >= limit) reject(i, "S10", "cap");
      else capped.push_back(i);
    }
    std::sort(capped.begin(), capped.end());
    // 6-7. anti-shortcut and multi-N, per prompt group
    std::map<std::string, std::vector<std::size_t>> surv;
    for (auto i : capped) surv[v_[i].user].push_back(i);
    Rng mrng(derive(seed_, "multi", {sp}));
    auto multi_ok = [&](std::size_t i) {
      return !in(fc_.forward_reversible, v_[i].strategy) && !in(fc_.reverse_rewrites, v_[i].strategy);
    };
    for (auto& [u, g] : groups) {
      auto& s = surv[u];
      std::set<std::string> ss;
      for (auto i : s) ss.insert(v_[i].strategy);
      if (group_strats[u].size() >= 2 && ss.size() < 2) {
        // a single fixed answer would be a shortcut: build a multi-N sample from the group, or drop
        std::map<std::string, std::size_t> pick;
        for (auto i : g)
          if (multi_ok(i) && (!pick.count(v_[i].strategy) || better(i, pick[v_[i].strategy]))) pick[v_[i].strategy] = i;
        for (auto i : s) reject(i, "S10", "shortcut");
        if (pick.size() >= 2) {
          std::vector<std::size_t> rs;
          for (auto& [n, i] : pick) rs.push_back(i);
          mrng.shuffle(rs);
          rs.resize(std::min<std::size_t>(rs.size(), std::size_t(fc_.max_multi_n)));
          samples.push_back(multi(rs));
        }
        continue;
      }
      for (auto i : s) samples.push_back(single(i));
      std::vector<std::size_t> ms;
      for (auto i : s)
        if (multi_ok(i)) ms.push_back(i);
      if (ms.size() >= 2 && mrng.chance(fc_.p_multi)) {
        std::size_t hi = std::min<std::size_t>(ms.size(), std::size_t(fc_.max_multi_n));
        std::size_t n = 2 + mrng.below(hi - 1);
        mrng.shuffle(ms);
        ms.resize(n);
        samples.push_back(multi(ms));
      }
    }
    for (auto it = samples.begin(); it != samples.end();) {
      if (it->n > 1 && too_long(system_tokens() + tokens_.count(it->user), tokens_.count(it->assistant)))
        it = samples.erase(it);
      else ++it;
    }
  }

  void leakage() {
    std::set<std::string> users, befores;
    for (const auto& s : out_.samples["train"])
      for (auto i : s.recs) {
        users.insert(v_[i].user);
        befores.insert(v_[i].before_key);
      }
    for (const char* sp : {"val", "test"}) {
      auto& ss = out_.samples[sp];
      std::int64_t leaks = 0;
      for (auto it = ss.begin(); it != ss.end();) {
        bool leak = false;
        for (auto i : it->recs) leak = leak || users.count(v_[i].user) || befores.count(v_[i].before_key);
        if (leak) {
          for (auto i : it->recs) reject(i, "S10", "split_leak");
          ++leaks;
          it = ss.erase(it);
        } else {
          ++it;
        }
      }
      out_.audit["split_leak"][sp] = leaks;
      std::set<std::size_t> used;
      for (const auto& s : ss) used.insert(s.recs.begin(), s.recs.end());
      out_.kept[sp] = {used.begin(), used.end()};
    }
  }

  void baselines() {
    std::map<std::string, std::int64_t> freq;
    std::map<std::string, std::map<std::string, std::int64_t>> sig;
    for (const auto& s : out_.samples["train"])
      if (s.n == 1) {
        freq[v_[s.recs[0]].strategy]++;
        sig[v_[s.recs[0]].signature][v_[s.recs[0]].strategy]++;
      }
    auto argmax = [](const std::map<std::string, std::int64_t>& m) {
      std::string best;
      std::int64_t n = -1;
      for (auto& [k, c] : m)
        if (c > n) best = k, n = c;
      return best;
    };
    std::string majority = argmax(freq);
    out_.audit["majority_strategy"] = majority;
    for (const char* sp : {"val", "test"}) {
      std::map<std::string, std::set<std::string>> groups;
      std::map<std::string, std::string> gsig;
      for (auto i : out_.kept[sp]) {
        groups[v_[i].user].insert(v_[i].strategy);
        gsig[v_[i].user] = v_[i].signature;
      }
      std::int64_t maj = 0, sg = 0, multi = 0, total_strats = 0;
      for (auto& [u, ss] : groups) {
        maj += ss.count(majority);
        auto it = sig.find(gsig[u]);
        sg += ss.count(it == sig.end() ? majority : argmax(it->second));
        multi += ss.size() >= 2;
        total_strats += std::int64_t(ss.size());
      }
      double n = groups.empty() ? 1.0 : double(groups.size());
      ojson a{{"prompts", groups.size()}, {"majority_baseline_accuracy", double(maj) / n},
              {"signature_baseline_accuracy", double(sg) / n}, {"mean_strategies_per_prompt", double(total_strats) / n},
              {"groups_with_2plus_strategies", multi}};
      out_.audit["baselines"][sp] = a;
      if (fc_.fail_on_shortcut && double(sg) / n > 0.5)
        throw std::runtime_error(std::string("signature baseline exceeds 0.5 on ") + sp + " (--fail-on-shortcut)");
    }
  }

  void eval_prompts() {
    std::string sys = render_system();
    for (const char* sp : {"val", "test"}) {
      std::map<std::string, std::vector<std::size_t>> groups;  // task_id -> recs
      for (auto i : out_.kept[sp]) groups[a_[i]["workload"].get<std::string>() + "\x1f" + a_[i]["task_id"].get<std::string>()].push_back(i);
      std::vector<ojson> lines;
      for (auto& [k, g] : groups) {
        const auto& r = a_[g[0]];
        std::set<std::string> strats;
        for (auto i : g) strats.insert(v_[i].strategy);
        for (int n : {1, fc_.eval_n}) {
          if (n > 1 && int(strats.size()) < n) continue;
          ojson p;
          p["id"] = std::string(sp) + "-" + r["task_id"].get<std::string>() + "-n" + std::to_string(n);
          p["task_id"] = r["task_id"];
          p["workload"] = r["workload"];
          p["n"] = n;
          p["messages"] = ojson::array({{{"role", "system"}, {"content", sys}},
                                        {{"role", "user"}, {"content", render_user(r["workload"], r["before"]["leir"].get<std::string>(), r["before"]["known"], n)}}});
          lines.push_back(std::move(p));
          if (fc_.eval_n <= 1) break;
        }
      }
      out_.eval_prompts[sp] = std::move(lines);
    }
  }

  const std::vector<ojson>& a_;
  const std::vector<Reject>& pre_rejects_;
  const FilterConfig& fc_;
  std::uint64_t seed_;
  const TokenCounter& tokens_;
  std::int64_t system_tokens_ = -1;
  std::vector<RecView> v_;
  std::vector<bool> alive_;
  FilterOutput out_;
};

}  // namespace

FilterOutput filter_records(const std::vector<ojson>& archive, const std::vector<Reject>& pre_rejects,
                            const FilterConfig& fc, std::uint64_t master_seed, const TokenCounter* tokens) {
  return Filter(archive, pre_rejects, fc, master_seed, tokens ? *tokens : approx_counter()).run();
}

}  // namespace steptp::dataset
