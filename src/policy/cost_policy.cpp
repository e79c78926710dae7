#include "policy/cost_policy.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "ir/canon.hpp"
#include "base/json_text.hpp"
#include "step/facts.hpp"
#include "step/prompt.hpp"
#include "ir/printer.hpp"
#include "policy/cost/analytical.hpp"
#include "policy/cost/model.hpp"
#include "policy/cost/lane_sum_sketch.hpp"
#include "policy/cost/register_block_sketch.hpp"
#include "strategies/loop/loop_util.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::policy {
namespace {

/// True when some access of `t` is to a local or shared buffer.
bool has_scoped_buffer(const ir::Task& t) {
  bool found = false;
  ir::for_each_stmt(t.program, [&](const ir::Stmt& st, const auto&, std::size_t) {
    for (const ir::Expr* e : {&st.lhs, &st.rhs})
      ir::visit_expr(*e, [&](const ir::Expr& x) {
        found = found || (x.kind == ir::ExprKind::Ref && x.scope != ir::Scope::Global);
      });
  });
  return found;
}

class CostPolicy : public Policy {
 public:
  CostPolicy(std::unique_ptr<cost::CostModel> model, std::string chosen_by, int enum_limit,
             const strategy::StrategyInfo* lookahead, bool sketch, int lanes, bool measure_guided)
      : model_(std::move(model)), chosen_by_(std::move(chosen_by)), limit_(std::max(1, enum_limit)),
        lookahead_(lookahead), sketch_(sketch), lanes_(lanes), measure_guided_(measure_guided) {}
  std::string name() const override { return "cost"; }
  core::ojson describe() const override {
    return {{"model", model_->name()}, {"chosen_by", chosen_by_},
            {"lookahead", lookahead_ ? core::ojson(std::string(lookahead_->name)) : core::ojson("none")},
            {"sketch", sketch_ ? "register_block" : "none"}, {"measure_guided", measure_guided_}};
  }

  Reply reply(const Prompt& p, int /*sample*/) override {
    if (!p.task)
      throw PolicyError("policy_error", "the cost policy needs the prompt's program (prompt " + p.id + ")", true);
    std::vector<Scored> scored = ranking(*p.task);
    if (p.seen) std::erase_if(scored, [&](const Scored& s) { return p.seen(s.canon); });
    // The next step of a plan goes first (and only once).
    const double best_one_step = scored.empty() ? std::numeric_limits<double>::infinity() : scored[0].score;
    const std::optional<PlannedStep> next = planned_step(p, best_one_step);
    if (next) {
      std::erase_if(scored, [&](const Scored& s) { return s.leir == next->leir; });
      scored.insert(scored.begin(), Scored{next->score, next->score, next->id, next->strategy, next->leir, ""});
    }
    Reply r;
    r.finish_reason = "stop";
    const std::size_t want = std::size_t(std::max(1, p.n));
    if (scored.empty()) {
      r.none = true;
      return r;
    }
    if (measure_guided_ && p.measure) scored = measured_best(p, std::move(scored), want);
    if (scored.empty()) {
      r.none = true;
      return r;
    }
    core::ojson answers = core::ojson::array();
    for (std::size_t i = 0; i < scored.size() && i < want; ++i) {
      answers.push_back(core::answer_object(scored[i].strategy, scored[i].leir));
      r.candidates.push_back(scored[i].id);
      r.plan_continues.push_back(next && next->continues && scored[i].leir == next->leir);
    }
    r.content = "<answer>" + core::dump_py(p.n <= 1 ? answers[0] : answers) + "</answer>";
    return r;
  }

 private:
  struct Scored {
    double score;  // with the lookahead: min(own, best child)
    double own;
    std::string id, strategy, leir, canon;
  };

