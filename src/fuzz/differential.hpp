// Random-program differential fuzzing (issue #16 parts 2 and 3). For every generated task (program_gen.hpp):
//  generate    the validator accepts it and the checked interpreter runs it (a failure is a generator bug);
//  roundtrip   parse(print(t)) == t, print(parse(print(t))) == print(t), the task JSON round-trips, and the
//              synthesized form (no groups, no spellings) prints the same text (the printer's minimal parentheses);
//  lower_c     the compiled C lowering agrees with the typed interpreter (runtime::check_lowering), every k-th task;
//  lower_text  the TVMScript and CUDA lowerings emit text or a documented E4xx error, nothing else;
//  enumerate   every strategy's enumerate() returns without throwing;
//  candidate   sampled candidates of every strategy apply (S001/S002 declines are counted, not failures), their text
//              round-trips and validates, and they are equivalent to the task under their exactness class with the
//              dataset's numeric check (dataset::check_against on dataset::make_reference draws);
//  chain       a chain of random strategy steps (strategy::locked_legal_sites) stays equivalent to the root;
//  mutants     each semantic mutation (mutate.hpp) is rejected by equiv::check_equivalence; an accepted mutant is
//              re-checked by a second method (confirmed_equivalent): still equivalent counts as truly equivalent,
//              else a miss.
//  checker     the other side of the mutation check: the first checker_candidates candidates of a program that the
//              dataset's check accepted must be accepted by the mutation check's checker too (a checker that
//              rejects legitimate steps would reach any mutant rejection rate); a rejection is a false rejection,
//              the checker's defect like a mutant miss: counted apart from the failures, minimised, and written to
//              <regressions_dir>/../checker_false_rejections/.
// Failures are minimised (minimize.hpp) and written as regression files; see write_regression().
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/program_gen.hpp"
#include "equiv/equivalence.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::fuzz {

/// Seeds of the mutation check's second method (differential.cpp confirmed_equivalent).
inline constexpr std::uint64_t kJudgeSeeds = 256;
/// Boundary pairs of the second method, in each of its two checks (four times the checker's kCheapBoundaryPairs).
inline constexpr std::uint32_t kJudgeBoundaryPairs = 128;
/// Guided draws of the second method, in each of its two checks (untyped, typed), and their statement budget: twice
/// the checker's kCheapGuidedInputs and kCheapCheckBudget each, so four times in all.
inline constexpr std::uint32_t kJudgeGuidedInputs = 2048;
inline constexpr std::uint64_t kJudgeGuidedBudget = 2 * equiv::kCheapCheckBudget;

struct DiffOptions {
  GenOptions gen;
  int lower_every = 4;               // check_lowering on programs whose index is a multiple of this; 0: never
  int candidates_per_strategy = 3;   // sampled candidates of one strategy per program
  int candidates_per_program = 30;   // sampled candidates per program, over all strategies
  int chain_steps = 5;               // 0: no chain
  bool mutants = true;
  /// Check "checker" (also with --no-mutants): per program, this many candidates that passed the candidate check are
  /// checked again by mutation_checker, which must accept them; 0: off.
  int checker_candidates = 2;
  /// The equivalence checker under test in the mutation check: as `steptp equiv` runs it (equiv::cli_options(): 3
  /// seeds x N, U, W, K, adaptive and cheap-check draws with distribution S, boundary and guided draws). The second
  /// method that recognises truly equivalent mutants: judge_seeds other seeds x N, U, W, K and S, untyped and typed
  /// (256 by default: three and a half times the most the checker draws, 3 + 8 adaptive + 61 cheap-check seeds =
  /// 72), each with kJudgeBoundaryPairs boundary pairs and kJudgeGuidedInputs guided draws (the checker:
  /// checker.boundary.pairs, checker.guided.draws).
  equiv::Options checker = equiv::cli_options();
  std::uint64_t judge_seeds = kJudgeSeeds;  // seeds of the second method (confirmed_equivalent)
  bool minimize = true;
  double minimize_seconds = 30.0;    // per failure
  std::string regressions_dir;       // "" = write no files; mutant misses go to its sibling mutant_misses/
};

/// The equivalence checker under test in the mutation check (DiffOptions::checker).
const equiv::Options& mutation_checker(const DiffOptions& opt);

