#include "eval/grader.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ir/canon.hpp"
#include "step/checker.hpp"
#include "step/facts.hpp"
#include "step/reasoning.hpp"
#include "base/diag.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "lower/lower.hpp"
#include "runtime/measure.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::eval {
namespace {

ProgramGrade& failed(ProgramGrade& g, const char* gate, std::string reason, const std::string& detail) {
  g.failed_gate = gate;
  g.reason = std::move(reason);
  g.detail = detail.substr(0, 300);
  return g;
}

}  // namespace

TaskContext::TaskContext(ir::Task before) : before_(std::move(before)) {
  canon_ = core::alpha_canonical(before_);
  printed_ = ir::print_program(before_.program);
  task_key_ = core::task_key(before_);
  auto m = dataset::program_metrics(before_);
  intensity_ = m.min_traffic > 0 ? double(m.flops) / double(m.min_traffic) : 0.0;
  instances_ = dataset::statement_instances(before_);
}

const dataset::Reference& TaskContext::reference(const dataset::EquivConfig& cfg) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [stream, r] : refs_)
    if (stream == cfg.stream) return *r;
  auto r = std::make_shared<dataset::Reference>(dataset::make_reference(before_, task_key_, cfg));
  refs_.emplace_back(cfg.stream, r);
  return *r;
}

ojson ProgramGrade::to_json() const {
  ojson j;
  j["applied_strategy"] = strategy;
  j["differs"] = differs;
  j["valid"] = valid;
  j["equivalent"] = equivalent;
  j["faster"] = faster;
  j["failed_gate"] = failed_gate.empty() ? ojson(nullptr) : ojson(failed_gate);
  j["reason"] = reason;
  j["detail"] = detail;
  j["speedup"] = speedup ? ojson(*speedup) : ojson(nullptr);
  j["noisy"] = noisy;
  j["strategy_consistent"] = strategy_consistent;
  j["candidate"] = candidate.empty() ? ojson(nullptr) : ojson(candidate);
  j["recheck"] = recheck;
  j["strict_check"] = strict;
  j["check"] = check.empty() ? ojson(nullptr) : ojson(check);
  j["measurement"] = measurement;
  return j;
}

Grader::Grader(GradeConfig cfg, dataset::Timer* timer, dataset::Timer* recheck_timer)
    : cfg_(cfg), timer_(timer), recheck_timer_(recheck_timer ? recheck_timer : timer) {}

dataset::EquivConfig Grader::equiv_config(const std::string& stream, int draws) const {
  dataset::EquivConfig e;
  e.master_seed = cfg_.master_seed;
  e.draws = draws;
  e.interp_max_ops = cfg_.interp_max_ops;
  e.stream = stream;
  return e;
}