  /// Every candidate at `t` (up to the enumeration limit, one strategy's parameters not filling it: registry
  /// order, then round-robin), scored, best first. Computed once per program: a search asks a node again when it
  /// widens, and the lookahead's legality checks cost seconds on a deep nest.
  std::vector<Scored> ranking(const ir::Task& t) {
    const std::string self = core::alpha_canonical(t);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = rankings_.find(self); it != rankings_.end()) return it->second;
    }
    std::vector<std::vector<strategy::Candidate>> per;
    for (const auto& [s, sites] : strategy::locked_legal_sites(t)) {
      std::vector<strategy::Candidate> cs;
      for (const auto& site : sites)
        for (std::uint64_t k = 0; k < site.params.size() && int(cs.size()) < limit_; ++k) {
          try {
            cs.push_back(strategy::Candidate{std::string(s->name), site.ref, site.params.at(k)});
          } catch (const std::exception&) {
            continue;
          }
        }
      if (!cs.empty()) per.push_back(std::move(cs));
    }
    std::vector<Scored> scored;
    std::vector<ir::Task> children;  // parallel to scored
    std::set<std::string> seen{self};
    std::size_t taken = 0;
    for (std::size_t round = 0; taken < std::size_t(limit_); ++round) {
      bool any = false;
      for (const auto& cs : per) {
        if (round >= cs.size() || taken >= std::size_t(limit_)) continue;
        any = true;
        ++taken;
        const strategy::Candidate& c = cs[round];
        try {
          strategy::Applied ap = strategy::locked_apply(*strategy::find(c.strategy), t, c);
          std::string canon = core::alpha_canonical(ap.task);
          if (!seen.insert(canon).second) continue;
          const double own = model_->score(ap.task);
          scored.push_back({own, own, c.id(), c.strategy, ir::print_program(ap.task.program), std::move(canon)});
          children.push_back(std::move(ap.task));
        } catch (const std::exception&) {
          continue;
        }
      }
      if (!any) break;
    }
    // The lookahead, for the memory family's candidates (the layout and cache changes it exists for, whose own
    // score is often poor) and the kLookaheadTop others best by their own score (ties in enumeration order); not
    // at a program that already holds a local or shared buffer: every child holds it, each reorder of a cached
    // nest needs isl's value-flow test of the buffer's confinement (seconds on a register block), and the
    // lookahead exists for the step that introduces the cache or layout change.
    if (lookahead_ && !has_scoped_buffer(t)) {
      std::vector<std::size_t> by_own(scored.size());
      for (std::size_t i = 0; i < by_own.size(); ++i) by_own[i] = i;
      std::stable_sort(by_own.begin(), by_own.end(),
                       [&](std::size_t a, std::size_t b) { return scored[a].own < scored[b].own; });
      std::size_t others = 0;
      for (std::size_t i : by_own) {
        const strategy::StrategyInfo* s = strategy::find(scored[i].strategy);
        if (!(s && s->family == strategy::Family::Memory) && others++ >= kLookaheadTop) continue;
        scored[i].score = lookahead_score(children[i], scored[i].own, &t);
      }
    }
    // Ties of the lookahead score (every reorder of a nest reaches the same best order) go to the better own score.
    std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
      return a.score != b.score ? a.score < b.score : a.own < b.own;
    });
    std::lock_guard<std::mutex> lock(mu_);
    rankings_.emplace(self, scored);
    return scored;
  }

  /// A gain one step later counts only when it beats the candidate's own score by this factor, so that a
  /// candidate that realises the gain now is preferred to one that postpones it (at the transposed program of the
  /// example above, the loop_reorder itself rather than a fusion whose reordered child is a little better).
  /// Scores are predicted log2 seconds, so the factor 1.25 is an added log2(1.25).
  static constexpr double kLookaheadMarginLog2 = 0.321928;  // log2(1.25)
  /// Candidates outside the memory family (the best by their own score) that get the lookahead. Each lookahead
  /// enumerates the lookahead strategy with its isl legality checks: 0.06 s on a GEMM, 0.6 s on a register-blocked
  /// one (bench/RESULTS.md), so 250 candidates made one reply take minutes.
  static constexpr std::size_t kLookaheadTop = 64;

  /// min(own, score of every child of `t` by the lookahead strategy + kLookaheadMarginLog2); `own` without one.
  /// With `parent` (the program `t` is a candidate of), loop_reorder's children reorder only the nests the candidate
  /// changed: a reorder of a nest it left as it was gains as much at every sibling, and scoring all of them was
  /// most of a many-nest search's time (MHA: 96,000 scores a minute).
  double lookahead_score(const ir::Task& t, double own, const ir::Task* parent = nullptr) const {
    if (!lookahead_) return own;
    if (lookahead_->name == "loop_reorder") return reorder_lookahead_score(t, own, parent);
    double best = own;
    std::vector<strategy::Site> sites;
    try {
      sites = strategy::locked_enumerate(*lookahead_, t);
    } catch (const std::exception&) {
      return own;
    }
    for (const auto& site : sites)
      for (std::uint64_t k = 0; k < site.params.size(); ++k) {
        try {
          const strategy::Candidate c{std::string(lookahead_->name), site.ref, site.params.at(k)};
          const strategy::Applied child = strategy::locked_apply(*lookahead_, t, c);
          best = std::min(best, kLookaheadMarginLog2 + model_->score(child.task));
        } catch (const std::exception&) {
          continue;
        }
      }
    return best;
  }

  /// lookahead_score for loop_reorder, with the same result at a fraction of the isl checks: every swap is scored
  /// unchecked (strategy::loop::unchecked_reorders), and apply checks them best first only until one is legal (the
  /// first legal one is the minimum) or none can beat `own`.
  double reorder_lookahead_score(const ir::Task& t, double own, const ir::Task* parent) const {
    std::set<std::uint32_t> changed;
    if (parent)
      for (std::size_t n : dataset::changed_nests(*parent, t)) changed.insert(static_cast<std::uint32_t>(n));
    auto swaps = strategy::loop::unchecked_reorders(t, parent && !changed.empty() ? &changed : nullptr);
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t i = 0; i < swaps.size(); ++i) order.emplace_back(model_->score(swaps[i].second), i);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [score, i] : order) {
      if (!(kLookaheadMarginLog2 + score < own)) break;
      try {
        strategy::locked_apply(*lookahead_, t, swaps[i].first);
        return kLookaheadMarginLog2 + score;
      } catch (const std::exception&) {
        continue;
      }
    }
    return own;
  }

  /// --measure-guided: measures the 2·want best of `scored` (in their order) through Prompt::measure and returns
  /// the measured ones, fastest first (ties in model order); candidates that are not equivalent, fail to measure or
  /// find the budget spent are dropped.
  template <class S>
  std::vector<S> measured_best(const Prompt& p, std::vector<S> scored, std::size_t want) const {
    struct Measured {
      double speedup;
      std::size_t rank;
    };
    std::vector<Measured> m;
    for (std::size_t i = 0; i < scored.size() && i < 2 * want; ++i)
      if (std::optional<double> s = p.measure(scored[i].strategy, scored[i].leir, scored[i].id)) m.push_back({*s, i});
    std::stable_sort(m.begin(), m.end(), [](const Measured& a, const Measured& b) { return a.speedup > b.speedup; });
    std::vector<S> out;
    for (const auto& x : m) out.push_back(std::move(scored[x.rank]));
    return out;
  }

  struct PlannedStep {
    double score;  // predicted score of the plan's last program
    std::string id, strategy, leir;
    bool continues;  // the plan has a step after this one
  };
  struct Memo {
    strategy::Candidate next;
    double score;
  };

  /// The next step of the plan the prompt's program is on, when its result is unseen: the remembered one when an
  /// earlier reply planned through this program, else the first step of a new register-block plan whose last
  /// program beats `best_one_step` by kLookaheadMarginLog2 (each intermediate program of that plan is remembered
  /// with its next step, so that later replies follow the plan). nullopt otherwise.
  std::optional<PlannedStep> planned_step(const Prompt& p, double best_one_step) {
    const ir::Task& t = *p.task;
    const std::string canon = core::alpha_canonical(t);
    std::optional<Memo> memo;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = memos_.find(canon); it != memos_.end()) memo = it->second;
    }
    if (!memo && sketch_) {
      // Planning applies tens of candidates per row loop and block shape (each re-checked, some with isl), so each
      // program is planned once.
      std::optional<std::optional<cost::Plan>> cached;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto it = plans_.find(canon); it != plans_.end()) cached = it->second;
      }
      if (!cached) {
        const auto score = [&](const ir::Task& x) { return model_->score(x); };
        std::optional<cost::Plan> block = cost::register_block_plan(t, lanes_, score);
        std::optional<cost::Plan> sums = cost::lane_sum_plan(t, score);
        cached = sums && (!block || sums->score < block->score) ? std::move(sums) : std::move(block);
        std::lock_guard<std::mutex> lock(mu_);
        plans_.emplace(canon, *cached);
      }
      const std::optional<cost::Plan>& plan = *cached;
      if (!plan || plan->steps.empty() || !(plan->score + kLookaheadMarginLog2 < best_one_step)) return std::nullopt;
      std::lock_guard<std::mutex> lock(mu_);
      std::string at = canon;
      for (const auto& st : plan->steps) {
        memos_.emplace(at, Memo{st.candidate, plan->score});
        at = core::alpha_canonical(st.after);
      }
      memo = memos_.at(canon);
    }
    if (!memo) return std::nullopt;
    try {
      const strategy::Applied ap = strategy::locked_apply(*strategy::find(memo->next.strategy), t, memo->next);
      const std::string c = core::alpha_canonical(ap.task);
      if (c == canon || (p.seen && p.seen(c))) return std::nullopt;
      bool continues = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        continues = memos_.count(c) > 0;
      }
      return PlannedStep{memo->score, memo->next.id(), memo->next.strategy, ir::print_program(ap.task.program),
                         continues};
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  std::unique_ptr<cost::CostModel> model_;
  std::string chosen_by_;  // why this model (the held-out evidence when a model file was given)
  int limit_;
  const strategy::StrategyInfo* lookahead_;  // null: no lookahead
  bool sketch_;                              // plan register blocks (register_block_sketch.hpp)
  int lanes_;                                // f32 vector lanes, for the sketch's block shapes
  bool measure_guided_;                      // measure the top candidates through Prompt::measure
  std::mutex mu_;
  std::map<std::string, Memo> memos_;  // alpha-canonical program -> the next step of the plan through it
  std::map<std::string, std::optional<cost::Plan>> plans_;  // alpha-canonical program -> its plan (or none)
  std::map<std::string, std::vector<Scored>> rankings_;     // alpha-canonical program -> ranking()
};

}  // namespace

