#include "fuzz/differential.hpp"
#include "base/error_codes.hpp"

#include <chrono>
#include <filesystem>
#include <set>
#include <utility>

#include "base/json_text.hpp"
#include "base/rng.hpp"
#include "step/equiv.hpp"
#include "fuzz/minimize.hpp"
#include "fuzz/mutate.hpp"
#include "equiv/equivalence.hpp"
#include "interp/interpreter.hpp"
#include "base/diag.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "lower/lower.hpp"
#include "runtime/lower_check.hpp"
#include "strategies/registry.hpp"
#include "strategies/sample.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::fuzz {
namespace {

using namespace ir;

std::string error_text(const std::exception& e) {
  if (auto* le = dynamic_cast<const LeirError*>(&e)) return le->diag().headline();
  return e.what();
}

std::string cut(std::string s, std::size_t n = 400) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

/// generate: the validator accepts the task and the checked interpreter runs it on both distributions of seed 0.
std::string generate_error(const Task& t) {
  try {
    Task copy = t;
    validate_or_throw(copy);
    interp::Interpreter ip(t);
    interp::RunOptions ro;
    ro.checked = true;
    for (auto d : {equiv::Distribution::Normal, equiv::Distribution::Uniform}) ip.run(equiv::make_inputs(ip, 0, d), ro);
  } catch (const std::exception& e) {
    return error_text(e);
  }
  return "";
}

std::string roundtrip_error(const Task& t, bool generated) {
  const std::string text = print_program(t.program);
  Program back;
  try {
    back = parse_program(text);
  } catch (const std::exception& e) {
    return "printed text does not parse: " + error_text(e);
  }
  if (!(back == t.program)) return "parse(print(t)) differs from t: " + text;
  if (print_program(back) != text) return "print(parse(text)) != text: " + text;
  try {
    Task j = parse_task(task_to_json(t));
    if (j.known != t.known || !(j.program == t.program)) return "task JSON round trip differs";
  } catch (const std::exception& e) {
    return "task JSON does not parse back: " + error_text(e);
  }
  if (generated) {
    Program s = t.program;
    to_synthesized_form(s);
    const std::string st = print_program(s);
    if (st != text) return "synthesized tree prints " + st + " but its parsed form prints " + text;
  }
  return "";
}

std::string lower_c_error(const Task& t) {
  try {
    auto r = runtime::check_lowering(t, runtime::LowerTarget::C);
    return r.ok ? "" : cut(r.message, 600);
  } catch (const std::exception& e) {
    return "check_lowering threw: " + error_text(e);
  }
}

std::string lower_text_error(const Task& t) {
  for (int which = 0; which < 2; ++which) {
    try {
      (void)(which == 0 ? lower::lower_tir(t) : lower::lower_cuda(t));
    } catch (const LeirError& e) {
      if (steptp::info(e.id()).family != CodeFamily::LeirLower) return (which ? "lower_cuda: " : "lower_tir: ") + e.diag().headline();
    } catch (const std::exception& e) {
      return std::string(which ? "lower_cuda: " : "lower_tir: ") + e.what();
    }
  }
  return "";
}

dataset::EquivConfig equiv_config() { return dataset::EquivConfig{}; }

struct Outcome {
  bool declined = false;
  std::string error;  // "" when the candidate is equivalent
  Task result;
  strategy::Exactness cls = strategy::Exactness::Exact;
};

/// Applies one candidate and checks it like the dataset does (its printed text re-parsed and validated, then
/// dataset::check_against under its class), against `ref` (the draws of the task it is compared to).
Outcome check_candidate(const strategy::StrategyInfo& s, const Task& t, const strategy::Candidate& c,
                        const dataset::Reference& ref, char force_cls = 0) {
  Outcome o;
  strategy::Applied ap;
  try {
    ap = strategy::locked_apply(s, t, c);
  } catch (const strategy::StrategyError& e) {
    if (e.id() == Code::S003) o.error = c.id() + ": " + code_str(Code::S003) + " " + e.what();
    else o.declined = true;
    return o;
  } catch (const std::exception& e) {
    o.error = c.id() + ": apply threw: " + error_text(e);
    return o;
  }
  o.cls = ap.cls;
  if (ap.task.known != t.known) {
    o.error = c.id() + ": the known signature changed";
    return o;
  }
  const std::string text = print_program(ap.task.program);
  o.result = ap.task;
  try {
    o.result.program = parse_program(text);
    if (print_program(o.result.program) != text) throw std::runtime_error("print(parse(text)) != text");
    Task v = o.result;
    validate_or_throw(v);
  } catch (const std::exception& e) {
    o.error = c.id() + ": result text " + cut(text) + ": " + error_text(e);
    return o;
  }
  const char cls = force_cls ? force_cls : strategy::exactness_letter(ap.cls);
  dataset::EquivOutcome eo = dataset::check_against(o.result, ref, cls, equiv_config());
  if (!eo.ok) o.error = c.id() + " (class " + std::string(1, cls) + "): " + eo.reason + " " + eo.detail + " -> " + cut(text);
  return o;
}

dataset::Reference reference(const Task& t) { return dataset::make_reference(t, task_hash_hex(t), equiv_config()); }

/// The check "checker": candidates that the dataset's check accepted, checked again by the mutation check's checker
/// (mutation_checker), which must accept them too. `left` counts down the candidates still to check; `error` keeps
/// the first rejection.
struct Recheck {
  const DiffOptions* opt = nullptr;
  std::size_t left = 0;
  std::string error;
};

/// Candidates of `s` at `t` (sampled to `cap` with `seed`), each checked; the first error, "" if none. With
/// `recheck`, accepted candidates are also checked by the mutation checker while recheck->left > 0.
std::string strategy_error(const strategy::StrategyInfo& s, const Task& t, const dataset::Reference& ref,
                           std::size_t cap, std::uint64_t seed, Figures* fig, std::string* enumerate_error,
                           Recheck* recheck = nullptr) {
  std::vector<strategy::Candidate> cands;
  try {
    std::vector<strategy::Site> sites = strategy::locked_enumerate(s, t);
    for (const auto& site : sites)
      for (std::uint64_t k = 0; k < site.params.size() && k < 64; ++k)
        cands.push_back({std::string(s.name), site.ref, site.params.at(k)});
  } catch (const std::exception& e) {
    *enumerate_error = error_text(e);
    return "";
  }
  if (fig) ++fig->strategies_enumerated;
  cands = strategy::sample_candidates(cands, cap, seed);
  for (const auto& c : cands) {
    Outcome o = check_candidate(s, t, c, ref);
    if (fig) {
      ++fig->candidates;
      fig->candidates_declined += o.declined;
    }
    if (!o.error.empty()) return o.error;
    if (recheck && recheck->left > 0 && recheck->error.empty() && !o.declined) {
      --recheck->left;
      if (fig) ++fig->checker_candidates;
      const auto r = equiv::check_equivalence(t, o.result, mutation_checker(*recheck->opt));
      if (!r.equivalent)
        recheck->error = c.id() + " (class " + std::string(1, strategy::exactness_letter(o.cls)) +
                         ", accepted by the dataset's check): " + r.message + " -> " + cut(print_program(o.result.program));
    }
  }
  return "";
}

/// A chain of random steps from `t`, each checked against the root's draws. On a failing step, `bad_*` receive the
/// task it was applied to and its strategy.
std::string chain_error(const Task& t, const dataset::Reference& root_ref, int steps, std::uint64_t seed, Figures* fig,
                        Task* bad_from, std::string* bad_strategy) {
  core::Rng rng(seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull);
  Task cur = t;
  bool exact = true;
  if (fig) ++fig->chains;
  for (int step = 0; step < steps; ++step) {
    const auto legal = strategy::locked_legal_sites(cur);
    if (legal.empty()) break;
    bool advanced = false;
    for (int draw = 0; draw < 10 && !advanced; ++draw) {
      const auto& [s, sites] = legal[rng.below(legal.size())];
      const auto& site = sites[rng.below(sites.size())];
      strategy::Candidate c{std::string(s->name), site.ref, {}};
      try {
        c.params = site.params.at(rng.below(site.params.size()));
      } catch (const std::exception&) {
        continue;
      }
      strategy::Applied ap;
      try {
        ap = strategy::locked_apply(*s, cur, c);
      } catch (const std::exception&) {
        continue;  // declines and apply errors are the candidate check's business
      }
      const bool e = exact && ap.cls == strategy::Exactness::Exact;
      dataset::EquivOutcome eo = dataset::check_against(ap.task, root_ref, e ? 'E' : 'R', equiv_config());
      if (fig) ++fig->chain_steps;
      if (!eo.ok) {
        *bad_from = cur;
        *bad_strategy = std::string(s->name);
        return "step " + std::to_string(step + 1) + " " + c.id() + ": " + eo.reason + " " + eo.detail + " -> " +
               cut(print_program(ap.task.program));
      }
      exact = e;
      cur = std::move(ap.task);
      advanced = true;
    }
    if (!advanced) break;
  }
  return "";
}

/// Writes a missed mutant next to the regressions: <regressions_dir>/../mutant_misses/<kind>_<seed>.json.
void write_miss(const DiffOptions& opt, MutationKind k, std::uint64_t seed, const Task& t, const Mutant& m) {
  if (opt.regressions_dir.empty()) return;
  const auto dir = std::filesystem::path(opt.regressions_dir).parent_path() / "mutant_misses";
  std::filesystem::create_directories(dir);
  core::ojson j{{"kind", mutation_name(k)}, {"site", m.site}, {"seed", seed},
                {"original", core::ojson::parse(task_to_json(t))}, {"mutant", core::ojson::parse(task_to_json(m.task))}};
  write_file_atomic((dir / (std::string(mutation_name(k)) + "_" + std::to_string(seed) + ".json")).string(), j.dump(2) + "\n");
}

void check_mutants(const Task& t, std::uint64_t seed, const DiffOptions& opt, Figures& fig, std::vector<std::string>& misses) {
  for (MutationKind k : kAllMutations) {
    MutantFigures& mf = fig.mutants[std::string(mutation_name(k))];
    std::optional<Mutant> m;
    try {
      m = mutate(t, k, seed * 31 + std::uint64_t(k));
    } catch (const std::exception& e) {
      misses.push_back(std::string(mutation_name(k)) + ": mutate threw " + error_text(e));
      continue;
    }
    if (!m) {
      ++mf.not_applicable;
      continue;
    }
    ++mf.generated;
    if (!equiv::check_equivalence(t, m->task, mutation_checker(opt)).equivalent) {
      ++mf.rejected;
    } else if (confirmed_equivalent(t, m->task, opt.judge_seeds)) {
      ++mf.equivalent;
    } else {
      ++mf.missed;
      misses.push_back(std::string(mutation_name(k)) + ": " + m->site + " (seed " + std::to_string(seed) + ")");
      write_miss(opt, k, seed, t, *m);
    }
  }
}

Failure failure(std::string check, std::string strategy, std::string detail, std::uint64_t seed, const Task& t) {
  return Failure{std::move(check), std::move(strategy), cut(std::move(detail), 1200), seed, t, ""};
}

}  // namespace