ProgramGrade Grader::grade(TaskContext& ctx, TaskContext& root, const AnswerProgram& p, const std::string& think) {
  ProgramGrade g;
  g.strategy = p.strategy;
  g.leir = p.leir;
  // differs (and the parse that valid needs)
  ir::Task after = ctx.before();
  std::string parse_error;
  try {
    after.program = ir::parse_program(p.leir);
  } catch (const ir::LeirError& e) {
    parse_error = e.code() + ": " + e.diag().headline();
  } catch (const std::exception& e) {
    parse_error = e.what();
  }
  g.canonical = parse_error.empty() ? core::alpha_canonical(after) : core::trim(p.leir);
  g.differs = parse_error.empty() ? g.canonical != ctx.canonical() : g.canonical != ctx.printed();
  if (!g.differs) return failed(g, "differs", "no_change", "the transformed program equals the current one up to renaming");
  if (!parse_error.empty()) return failed(g, "valid", "parse_error", parse_error);
  // valid
  try {
    ir::Task copy = after;
    ir::validate_or_throw(copy);
  } catch (const ir::LeirError& e) {
    return failed(g, "valid", "invalid_program", e.code() + ": " + e.diag().headline());
  } catch (const std::exception& e) {
    return failed(g, "valid", "invalid_program", e.what());
  }
  if (after.known != ctx.before().known) return failed(g, "valid", "signature_changed", "the known buffers changed");
  const std::int64_t work = dataset::statement_instances(after);
  if (double(work) > cfg_.max_work_ratio * double(std::max<std::int64_t>(1, root.instances())))
    return failed(g, "valid", "over_budget",
                  std::to_string(work) + " statement instances, more than " + fmt::format("{}", cfg_.max_work_ratio) +
                      " x the " + (&root == &ctx ? "current" : "root") + " program's " + std::to_string(root.instances()));
  std::string c_code;
  try {
    lower::lower_tir(after);
  } catch (const std::exception& e) {
    return failed(g, "valid", "lower_tir_error", e.what());
  }
  try {
    c_code = lower::lower_c(after);
  } catch (const std::exception& e) {
    return failed(g, "valid", "lower_c_error", e.what());
  }
  if (cfg_.measure) {
    try {
      runtime::compile_c(c_code);
    } catch (const std::exception& e) {
      return failed(g, "valid", "compile_error", e.what());
    }
  }
  g.valid = true;
  consistency(ctx, after, g, think);
  // equivalent
  dataset::EquivOutcome eo;
  try {
    const auto ecfg = equiv_config(cfg_.equiv_stream, cfg_.equiv_draws);
    eo = dataset::check_against(after, root.reference(ecfg), 'R', ecfg);
  } catch (const std::exception& e) {
    return failed(g, "equivalent", "reference_error", e.what());
  }
  if (!eo.ok) return failed(g, "equivalent", eo.reason, eo.detail);
  g.check = eo.evidence.value("method", "");
  const dataset::StrictOutcome so = strict_stage(root, after);
  g.strict = so.to_json();
  if (!so.ok) return failed(g, "equivalent", "strict_not_equivalent", so.code + ": " + so.detail);
  g.equivalent = true;
  if (!cfg_.measure || !timer_) return failed(g, "faster", "not_measured", "--no-measure");
  measure(cfg_.pair_with_parent ? ctx : root, after, g);
  return g;
}

dataset::StrictOutcome Grader::strict_stage(TaskContext& root, const ir::Task& after) const {
  const auto s5 = equiv_config(cfg_.equiv_stream, cfg_.equiv_draws);
  const dataset::EquivConfig draws = dataset::strict_draws(s5);
  const dataset::Reference* ref = nullptr;
  if (cfg_.strict.enabled) {
    try {
      ref = &root.reference(draws);
    } catch (const std::exception&) {
      ref = nullptr;  // the root cannot run on a wide or literal-directed draw: the stage is skipped, as recorded
    }
  }
  return dataset::strict_check(root.before(), ref, after, draws, root.task_key(), cfg_.strict);
}

void Grader::measure(TaskContext& ctx, const ir::Task& after, ProgramGrade& g) {
  const std::string flags = timer_->compile_flags();
  const dataset::TimedProgram tb{&ctx.before(), core::prog_key(ctx.before(), flags)};
  const dataset::TimedProgram ta{&after, core::prog_key(after, flags)};
  try {
    g.measurement = timer_->measure(tb, ta, nullptr);
  } catch (const std::exception& e) {
    failed(g, "faster", "measure_error", e.what());
    return;
  }
  g.speedup = g.measurement["speedup"].get<double>();
  g.noisy = g.measurement["noisy"].get<bool>();
  if (g.noisy) {
    failed(g, "faster", "noisy", "the paired timing was too noisy to decide");
    return;
  }
  if (*g.speedup < cfg_.faster_threshold) {
    failed(g, "faster", "not_faster", "speedup " + std::to_string(*g.speedup));
    return;
  }
  if (cfg_.recheck_faster) {
    const std::string trigger = recheck_trigger(ctx, *g.speedup);
    if (!trigger.empty()) {
      g.recheck = recheck(ctx, after, trigger);
      if (!g.recheck["passed"].get<bool>()) {
        failed(g, "faster", "recheck_failed", g.recheck["detail"].get<std::string>());
        return;
      }
    }
  }
  g.faster = true;
}

