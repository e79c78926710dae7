#include "dataset/unit_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <memory>
#include <optional>
#include <set>

#include "ir/canon.hpp"
#include "step/checker.hpp"
#include "step/equiv.hpp"
#include "step/facts.hpp"
#include "step/measure_gate.hpp"
#include "base/hash.hpp"
#include "step/prompt.hpp"
#include "step/reasoning.hpp"
#include "step/record.hpp"
#include "base/rng.hpp"
#include "strategies/strategy_lock.hpp"
#include "step/tokens.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "lower/lower.hpp"
#include "runtime/measure.hpp"
#include "strategies/registry.hpp"

namespace steptp::dataset {

std::string pipeline_compiler_flags() { return runtime::CompileOptions{}.flags; }

std::string UnitResult::to_text() const {
  ojson j;
  j["unit"] = unit;
  j["records"] = records;
  ojson rj = ojson::array();
  for (const auto& r : rejects) rj.push_back(r.to_json());
  j["rejects"] = rj;
  ojson c = ojson::object();
  for (const auto& [k, v] : counters) c[k] = v;
  j["counters"] = c;
  return dump_py(j);
}

UnitResult UnitResult::from_text(const std::string& s) {
  ojson j = ojson::parse(s);
  UnitResult u;
  u.unit = j.at("unit");
  for (const auto& r : j.at("records")) u.records.push_back(r);
  for (const auto& r : j.at("rejects")) u.rejects.push_back(Reject::from_json(r));
  for (auto it = j.at("counters").begin(); it != j.at("counters").end(); ++it) u.counters[it.key()] = it.value();
  return u;
}

namespace {

struct State {
  ir::Task task;
  std::string tk, canon, leir;
  Reference ref;
  std::int64_t leir_tokens = 0, tir_tokens = 0;
  int depth = 0;               // steps from the root
  bool path_exact = true;      // every step so far was class E
  ojson parent_record_id = nullptr, trajectory_id = nullptr;
};

struct Accepted {
  ir::Task after;
  std::string record_id;
  double speedup_vs_root = 0;
  bool exact = true;
};

struct Eval {
  bool ok = false;
  std::string stage, reason, detail;
  std::string after_leir;
  nlohmann::json apply_facts;
  char cls = 'E';
  ojson equiv;
  std::int64_t tir_tokens = 0;
  std::shared_ptr<strategy::Applied> applied;  // this process's apply result (not cached)
  ojson to_json() const {
    return {{"ok", ok}, {"stage", stage}, {"reason", reason}, {"detail", detail}, {"after", after_leir},
            {"facts", ojson::parse(apply_facts.dump())}, {"cls", std::string(1, cls)}, {"equiv", equiv},
            {"tir_tokens", tir_tokens}};
  }
  static Eval from_json(const ojson& j) {
    Eval e;
    e.ok = j.at("ok");
    e.stage = j.at("stage");
    e.reason = j.at("reason");
    e.detail = j.at("detail");
    e.after_leir = j.at("after");
    e.apply_facts = nlohmann::json::parse(j.at("facts").dump());
    e.cls = j.at("cls").get<std::string>()[0];
    e.equiv = j.at("equiv");
    e.tir_tokens = j.at("tir_tokens");
    return e;
  }
};

class UnitRunner {
 public:
  UnitRunner(const Unit& u, const PipelineEnv& env) : u_(u), env_(env), cfg_(*env.cfg) {
    res_.unit = u.name();
    ecfg_.master_seed = cfg_.master_seed;
    ecfg_.draws = cfg_.equiv_draws;
    ecfg_.interp_max_ops = cfg_.interp_max_ops;
    for (const auto& s : strategy::registry())
      if (cfg_.strategies.empty() ||
          std::find(cfg_.strategies.begin(), cfg_.strategies.end(), std::string(s.name)) != cfg_.strategies.end())
        strategies_.push_back(&s);
  }