const equiv::Options& mutation_checker(const DiffOptions& opt) { return opt.checker; }

// 256 seeds: three and a half times the most the checker draws (3 + 8 adaptive + 61 cheap-check = 72), and four
// times its boundary pairs.
bool confirmed_equivalent(const ir::Task& t, const ir::Task& m, std::uint64_t seeds) {
  equiv::Options strong;
  strong.seeds.clear();
  for (std::uint64_t s = 0; s < seeds; ++s) strong.seeds.push_back(1000 + s);
  strong.dists.push_back(equiv::Distribution::Skewed);
  strong.boundary.pairs = kJudgeBoundaryPairs;
  strong.guided.draws = kJudgeGuidedInputs;
  strong.guided.budget = kJudgeGuidedBudget;
  if (!equiv::check_equivalence(t, m, strong).equivalent) return false;
  strong.typed = true;
  return equiv::check_equivalence(t, m, strong).equivalent;
}

std::int64_t Figures::executions() const {
  std::int64_t m = 0;
  for (const auto& [k, f] : mutants) m += f.generated;
  return programs + lowerings + candidates + chain_steps + m;
}
std::int64_t Figures::failures() const {
  std::int64_t n = 0;
  for (const auto& [k, v] : failures_by_check) n += v;
  return n;
}
std::int64_t Figures::mutant_misses() const {
  std::int64_t n = 0;
  for (const auto& [k, f] : mutants) n += f.missed;
  return n;
}