dataset::Timer::Outcome Grader::measure_pair(TaskContext& before, const ir::Task& after) {
  if (!timer_) return {nullptr, "no timer"};
  const std::string flags = timer_->compile_flags();
  const dataset::TimedProgram tb{&before.before(), core::prog_key(before.before(), flags)};
  const dataset::TimedProgram ta{&after, core::prog_key(after, flags)};
  return timer_->measure_batch(tb, {ta}, nullptr).at(0);
}

std::string Grader::recheck_trigger(const TaskContext& root, double speedup) const {
  if (speedup > 10) return "speedup above 10";
  if (root.intensity() >= cfg_.compute_bound_intensity && speedup > cfg_.suspicious_speedup)
    return "speedup above " + fmt::format("{}", cfg_.suspicious_speedup) + " on a compute-bound task";
  return "";
}

ojson Grader::recheck(TaskContext& root, const ir::Task& after, const std::string& trigger) {
  ojson rc{{"trigger", trigger}, {"equivalent", false}, {"speedup", nullptr}, {"noisy", nullptr}, {"passed", false},
           {"detail", ""}};
  auto ecfg = equiv_config("recheck", cfg_.recheck_trials);
  dataset::EquivOutcome eo;
  try {
    eo = dataset::check_against(after, root.reference(ecfg), 'R', ecfg);
  } catch (const std::exception& e) {
    eo.reason = "reference_error";
    eo.detail = e.what();
  }
  rc["equivalent"] = eo.ok;
  if (!eo.ok) {
    rc["detail"] = eo.reason + ": " + eo.detail;
    return rc;
  }
  if (!recheck_timer_) {
    rc["detail"] = "no timer to re-measure with";
    return rc;
  }
  const std::string flags = recheck_timer_->compile_flags();
  const dataset::TimedProgram tb{&root.before(), core::prog_key(root.before(), flags)};
  const dataset::TimedProgram ta{&after, core::prog_key(after, flags)};
  try {  // reversed order: after is timed as the "before" of the pair
    ojson m = recheck_timer_->measure(ta, tb, nullptr);
    double s = m["speedup"].get<double>();
    double sp = s > 0 ? 1.0 / s : 0.0;
    rc["speedup"] = sp;
    rc["noisy"] = m["noisy"];
    rc["passed"] = sp >= cfg_.faster_threshold && !m["noisy"].get<bool>();
    if (!rc["passed"].get<bool>()) rc["detail"] = "cold-cache reversed re-measurement gave " + std::to_string(sp);
  } catch (const std::exception& e) {
    rc["detail"] = std::string("re-measurement failed: ") + e.what();
  }
  return rc;
}

namespace {

/// The (candidate, apply result) pairs that a reasoning text names ("candidate <id>" in its Candidate lines) and
/// that give `want` (alpha-canonical); two candidates can give one program, and the text must name the one it
/// reasons about. Falls back to `first` when the text names none that fits.
std::vector<std::pair<strategy::Candidate, strategy::Applied>> named_matches(
    const ir::Task& before, const std::string& think, const std::string& strategy_name, const std::string& want) {
  std::vector<std::pair<strategy::Candidate, strategy::Applied>> out;
  const std::string tag = "candidate " + strategy_name + "@";
  for (auto p = think.find(tag); p != std::string::npos; p = think.find(tag, p + 1)) {
    auto e = think.find_first_of("\n", p);
    std::string id = think.substr(p + 10, e == std::string::npos ? std::string::npos : e - p - 10);
    auto c = strategy::parse_candidate_id(id);
    const strategy::StrategyInfo* s = strategy::find(strategy_name);
    if (!c || !s) continue;
    try {
      strategy::Applied ap = strategy::locked_apply(*s, before, *c);
      if (core::alpha_canonical(ap.task) == want) out.emplace_back(*c, std::move(ap));
    } catch (const std::exception&) {
    }
  }
  return out;
}

}  // namespace