  UnitResult run() {
    auto root = make_root();
    if (!root) return std::move(res_);
    std::vector<Accepted> root_acc;
    {
      std::vector<Pending> pending;
      if (prompt_too_long(*root)) {
      } else if (cfg_.root_candidates > 0) {
        // Sampled across strategies, as at a trajectory state (GenConfig::root_candidates).
        Rng rng(derive(cfg_.master_seed, "root", {root->tk}));
        prepare_limited(*root, *root, rng, std::size_t(cfg_.root_candidates), {}, pending);
      } else {
        for (const auto* s : strategies_)
          for (const auto& c : sample(*s, *root)) prepare(*root, *root, *s, c, {}, pending);
      }
      measure_and_finish(*root, *root, pending, &root_acc);
    }
    if (cfg_.max_depth > 1) trajectories(*root, root_acc);
    std::stable_sort(res_.records.begin(), res_.records.end(), record_less);
    return std::move(res_);
  }

 private:
  const TokenCounter& tokens() const { return env_.tokens ? *env_.tokens : approx_counter(); }

  void reject(const std::string& strategy, const std::string& stage, const std::string& reason,
              const std::string& detail = "") {
    res_.rejects.push_back({u_.name(), strategy, stage, reason, detail.substr(0, 300)});
    res_.counters["reject." + stage + "." + reason]++;
  }

  std::unique_ptr<State> make_state(ir::Task t) {
    auto st = std::make_unique<State>();
    st->task = std::move(t);
    st->tk = task_key(st->task);
    st->canon = alpha_canonical(st->task);
    st->leir = ir::print_program(st->task.program);
    st->leir_tokens = tokens().count(st->leir);
    st->tir_tokens = tokens().count(lower::lower_tir(st->task));
    // An ONNX task's weights enter every draw (issue #14); strategies never change known buffers, so every state
    // of the unit takes the same values.
    st->ref = make_reference(st->task, st->tk, ecfg_, u_.wl.params.get());
    return st;
  }

  std::unique_ptr<State> make_root() {
    ir::Task t;
    try {
      t = emit_root_task(u_);
      ir::Task copy = t;
      ir::validate_or_throw(copy);
      lower::lower_c(t);
    } catch (const std::exception& e) {
      reject("", "S3", "task_invalid", e.what());
      return nullptr;
    }
    std::unique_ptr<State> st;
    try {
      st = make_state(std::move(t));
    } catch (const std::exception& e) {
      reject("", "S3", "task_invalid", e.what());
      return nullptr;
    }
    if (is_degenerate(st->ref)) {
      reject("", "S3", "degenerate_task");
      return nullptr;
    }
    res_.counters["S3.root_tasks"]++;
    return st;
  }