/// The mutation check's second method: is a mutant the checker accepted really equivalent to `t`? kJudgeSeeds
/// seeds (1000, 1001, ...; disjoint from the checker's) x N, U, W, K, S, untyped and then typed (§8.2 precision),
/// each followed by kJudgeBoundaryPairs boundary pairs and kJudgeGuidedInputs guided draws within kJudgeGuidedBudget
/// (equiv::Options::Boundary and equiv::Options::Guided; the boundary pairs within their
/// statement budget). Strong evidence, not proof. Never throws for programs that validate.
bool confirmed_equivalent(const ir::Task& t, const ir::Task& m, std::uint64_t seeds = kJudgeSeeds);

/// One failed check. `strategy` names the strategy for enumerate/candidate failures; `task` is the minimised task
/// (the generated one when minimisation is off); `file` the regression file written ("" if none).
struct Failure {
  std::string check;
  std::string strategy;
  std::string detail;
  std::uint64_t seed = 0;
  ir::Task task;
  std::string file;
};

struct MutantFigures {
  std::int64_t generated = 0, rejected = 0, equivalent = 0, missed = 0, not_applicable = 0;
};

/// Figures of a run (fuzz_summary.json).
struct Figures {
  std::int64_t programs = 0, validated = 0, roundtrips = 0, lowerings = 0, lower_texts = 0;
  std::int64_t strategies_enumerated = 0, candidates = 0, candidates_declined = 0, chains = 0, chain_steps = 0;
  std::int64_t checker_candidates = 0;        // candidates checked again by the mutation checker (check "checker")
  std::int64_t checker_false_rejections = 0;  // of them, rejected: not counted in failures_by_check
  std::map<std::string, std::int64_t> failures_by_check;
  std::map<std::string, MutantFigures> mutants;  // by mutation_name()
  double seconds = 0;
  std::int64_t executions() const;  // programs + lowerings + candidates + chain steps + mutants checked
  std::int64_t failures() const;
  std::int64_t mutant_misses() const;
  nlohmann::json to_json() const;
};

/// Runs every check on `t` (generated from `seed` when `generated`; lower_c only when `lower`), adding to `fig`.
/// Returns the failures (and the false rejections of check "checker"), not yet minimised; mutant misses ("kind: site") are appended to `misses`. Never throws.
std::vector<Failure> check_program(const ir::Task& t, std::uint64_t seed, bool generated, bool lower,
                                   const DiffOptions& opt, Figures& fig, std::vector<std::string>& misses);

/// The failure of check `check` (as named above; for candidate/enumerate/checker failures restricted to `strategy`,
/// with every candidate up to 64; the chain drawn from `seed`) on `t`, or "" when it passes. The minimisation
/// predicate and the regression replay. Never throws.
std::string check_error(const ir::Task& t, const std::string& check, const std::string& strategy, std::uint64_t seed,
                        const DiffOptions& opt);

/// Minimises `f.task` while check_error is not empty, then writes `<dir>/<check>[_<strategy>]_<hash>.json`:
/// {"check", "strategy", "detail", "seed", "task": <task object of LEIR.md §2>}. Sets f.task and f.file.
void minimize_and_write(Failure& f, const DiffOptions& opt);

/// Loads a regression file (as written above). Throws std::runtime_error / ir::LeirError.
Failure read_regression(const std::string& path);

struct FuzzRun {
  std::uint64_t seed = 0;
  std::int64_t programs = 100;       // stop after this many programs (0: no limit)
  double time_limit = 0;             // seconds; 0: no limit
};

struct FuzzResult {
  Figures figures;
  std::vector<Failure> failures;
  std::vector<std::string> misses;   // "kind: site (seed)" of every mutant miss
  std::vector<Failure> false_rejections;  // check "checker": legitimate candidates the mutation checker rejected
};

/// The fuzz loop: tasks generate_task(run.seed + i), i = 0, 1, ... until a limit; failures are minimised and written
/// when opt says so. `progress` is called after each program.
FuzzResult run_fuzz(const FuzzRun& run, const DiffOptions& opt,
                    const std::function<void(const Figures&)>& progress = {});

}  // namespace steptp::fuzz