nlohmann::json Figures::to_json() const {
  nlohmann::json mj = nlohmann::json::object();
  std::int64_t gen = 0, rej = 0, eq = 0;
  for (const auto& [k, f] : mutants) {
    const std::int64_t wrong = f.generated - f.equivalent;
    mj[k] = {{"generated", f.generated}, {"rejected", f.rejected}, {"equivalent", f.equivalent},
             {"missed", f.missed}, {"not_applicable", f.not_applicable},
             {"rejection_rate", wrong ? double(f.rejected) / double(wrong) : 1.0}};
    gen += f.generated;
    rej += f.rejected;
    eq += f.equivalent;
  }
  return {{"programs_generated", programs},
          {"programs_validated", validated},
          {"roundtrips", roundtrips},
          {"lowerings_checked", lowerings},
          {"lower_texts_checked", lower_texts},
          {"strategies_enumerated", strategies_enumerated},
          {"strategy_candidates_checked", candidates},
          {"strategy_candidates_declined", candidates_declined},
          {"checker_candidates_checked", checker_candidates},
          {"checker_false_rejections", checker_false_rejections},
          {"checker_false_rejection_rate",
           checker_candidates ? double(checker_false_rejections) / double(checker_candidates) : 0.0},
          {"chains", chains},
          {"chain_steps", chain_steps},
          {"failures", failures()},
          {"failures_by_check", failures_by_check},
          {"mutants", mj},
          {"mutants_generated", gen},
          {"mutants_rejected", rej},
          {"mutants_equivalent", eq},
          {"mutant_misses", mutant_misses()},
          {"mutant_rejection_rate", gen - eq ? double(rej) / double(gen - eq) : 1.0},
          {"seconds", seconds},
          {"executions", executions()},
          {"executions_per_second", seconds > 0 ? double(executions()) / seconds : 0.0},
          {"programs_per_second", seconds > 0 ? double(programs) / seconds : 0.0}};
}

