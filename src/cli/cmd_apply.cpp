// `steptp apply --strategy NAME TASK.json [--all | --max K --seed S] [--verify] [-o OUT.jsonl]`
// `steptp apply --candidate ID TASK.json [--verify] [-o OUT.jsonl]`: apply exactly one candidate given by its
// printed id (e.g. `loop_split@0/l2{outer=2}`, STRATEGIES.md §5); a malformed id or a stale site (the strategy's
// re-check fails: StrategyError S001 stale site, S002 bad parameters) exits 2 with the code on one line.
// Enumerates the candidates of one strategy on a task (STRATEGIES.md §5) and writes one JSON object per line:
//   {"task": <after-task object>, "strategy", "candidate": id, "params": {..}, "class": "E|R|D|P",
//    "facts": {..}, "equivalence": <equiv::Result JSON, with --verify>}
// Default is --all. --max K draws K candidates with std::mt19937_64{S} (strategy::sample_candidates).
// Exit codes: 0 ok; 1 a candidate failed to apply or (with --verify) was not equivalent; 2 bad input (unreadable
// or invalid task: the validator's error; unknown strategy: S004).
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/task_params.hpp"
#include "cli/work_budget.hpp"
#include "base/text.hpp"
#include "equiv/options.hpp"
#include "equiv/equivalence.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/sample.hpp"

namespace steptp::cli {
namespace {

struct ApplyOpts {
  std::string strategy, file, out, candidate;
  bool all = false, verify = false;
  std::size_t max = 0;
  std::uint64_t seed = 0;
  std::string domain_policy = "prove";
  WorkBudget budget;
  TaskParams params;
};

int run_apply(const ApplyOpts& o) {
  strategy::StrategyConfig cfg = strategy::default_config();
  cfg.domain_policy = o.domain_policy == "guard" ? strategy::DomainPolicy::Guard : strategy::DomainPolicy::Prove;
  strategy::ScopedConfig scoped(cfg);
  std::optional<strategy::Candidate> one;
  std::string name = o.strategy;
  if (!o.candidate.empty()) {
    one = strategy::parse_candidate_id(o.candidate);
    if (!one)
      return fail(code_str(Code::S002) + " malformed candidate id '" + o.candidate +
                  "' (expected strategy@site{name=value,...}, e.g. loop_split@0/l2{outer=2})");
    if (!name.empty() && name != one->strategy)
      return usage_error("apply", "--strategy " + name + " does not match the candidate's strategy " + one->strategy);
    name = one->strategy;
  }
  if (name.empty()) return usage_error("apply", "give --strategy NAME or --candidate ID");
  const strategy::StrategyInfo* s = nullptr;
  try {
    s = &strategy::find_or_throw(name);
  } catch (const strategy::StrategyError& e) {
    return fail(e.what());
  }
  ir::Task t;
  std::shared_ptr<const interp::TensorMap> fixed;  // --verify: the task's stored weights
  try {
    t = ir::read_task_file(o.file);
    ir::validate_or_throw(t);
    if (o.verify) {
      o.budget.check(t);
      fixed = o.params.load(o.file, t);
    }
  } catch (const ir::LeirError& e) {
    return fail_in(o.file, e);
  }
  std::vector<strategy::Candidate> cands;
  if (one) {
    cands.push_back(*one);
  } else {
    cands = strategy::enumerate_candidates(*s, t);
    if (!o.all && o.max > 0) cands = strategy::sample_candidates(cands, o.max, o.seed);
  }
  std::ostringstream out;
  int failures = 0;
  for (const auto& c : cands) {
    nlohmann::json rec;
    try {
      strategy::Applied a = s->apply(t, c);
      rec["task"] = nlohmann::json::parse(ir::task_to_json(a.task));
      rec["strategy"] = std::string(s->name);
      rec["candidate"] = c.id();
      nlohmann::json params = nlohmann::json::object();
      for (const auto& p : c.params) params[p.name] = p.value;
      rec["params"] = params;
      rec["class"] = std::string(1, strategy::exactness_letter(a.cls));
      rec["facts"] = a.facts;
      if (o.verify) {
        equiv::Options eo = equiv::cli_options();
        eo.exact = a.cls == strategy::Exactness::Exact;
        eo.max_steps = o.budget.max_steps;
        eo.fixed = fixed;
        auto r = equiv::check_equivalence(t, a.task, eo);
        rec["equivalence"] = nlohmann::json::parse(r.to_json());
        if (!r.equivalent) ++failures;
      }
    } catch (const strategy::StrategyError& e) {
      if (one) return fail(c.id() + ": " + e.code() + " " + e.what());  // the named candidate is stale
      ++failures;
      std::cerr << "steptp: " << c.id() << ": " << e.code() << " " << core::terminal_safe(e.what()) << "\n";
      continue;
    }
    out << rec.dump() << "\n";
  }
  if (o.out.empty()) std::cout << out.str();
  else ir::write_file_atomic(o.out, out.str());
  std::cerr << cands.size() << " candidate(s)" << (failures ? ", " + std::to_string(failures) + " failed" : "")
            << "\n";
  return failures ? 1 : 0;
}

CommandRegistrar reg("41-apply", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<ApplyOpts>();
  auto* sub = app.add_subcommand("apply", "Apply one strategy's candidates to a task; JSONL with facts");
  sub->footer("Exit status: 0 applied; 1 a candidate failed (or, --verify, was not equivalent); 2 bad input "
              "(S001/S002/S004, invalid task, E115); 70 an internal error.");
  sub->add_option("--strategy", o->strategy, "Strategy name (steptp strategies list); required without --candidate");
  auto* cand = sub->add_option("--candidate", o->candidate,
                               "Apply only this candidate, by printed id (e.g. 'loop_split@0/l2{outer=2}'); a stale "
                               "or malformed id exits 2 with its StrategyError code");
  sub->add_option("task", o->file, "Task file (.json object or JSONL: first task)")->required();
  auto* all = sub->add_flag("--all", o->all, "Every candidate (default)");
  auto* mx = sub->add_option("--max", o->max, "Draw at most K candidates (with --seed); K >= 1")->check(CLI::Range(std::size_t{1}, std::size_t{1000000000}));
  sub->add_option("--seed", o->seed, "Seed of the candidate draw (std::mt19937_64)");
  all->excludes(mx);
  cand->excludes(all)->excludes(mx);
  sub->add_option("--domain-policy", o->domain_policy,
                  "Class-D conditions sign analysis cannot prove: 'prove' (default) offers no such candidate, 'guard' "
                  "wraps the rewrite in if_then_else(condition, new, old) (STRATEGIES.md §6)")
      ->check(CLI::IsMember({"prove", "guard"}));
  sub->add_flag("--verify", o->verify, "Check each candidate with the equivalence checker (exact for class E)");
  sub->add_option("-o,--output", o->out, "Write the JSONL here (atomically; an existing link, FIFO or device is "
                  "never replaced: E115) instead of stdout");
  o->budget.add_options(sub, "--verify: ");
  o->params.add_options(sub);
  return [o, cand] {
    if (cand->count() > 0 && o->candidate.empty())
      return fail(code_str(Code::S002) + " empty candidate id (expected strategy@site{name=value,...})");
    return run_apply(*o);
  };
});

}  // namespace
}  // namespace steptp::cli