  std::vector<strategy::Candidate> sample(const strategy::StrategyInfo& s, const State& st) {
    std::vector<strategy::Site> sites;
    try {
      sites = strategy::locked_enumerate(s, st.task);
    } catch (const std::exception& e) {
      reject(std::string(s.name), "S4", "enumerate_error", e.what());
      return {};
    }
    Rng rng(derive(cfg_.master_seed, "candidate", {st.tk, s.name}));
    std::vector<std::pair<std::size_t, std::uint64_t>> pool;
    for (std::size_t i = 0; i < sites.size(); ++i) {
      std::uint64_t n = sites[i].params.size();
      res_.counters["S4.enumerated"] += std::int64_t(n);
      std::uint64_t m = std::min<std::uint64_t>(n, std::uint64_t(std::max(1, cfg_.params_per_site)));
      if (n <= m) {
        for (std::uint64_t k = 0; k < n; ++k) pool.emplace_back(i, k);
      } else {
        std::set<std::uint64_t> ks;
        while (ks.size() < m) ks.insert(rng.below(n));
        for (auto k : ks) pool.emplace_back(i, k);
      }
    }
    rng.shuffle(pool);
    if (pool.size() > std::size_t(cfg_.max_candidates_per_strategy)) pool.resize(cfg_.max_candidates_per_strategy);
    std::sort(pool.begin(), pool.end());
    std::vector<strategy::Candidate> out;
    for (auto [i, k] : pool) {
      strategy::Candidate c;
      c.strategy = std::string(s.name);
      c.ref = sites[i].ref;
      try {
        c.params = sites[i].params.at(k);
      } catch (const std::exception& e) {
        reject(c.strategy, "S4", "enumerate_error", e.what());
        continue;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  /// S4 no_change, S5 static validation and S6 lowering of one candidate (DATASET.md §2.4-§2.6); e.ok when passed.
  Eval evaluate_static(const State& st, const strategy::StrategyInfo& s, const strategy::Candidate& c) {
    Eval e;
    auto bad = [&](const char* stage, const char* reason, const std::string& d) {
      e.ok = false;
      e.stage = stage;
      e.reason = reason;
      e.detail = d.substr(0, 300);
      return e;
    };
    strategy::Applied ap;
    try {
      ap = strategy::locked_apply(s, st.task, c);
    } catch (const strategy::StrategyError& x) {
      return bad("S5", x.id() == Code::S003 ? "resolve_error" : "illegal", x.code() + ": " + x.what());
    } catch (const ir::LeirError& x) {
      return bad("S5", "resolve_error", x.diag().headline());
    } catch (const std::exception& x) {
      return bad("S5", "illegal", x.what());
    }
    e.apply_facts = ap.facts;
    e.cls = strategy::exactness_letter(ap.cls);
    e.applied = std::make_shared<strategy::Applied>(ap);
    if (ap.task.known != st.task.known) return bad("S5", "signature_changed", "");
    e.after_leir = ir::print_program(ap.task.program);
    if (alpha_canonical(ap.task) == st.canon) return bad("S4", "no_change", "");
    try {
      ir::Task copy = ap.task;
      copy.program = ir::parse_program(e.after_leir);  // the printed text must parse back
      ir::validate_or_throw(copy);
    } catch (const ir::LeirError& x) {
      const bool syntax = steptp::info(x.id()).family == CodeFamily::LeirSyntax;  // E0xx: the text does not parse back
      return bad("S5", syntax ? "parse_error" : "resolve_error", x.diag().headline());
    }
    try {
      e.tir_tokens = tokens().count(lower::lower_tir(ap.task));
    } catch (const std::exception& x) {
      return bad("S6", "lower_tir_error", x.what());
    }
    try {
      lower::lower_c(ap.task);
    } catch (const std::exception& x) {
      return bad("S6", "lower_c_error", x.what());
    }
    e.ok = true;
    return e;
  }

  /// S5 numeric equivalence of a statically valid candidate: against its state and, on a trajectory, the root.
  void evaluate_numeric(const State& st, const State& root, Eval& e) {
    const ir::Task& after = e.applied->task;
    EquivOutcome eo = check_against(after, st.ref, e.cls, ecfg_);
    EquivOutcome er;
    if (eo.ok && &st != &root) {
      er = check_against(after, root.ref, st.path_exact && e.cls == 'E' ? 'E' : 'R', ecfg_);
      if (!er.ok) er.detail = "vs root: " + er.detail;
    }
    // One verdict: the checker `steptp equiv` runs has the last word on every record (DATASET.md §2.5).
    EquivOutcome ec;
    if (eo.ok && (&st == &root || er.ok)) ec = check_as_cli(st.task, after);
    const EquivOutcome& failed = !eo.ok ? eo : (&st != &root && !er.ok) ? er : ec;
    if (!eo.ok || (&st != &root && !er.ok) || !ec.ok) {
      e.ok = false;
      e.stage = "S5";
      e.reason = failed.reason;
      e.detail = failed.detail.substr(0, 300);
      return;
    }
    e.equiv = eo.evidence;
    e.equiv["checker"] = ec.evidence;
  }

  /// A candidate that passed S4–S6 and S8–S9 at state `st`, waiting for S7 (measured in a batch with the others of
  /// `st`); `rec` is its record without the measurement.
  struct Pending {
    const strategy::StrategyInfo* s = nullptr;
    Eval e;
    ir::Task after;
    ojson rec;
    bool too_long = false;  // its sample breaks the length limits (measured only under measure_too_long)
  };

  /// Whether the length limits drop every sample of state `st` for its prompt alone (then recorded once as a
  /// too_long reject before measuring, and no candidate of the state is drawn).
  bool prompt_too_long(const State& st) {
    const FilterConfig* lim = env_.length_limits;
    if (!lim || env_.measure_too_long) return false;
    const std::int64_t p = env_.system_tokens + tokens().count(render_user(u_.wl.name, st.leir, st.task.known, 1));
    if (p <= lim->max_prompt_tokens && p < lim->max_total_tokens) return false;
    res_.rejects.push_back({u_.name(), "", "S10", "too_long", "before measuring: the prompt", u_.wl.family});
    res_.counters["reject.S10.too_long"]++;
    return true;
  }

  /// Runs S4–S6, S8–S9, the length limits and the S5 numeric check for one candidate at state `st` (in that order,
  /// so that a candidate whose sample is too long is never checked numerically or timed); an accepted one is
  /// appended to `pending`. Returns whether it was, within the length limits.
  bool prepare(const State& st, const State& root, const strategy::StrategyInfo& s, const strategy::Candidate& c,
               const std::vector<std::string>& path, std::vector<Pending>& pending) {
    MeasureGate::yield_current();  // a waiting measurement runs between two candidates (§2.7)
    const std::string name(s.name);
    res_.counters["S4.candidates"]++;
    res_.counters["cand." + name]++;
    ojson values = candidate_values(c);
    ojson params{{"candidate", c.id()}, {"values", values}};
    std::string cand_key = H({"steptp.cand/1", st.tk, name, canonical_json(params), std::to_string(kGeneratorVersion)});
    std::string ckey = &st == &root ? cand_key : H({cand_key, root.tk, st.path_exact ? "E" : "R"});
    std::optional<std::string> hit = env_.cache ? env_.cache->get("candidates", ckey) : std::nullopt;
    Pending pd{&s, hit ? Eval::from_json(ojson::parse(*hit)) : evaluate_static(st, s, c), st.task, nullptr, false};
    Eval& e = pd.e;
    auto store = [&]() {
      if (!hit && env_.cache) env_.cache->put("candidates", ckey, dump_py(e.to_json()));
    };
    if (!e.ok) {
      store();
      reject(name, e.stage, e.reason, e.detail);
      return false;
    }
    try {
      pd.after.program = ir::parse_program(e.after_leir);
    } catch (const std::exception& x) {
      reject(name, "S5", "parse_error", x.what());
      return false;
    }
    if (!path.empty()) {
      std::string canon = alpha_canonical(pd.after);
      if (canon == path.back()) return reject(name, "S4", "undo"), false;
      if (std::find(path.begin(), path.end(), canon) != path.end()) return reject(name, "S4", "revisit"), false;
    }
    auto rec = make_record(st, root, s, c, e, pd.after, values, params, cand_key);
    if (!rec) return false;
    const FilterConfig* lim = env_.length_limits;
    pd.too_long = lim && lim->too_long((*rec)["tokens"]["prompt"], (*rec)["tokens"]["completion"]);
    if (pd.too_long && !env_.measure_too_long) {
      res_.rejects.push_back({u_.name(), name, "S10", "too_long", "before measuring", u_.wl.family});
      res_.counters["reject.S10.too_long"]++;
      return false;
    }
    if (!hit) {
      evaluate_numeric(st, root, e);
      store();
    }
    if (!e.ok) {
      reject(name, e.stage, e.reason, e.detail);
      return false;
    }
    (*rec)["equivalence"] = e.equiv;
    res_.counters["S5.accepted"]++;
    res_.counters["S6.lowered"]++;
    pd.rec = std::move(*rec);
    const bool counts = !pd.too_long;
    pending.push_back(std::move(pd));
    return counts;
  }

  /// S7 for every pending candidate of `st` (one interleaved batch, DATASET.md §2.7), then S8–S9 for each in order;
  /// accepted candidates are appended to `acc`.
  void measure_and_finish(const State& st, const State& root, std::vector<Pending>& pending,
                          std::vector<Accepted>* acc) {
    std::vector<Timer::Outcome> meas(pending.size());
    if (env_.timer && !pending.empty()) {
      const std::string flags = pipeline_compiler_flags();
      const TimedProgram tb{&st.task, prog_key(st.task, flags)};
      const TimedProgram tr{&root.task, prog_key(root.task, flags)};
      std::vector<TimedProgram> afters;
      for (const auto& p : pending) afters.push_back({&p.after, prog_key(p.after, flags)});
      meas = env_.timer->measure_batch(tb, afters, &st == &root ? nullptr : &tr);
    }
    for (std::size_t i = 0; i < pending.size(); ++i) finish(pending[i], meas[i], acc);
  }

  /// S8 facts and S9 reasoning of one candidate: its record without equivalence evidence and measurement, or
  /// nullopt (rejected) when the facts cannot be computed or the checker refuses the reasoning. Neither depends on a
  /// timing, so this runs before S7.
  std::optional<ojson> make_record(const State& st, const State& root, const strategy::StrategyInfo& s,
                                   const strategy::Candidate& c, const Eval& e, const ir::Task& after,
                                   const ojson& values, const ojson& params, const std::string& cand_key) {
    const std::string name(s.name);
    ojson facts;
    try {
      facts = compute_facts(st.task, after, e.apply_facts, c.id(), e.cls, values);
    } catch (const std::exception& x) {
      reject(name, "S8", "analysis_error", x.what());
      return std::nullopt;
    }
    res_.counters["S8.facts"]++;
    std::string reasoning = render_reasoning(facts, name);
    std::string user = render_user(u_.wl.name, st.leir, st.task.known, 1);
    std::string assistant = render_assistant(reasoning, {{name, e.after_leir}});
    ojson rec;
    rec["schema"] = kRecordSchema;
    rec["record_id"] = cand_key.substr(0, 32);
    rec["task_id"] = st.tk.substr(0, 32);
    rec["unit"] = u_.name();
    rec["workload"] = u_.wl.name;
    rec["suite"] = u_.wl.suite;
    rec["family"] = u_.wl.family;
    rec["instance"] = {{"index", u_.index}, {"params", u_.params}, {"dtype", u_.dtype}};
    rec["seed"] = {{"master", cfg_.master_seed}, {"instance", hex16(u_.instance_seed)},
                   {"candidate", hex16(derive(cfg_.master_seed, "candidate", {st.tk, name}))}};
    rec["step"] = {{"index", st.depth + 1}, {"trajectory_id", st.trajectory_id},
                   {"parent_record_id", st.parent_record_id}, {"root_task_id", root.tk.substr(0, 32)}};
    rec["before"] = {{"known", known_json(st.task.known)}, {"leir", st.leir}};
    rec["strategy"] = {{"name", name}, {"family", std::string(strategy::family_name(s.family))},
                       {"class", std::string(1, e.cls)}};
    rec["params"] = params;
    rec["after"] = {{"leir", e.after_leir}};
    rec["facts"] = facts;
    rec["equivalence"] = e.equiv;
    rec["measurement"] = nullptr;
    rec["tokens"] = {{"rule", tokens().rule()}, {"leir_before", st.leir_tokens}, {"leir_after", tokens().count(e.after_leir)},
                     {"tir_before", st.tir_tokens}, {"tir_after", e.tir_tokens},
                     {"prompt", env_.system_tokens + tokens().count(user)}, {"completion", tokens().count(assistant)}};
    rec["reasoning"] = reasoning;
    rec["versions"] = {{"steptp", kSteptpVersion}, {"generator", kGeneratorVersion}, {"lowering", kLoweringVersion},
                       {"renderer", kRendererVersion}, {"prompt", kPromptVersion}};
    CheckVerdict v = check_record(rec, e.applied.get());
    if (!v.ok) {
      reject(name, "S9", "reasoning_unverified", v.clause + ": " + v.detail);
      return std::nullopt;
    }
    return rec;
  }

  /// S7 result of one prepared candidate; its record joins the unit's and, when `acc`, the accepted states.
  void finish(Pending& pd, const Timer::Outcome& mo, std::vector<Accepted>* acc) {
    const std::string name(pd.s->name);
    double sp_root = 0;
    if (env_.timer) {
      if (!mo.error.empty()) {
        const std::string& w = mo.error;
        const char* reason = w.rfind("timeout", 0) == 0 ? "timeout" : w.rfind("compile_error", 0) == 0 ? "compile_error" : "runtime_crash";
        reject(name, w.rfind("compile_error", 0) == 0 ? "S6" : "S7", reason, w);
        return;
      }
      pd.rec["measurement"] = mo.measurement;
      sp_root = mo.measurement["speedup_vs_root"];
      res_.counters["S7.measured"]++;
    }
    std::string rid = pd.rec["record_id"];
    bool dup = false;
    for (const auto& r : res_.records) dup = dup || r["record_id"] == rid;
    if (!dup) {
      res_.records.push_back(std::move(pd.rec));
      res_.counters["S9.records"]++;
      res_.counters["acc." + name]++;
    }
    if (acc && !pd.too_long) acc->push_back({std::move(pd.after), rid, sp_root, pd.e.cls == 'E'});
  }

  using Pool = std::vector<std::pair<const strategy::StrategyInfo*, strategy::Candidate>>;

  /// Every strategy's sampled candidates at `st`, shuffled by `rng` and cut to `limit` (§2.4 trajectory states).
  Pool pool_across_strategies(const State& st, Rng& rng, std::size_t limit) {
    Pool pool;
    for (const auto* s : strategies_)
      for (auto& c : sample(*s, st)) pool.emplace_back(s, std::move(c));
    rng.shuffle(pool);
    if (pool.size() > limit) pool.resize(limit);
    return pool;
  }

  /// state_sampling "strategies": the strategies with a sampled candidate at `st`, the quota strategies first (at most
  /// 2 x cover_units planned root tasks with a site: those the quota of DATASET.md §2.4 is about) in a random order,
  /// then the others in a weighted random order (keys u^(1/w) by stream `rng`, largest first; w = 1 / the planned
  /// root tasks with a site of the strategy), so that the strategies few units offer are tried first.
  std::vector<std::pair<const strategy::StrategyInfo*, std::vector<strategy::Candidate>>> by_rarity(const State& st,
                                                                                                    Rng& rng) {
    std::vector<std::tuple<double, const strategy::StrategyInfo*, std::vector<strategy::Candidate>>> keyed;
    for (const auto* s : strategies_) {
      auto cands = sample(*s, st);
      if (cands.empty()) continue;
      auto it = env_.root_sites.find(std::string(s->name));
      const int n = std::max(1, it == env_.root_sites.end() ? 1 : it->second);
      const double u = (double(rng.next() >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
      const bool quota = n <= 2 * std::max(1, cfg_.cover_units);
      keyed.emplace_back(quota ? 1.0 + u : std::log(u) * double(n), s, std::move(cands));  // log(u^(1/w)), w = 1/n
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
    std::vector<std::pair<const strategy::StrategyInfo*, std::vector<strategy::Candidate>>> out;
    for (auto& [k, s, c] : keyed) out.emplace_back(s, std::move(c));
    return out;
  }

  /// Prepares (S4–S6, S8–S9, S5) the candidates of a state with a limit: by state_sampling, either the first `limit`
  /// of the shuffled pool, or strategies in rarity order, at most one accepted candidate each, until `limit` are
  /// accepted.
  void prepare_limited(const State& st, const State& root, Rng& rng, std::size_t limit,
                       const std::vector<std::string>& path, std::vector<Pending>& pending) {
    if (cfg_.state_sampling != "strategies") {
      for (const auto& [s, c] : pool_across_strategies(st, rng, limit)) prepare(st, root, *s, c, path, pending);
      return;
    }
    std::size_t accepted = 0;
    for (const auto& [s, cands] : by_rarity(st, rng)) {
      if (accepted >= limit) break;
      for (const auto& c : cands)
        if (prepare(st, root, *s, c, path, pending)) {
          ++accepted;
          break;
        }
    }
  }

  void trajectories(const State& root, const std::vector<Accepted>& root_acc) {
    for (int t = 0; t < cfg_.trajectories_per_task; ++t) {
      Rng rng(derive(cfg_.master_seed, "trajectory", {root.tk, std::to_string(t)}));
      std::string tid = H({"steptp.traj/1", root.tk, std::to_string(t)}).substr(0, 16);
      std::vector<std::string> path{root.canon};
      std::vector<Accepted> acc = root_acc;
      bool exact = true;
      std::unique_ptr<State> cur;
      for (int depth = 1; depth < cfg_.max_depth && !acc.empty(); ++depth) {
        std::size_t pick = rng.below(acc.size());
        bool greedy = cfg_.trajectory_policy == "greedy" || (cfg_.trajectory_policy == "mixed" && rng.chance(0.5));
        if (greedy && env_.timer)
          for (std::size_t i = 0; i < acc.size(); ++i)
            if (acc[i].speedup_vs_root > acc[pick].speedup_vs_root) pick = i;
        Accepted chosen = acc[pick];
        exact = exact && chosen.exact;
        try {
          cur = make_state(std::move(chosen.after));
        } catch (const std::exception& e) {
          reject("", "S4", "trajectory_state_error", e.what());
          break;
        }
        cur->depth = depth;
        cur->path_exact = exact;
        cur->parent_record_id = chosen.record_id;
        cur->trajectory_id = tid;
        acc.clear();
        std::vector<Pending> pending;
        if (!prompt_too_long(*cur))
          prepare_limited(*cur, root, rng, std::size_t(cfg_.candidates_per_step), path, pending);
        measure_and_finish(*cur, root, pending, &acc);
        path.push_back(cur->canon);
      }
    }
  }

  const Unit& u_;
  const PipelineEnv& env_;
  const GenConfig& cfg_;
  EquivConfig ecfg_;
  std::vector<const strategy::StrategyInfo*> strategies_;
  UnitResult res_;
};

}  // namespace

UnitResult process_unit(const Unit& u, const PipelineEnv& env) { return UnitRunner(u, env).run(); }

std::map<std::string, int> root_site_counts(const std::vector<Unit>& units, const GenConfig& cfg) {
  std::map<std::string, int> n;
  for (const auto& u : units) {
    ir::Task t;
    try {
      t = emit_root_task(u);
    } catch (const std::exception&) {
      continue;
    }
    for (const auto& s : strategy::registry()) {
      const std::string name(s.name);
      if (!cfg.strategies.empty() && std::find(cfg.strategies.begin(), cfg.strategies.end(), name) == cfg.strategies.end())
        continue;
      try {
        if (!strategy::locked_enumerate(s, t).empty()) n[name]++;
      } catch (const std::exception&) {  // an enumeration failure is the unit's reject (S4), not the plan's
      }
    }
  }
  return n;
}

}  // namespace steptp::dataset