std::vector<Failure> check_program(const Task& t, std::uint64_t seed, bool generated, bool lower,
                                   const DiffOptions& opt, Figures& fig, std::vector<std::string>& misses) {
  std::vector<Failure> out;
  auto fail = [&](const std::string& check, const std::string& strategy, const std::string& detail, const Task& on) {
    out.push_back(failure(check, strategy, detail, seed, on));
    ++fig.failures_by_check[check];
  };
  ++fig.programs;
  if (std::string e = generate_error(t); !e.empty()) {
    fail("generate", "", e, t);
    return out;  // nothing else is meaningful on an invalid or failing task
  }
  ++fig.validated;
  if (std::string e = roundtrip_error(t, generated); !e.empty()) fail("roundtrip", "", e, t);
  else ++fig.roundtrips;
  if (std::string e = lower_text_error(t); !e.empty()) fail("lower_text", "", e, t);
  ++fig.lower_texts;
  if (lower) {
    ++fig.lowerings;
    if (std::string e = lower_c_error(t); !e.empty()) fail("lower_c", "", e, t);
  }
  dataset::Reference ref;
  try {
    ref = reference(t);
  } catch (const std::exception& e) {
    fail("generate", "", "reference run: " + error_text(e), t);
    return out;
  }
  // Candidates: every strategy, sampled; the per-program cap is spread in registry order from a seeded offset.
  const auto reg = strategy::registry();
  std::size_t budget = std::size_t(std::max(0, opt.candidates_per_program));
  const std::size_t first = std::size_t(seed % reg.size());
  Recheck recheck{&opt, std::size_t(std::max(0, opt.checker_candidates)), ""};
  for (std::size_t i = 0; i < reg.size(); ++i) {
    const auto& s = reg[(first + i) % reg.size()];
    const std::int64_t before = fig.candidates;
    std::string enum_err;
    const std::size_t cap = std::min<std::size_t>(budget, std::size_t(std::max(0, opt.candidates_per_strategy)));
    std::string e = strategy_error(s, t, ref, cap, seed + i, &fig, &enum_err, &recheck);
    if (!enum_err.empty()) fail("enumerate", std::string(s.name), enum_err, t);
    if (!e.empty()) fail("candidate", std::string(s.name), e, t);
    if (!recheck.error.empty()) {  // a false rejection: the checker's defect, counted apart from the failures
      out.push_back(failure("checker", std::string(s.name), std::exchange(recheck.error, ""), seed, t));
      ++fig.checker_false_rejections;
    }
    budget -= std::min<std::size_t>(budget, std::size_t(fig.candidates - before));
  }
  if (opt.chain_steps > 0) {
    Task from;
    std::string strat;
    if (std::string e = chain_error(t, ref, opt.chain_steps, seed, &fig, &from, &strat); !e.empty()) {
      // A step that is wrong on its own is a candidate failure of that strategy at the intermediate task.
      std::string alone, enum_err;
      try {
        alone = strategy_error(*strategy::find(strat), from, reference(from), 64, 0, nullptr, &enum_err);
      } catch (const std::exception&) {
      }
      if (!alone.empty()) fail("candidate", strat, "in a chain from seed " + std::to_string(seed) + ": " + alone, from);
      else fail("chain", "", e, t);
    }
  }
  if (opt.mutants) check_mutants(t, seed, opt, fig, misses);
  return out;
}