void Grader::consistency(TaskContext& ctx, const ir::Task& after, ProgramGrade& g, const std::string& think) {
  const strategy::StrategyInfo* s = strategy::find(g.strategy);
  if (!s || (cfg_.consistency_enum_limit <= 0 && think.empty())) return;
  // A candidate the reasoning names is tried first: one apply instead of a scan.
  auto named = named_matches(ctx.before(), think, g.strategy, g.canonical);
  if (!named.empty()) {
    g.strategy_consistent = true;
    g.candidate = named.front().first.id();
    g.matches = std::make_shared<std::vector<std::pair<strategy::Candidate, strategy::Applied>>>(std::move(named));
    return;
  }
  std::vector<strategy::Site> sites;
  try {
    sites = strategy::locked_enumerate(*s, ctx.before());
  } catch (const std::exception&) {
    return;
  }
  // Sites on the first top-level nest that changed are tried first: a rewrite acts there, and the scan stops at
  // the first match (apply runs dependence analyses; trying every candidate cost 85% of an eval, bench/RESULTS.md).
  std::size_t changed = 0;
  const auto& bn = ctx.before().program.nests;
  const auto& an = after.program.nests;
  while (changed < bn.size() && changed < an.size() && ir::print_nest(bn[changed]) == ir::print_nest(an[changed])) ++changed;
  std::stable_partition(sites.begin(), sites.end(), [&](const strategy::Site& x) {
    return !x.ref.nest.empty() && x.ref.nest[0] == changed;
  });
  const std::string want = core::alpha_canonical(after);
  int tried = 0;
  for (const auto& site : sites)
    for (std::uint64_t k = 0; k < site.params.size(); ++k) {
      if (tried++ >= cfg_.consistency_enum_limit) return;
      strategy::Candidate c;
      c.strategy = g.strategy;
      c.ref = site.ref;
      try {
        c.params = site.params.at(k);
        strategy::Applied ap = strategy::locked_apply(*s, ctx.before(), c);
        if (core::alpha_canonical(ap.task) != want) continue;
        g.strategy_consistent = true;
        g.candidate = c.id();
        g.matches = std::make_shared<std::vector<std::pair<strategy::Candidate, strategy::Applied>>>();
        g.matches->emplace_back(std::move(c), std::move(ap));
        return;
      } catch (const std::exception&) {
        continue;
      }
    }
}

std::pair<bool, std::string> Grader::verify_reasoning(TaskContext& ctx, const ParsedAnswer& a,
                                                      const std::vector<ProgramGrade>& grades) {
  if (!a.ok) return {false, "not parsed"};
  if (!a.think_present) return {false, "no think block"};
  if (grades.empty()) return {false, "no program"};
  for (std::size_t i = 0; i < grades.size(); ++i)
    if (!grades[i].strategy_consistent || !grades[i].matches)
      return {false, "program " + std::to_string(i + 1) + " is not a result of its claimed strategy"};
  try {
    // The first match is the candidate the text names, when it names one. Two answers can be one program by two
    // candidates (a factor and its negation): the text names them in answer order, so each answer takes the first
    // named match that an earlier answer has not taken.
    std::vector<std::string> singles;
    std::set<std::string> taken;
    for (const auto& g : grades) {
      const auto* m = &g.matches->front();
      for (const auto& cand : *g.matches)
        if (!taken.count(cand.first.id())) {
          m = &cand;
          break;
        }
      taken.insert(m->first.id());
      singles.push_back(dataset::expected_reasoning(ctx.before(), m->second, m->first));
    }
    auto v = dataset::compare_reasoning(a.think, singles.size() == 1 ? singles[0] : dataset::render_multi_reasoning(singles));
    if (v.ok) return {true, ""};
    return {false, v.clause + ": " + v.detail};
  } catch (const std::exception& e) {
    return {false, std::string("analysis: ") + e.what()};
  }
}

}  // namespace steptp::eval