std::unique_ptr<Policy> make_cost_policy(const std::string& model, int enum_limit, int threads,
                                         const std::string& lookahead, const std::string& sketch,
                                         bool measure_guided) {
  if (sketch != "register_block" && sketch != "none")
    throw std::runtime_error("unknown sketch '" + sketch + "' (register_block or none)");
  const cost::MachineModel machine = cost::MachineModel::detect(threads);
  const bool use_sketch = sketch == "register_block";
  const strategy::StrategyInfo* la = nullptr;
  if (lookahead != "none") {
    la = strategy::find(lookahead);
    if (!la)
      throw std::runtime_error("unknown lookahead strategy '" + lookahead +
                               "' (see `steptp strategies list`, or none)");
  }
  if (model == "analytical")
    return std::make_unique<CostPolicy>(cost::make_analytical_model(machine), "--cost-model analytical", enum_limit,
                                        la, use_sketch, machine.vector_lanes_f32, measure_guided);
  // A model file: its learned model, unless its own held-out report shows the analytical model ranking better.
  const cost::ModelChoice choice = cost::choose_model(model);
  return std::make_unique<CostPolicy>(choice.learned ? cost::load_cost_model(model)
                                                     : cost::make_analytical_model(machine),
                                      choice.why, enum_limit, la, use_sketch, machine.vector_lanes_f32,
                                      measure_guided);
}

}  // namespace steptp::policy