std::string check_error(const Task& t, const std::string& check, const std::string& strategy, std::uint64_t seed,
                        const DiffOptions& opt) {
  try {
    if (check == "generate") return generate_error(t);
    if (std::string e = generate_error(t); !e.empty()) return "";  // the other checks need a runnable task
    if (check == "roundtrip") return roundtrip_error(t, false);
    if (check == "lower_c") return lower_c_error(t);
    if (check == "lower_text") return lower_text_error(t);
    const dataset::Reference ref = reference(t);
    if (check == "chain") {
      Task from;
      std::string strat;
      return chain_error(t, ref, std::max(1, opt.chain_steps), seed, nullptr, &from, &strat);
    }
    const strategy::StrategyInfo* s = strategy::find(strategy);
    if (!s) return "";
    std::string enum_err;
    Recheck recheck{&opt, check == "checker" ? std::size_t(64) : 0, ""};
    std::string e = strategy_error(*s, t, ref, 64, 0, nullptr, &enum_err, &recheck);
    return check == "enumerate" ? enum_err : check == "checker" ? recheck.error : e;
  } catch (const std::exception&) {
    return "";
  }
}

void minimize_and_write(Failure& f, const DiffOptions& opt) {
  if (opt.minimize && f.check != "generate") {  // a generator bug is read from the generated task itself
    MinimizeOptions mo;
    mo.max_seconds = opt.minimize_seconds;
    mo.normalize = f.check != "roundtrip";
    auto pred = [&](const Task& c) { return !check_error(c, f.check, f.strategy, f.seed, opt).empty(); };
    if (pred(f.task)) {
      f.task = minimize(f.task, pred, mo).task;
      const std::string d = check_error(f.task, f.check, f.strategy, f.seed, opt);
      if (!d.empty()) f.detail = cut(d, 1200);
    }
  }
  if (opt.regressions_dir.empty()) return;
  std::filesystem::create_directories(opt.regressions_dir);
  const std::string name = f.check + (f.strategy.empty() ? "" : "_" + f.strategy) + "_" + task_hash_hex(f.task).substr(0, 8);
  f.file = (std::filesystem::path(opt.regressions_dir) / (name + ".json")).string();
  core::ojson j{{"check", f.check}, {"strategy", f.strategy}, {"detail", f.detail}, {"seed", f.seed},
                {"task", core::ojson::parse(task_to_json(f.task))}};
  write_file_atomic(f.file, j.dump(2) + "\n");
}

Failure read_regression(const std::string& path) {
  const auto j = core::ojson::parse(read_file(path));
  Failure f;
  f.check = j.at("check").get<std::string>();
  f.strategy = j.value("strategy", "");
  f.detail = j.value("detail", "");
  f.seed = j.value("seed", std::uint64_t(0));
  f.task = parse_task(j.at("task").dump());
  f.file = path;
  return f;
}

FuzzResult run_fuzz(const FuzzRun& run, const DiffOptions& opt, const std::function<void(const Figures&)>& progress) {
  FuzzResult r;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::map<std::string, int> minimised;  // per check+strategy: only the first two failures are minimised
  for (std::int64_t i = 0; run.programs <= 0 || i < run.programs; ++i) {
    if (run.time_limit > 0 && elapsed() >= run.time_limit) break;
    const std::uint64_t seed = run.seed + std::uint64_t(i);
    const Task t = generate_task(seed, opt.gen);
    const bool lower = opt.lower_every > 0 && i % opt.lower_every == 0;
    auto fails = check_program(t, seed, true, lower, opt, r.figures, r.misses);
    for (auto& f : fails) {
      const bool rejection = f.check == "checker";
      if (minimised[f.check + "/" + f.strategy]++ < 2) {
        DiffOptions where = opt;  // false rejections go next to the mutant misses
        if (rejection && !opt.regressions_dir.empty())
          where.regressions_dir =
              (std::filesystem::path(opt.regressions_dir).parent_path() / "checker_false_rejections").string();
        minimize_and_write(f, where);
      }
      (rejection ? r.false_rejections : r.failures).push_back(std::move(f));
    }
    r.figures.seconds = elapsed();
    if (progress) progress(r.figures);
  }
  r.figures.seconds = elapsed();
  return r;
}

}  // namespace steptp::fuzz
