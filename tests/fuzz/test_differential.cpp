// The random-program differential fuzzer (src/fuzz/): generator validity, coverage and determinism, each semantic
// mutation on a hand-written task, the minimiser, a short seeded fuzz run, and the replay of the committed
// regression files in fuzz/regressions/.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "fuzz/ast_edit.hpp"
#include "fuzz/differential.hpp"
#include "fuzz/minimize.hpp"
#include "fuzz/mutate.hpp"
#include "fuzz/program_gen.hpp"
#include "equiv/equivalence.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::fuzz {
namespace {

namespace fs = std::filesystem;
using namespace ir;

/// Every construct the generator promises (program_gen.hpp), found by walking the generated tasks.
struct Coverage {
  std::set<LoopKind> loop_kinds;
  std::set<DType> dtypes;
  std::set<Scope> scopes;
  std::set<InitKind> inits;
  std::set<Func> funcs;
  std::set<BinOp> ops;
  std::set<Role> roles;
  bool tail = false, nested = false, gather = false, chain = false;

  void nest(const Nest& n, int depth) {
    nested = nested || depth > 0;
    for (const auto& l : n.loops) loop_kinds.insert(l.kind);
    for (const auto& it : n.body) {
      if (it.is_nest()) {
        tail = tail || it.nest().tail;
        nest(it.nest(), depth + 1);
      }
    }
  }
  void expr(const Expr& e, bool in_subscript) {
    if (e.kind == ExprKind::Ref) {
      dtypes.insert(e.dtype);
      scopes.insert(e.scope);
      gather = gather || in_subscript;
    }
    if (e.kind == ExprKind::Call) funcs.insert(e.fn);
    if (e.kind == ExprKind::Binary) ops.insert(e.bop);
    if (e.kind == ExprKind::Compare && e.cmps.size() > 1) chain = true;
    for (const auto& c : e.args) expr(c, in_subscript || e.kind == ExprKind::Ref);
  }
  void task(Task t) {
    for (const auto& k : t.known) roles.insert(k.role);
    for (const auto& n : t.program.nests) nest(n, 0);
    analyze(t);
    for_each_stmt(t.program, [&](const Stmt& s, const std::vector<const Loop*>&, std::size_t) {
      inits.insert(s.init);
      expr(s.lhs, false);
      expr(s.rhs, false);
    });
  }
};

TEST(FuzzGenerator, TwoHundredProgramsValidateRoundTripAndCoverTheGrammar) {
  Coverage cov;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const Task t = generate_task(seed);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + print_program(t.program));
    Task v = t;
    Analysis a = analyze(v);
    ASSERT_TRUE(a.ok()) << a.first_error()->headline();
    // Valid and runnable (checked interpreter), and the printed text reads back as the same tree.
    EXPECT_EQ(check_error(t, "generate", "", seed, {}), "");
    EXPECT_EQ(check_error(t, "roundtrip", "", seed, {}), "");
    // The synthesized form (what strategies build) prints the same text: the printer adds exactly these parentheses.
    Program s = t.program;
    to_synthesized_form(s);
    EXPECT_EQ(print_program(s), print_program(t.program));
    EXPECT_EQ(parse_program(print_program(s)), t.program);
    cov.task(t);
  }
  for (LoopKind k : {LoopKind::L, LoopKind::P, LoopKind::V, LoopKind::U, LoopKind::B})
    EXPECT_TRUE(cov.loop_kinds.count(k)) << loop_kind_char(k);
  for (DType d : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I8, DType::I16, DType::I32, DType::I64,
                  DType::U8, DType::U16, DType::U32, DType::U64, DType::Bool})
    EXPECT_TRUE(cov.dtypes.count(d)) << dtype_name(d);
  for (Scope s : {Scope::Global, Scope::Shared, Scope::Local}) EXPECT_TRUE(cov.scopes.count(s)) << scope_name(s);
  for (InitKind i : {InitKind::None, InitKind::Zero, InitKind::One, InitKind::NegInf, InitKind::PosInf})
    EXPECT_TRUE(cov.inits.count(i)) << int(i);
  for (Func f : {Func::Exp, Func::Log, Func::Sqrt, Func::Abs, Func::Erf, Func::Max, Func::Min, Func::IfThenElse})
    EXPECT_TRUE(cov.funcs.count(f)) << func_name(f);
  for (BinOp o : {BinOp::Or, BinOp::And, BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::FloorDiv, BinOp::Mod,
                  BinOp::Pow})
    EXPECT_TRUE(cov.ops.count(o)) << binop_text(o);
  for (Role r : {Role::Input, Role::Constant, Role::Param, Role::Output}) EXPECT_TRUE(cov.roles.count(r)) << role_name(r);
  EXPECT_TRUE(cov.tail);
  EXPECT_TRUE(cov.nested);
  EXPECT_TRUE(cov.gather);
  EXPECT_TRUE(cov.chain);
}

TEST(FuzzGenerator, SameSeedSameTaskOtherSeedOtherTask) {
  const Task a = generate_task(12345), b = generate_task(12345), c = generate_task(12346);
  EXPECT_EQ(task_to_json(a), task_to_json(b));
  EXPECT_EQ(a.program, b.program);
  EXPECT_NE(task_to_json(a), task_to_json(c));
  GenOptions small;
  small.max_extent = 2;
  const Task d = generate_task(12345, small);
  for (const auto& k : d.known)
    for (auto e : k.shape) EXPECT_LE(e, 2);
}

/// C[a] = sum_c (A[a,c] - D[a]) * 2.0, then C[a] = C[a] * 0.5: every mutation kind has a valid site.
Task hand_task() {
  Task t;
  t.workload = "hand";
  t.known = {{"A", Role::Input, DType::F32, {5, 4}}, {"D", Role::Input, DType::F32, {4}}, {"C", Role::Output, DType::F32, {4}}};
  t.program = parse_program(
      "L^{4}_{a=0}L^{3}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+(A^{f32,g}_{a,c}-D^{f32,g}_{a})*2.0;];"
      "L^{4}_{a=0}[C^{f32,g}_{a}=C^{f32,g}_{a}*0.5;];");
  return t;
}

TEST(FuzzMutations, EachKindAppliesAndTheCheckerRejectsIt) {
  const Task t = hand_task();
  Task v = t;
  ASSERT_TRUE(analyze(v).ok());
  for (MutationKind k : kAllMutations) {
    SCOPED_TRACE(std::string(mutation_name(k)));
    auto m = mutate(t, k, 7);
    ASSERT_TRUE(m.has_value());
    Task mv = m->task;
    ASSERT_TRUE(analyze(mv).ok()) << print_program(m->task.program);
    const auto r = equiv::check_equivalence(t, m->task);
    EXPECT_FALSE(r.equivalent) << print_program(m->task.program);
  }
  // Sites with a single choice give exactly this text. Swap: A-D is the only non-commutative operator, and the
  // output becomes sum_c (D-A)*2.0*0.5, the negation of the original.
  const std::string swapped = print_program(mutate(t, MutationKind::SwapOperands, 1)->task.program);
  EXPECT_EQ(swapped,
            "L^{4}_{a=0}L^{3}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+(D^{f32,g}_{a}-A^{f32,g}_{a,c})*2.0;];"
            "L^{4}_{a=0}[C^{f32,g}_{a}=C^{f32,g}_{a}*0.5;];");
  // Drop init: the sum (identity 0) now continues from 1.0, so every output grows by 1.0*0.5 = 0.5.
  const std::string dropped = print_program(mutate(t, MutationKind::DropInit, 1)->task.program);
  EXPECT_EQ(dropped.substr(0, 32), "L^{4}_{a=0}[C^{f32,g}_{a}=1.0;];");
  // Shorten: each of the three loops can lose its last iteration (C is fully written by the second nest, so no
  // E210): fewer terms (c), C[3] read uninitialised (first a: E301 when run), or C[3] not halved (second a).
  const std::set<std::string> shortened{
      "L^{3}_{a=0}L^{3}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+(A^{f32,g}_{a,c}-D^{f32,g}_{a})*2.0;];L^{4}_{a=0}[C^{f32,g}_{a}=C^{f32,g}_{a}*0.5;];",
      "L^{4}_{a=0}L^{2}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+(A^{f32,g}_{a,c}-D^{f32,g}_{a})*2.0;];L^{4}_{a=0}[C^{f32,g}_{a}=C^{f32,g}_{a}*0.5;];",
      "L^{4}_{a=0}L^{3}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+(A^{f32,g}_{a,c}-D^{f32,g}_{a})*2.0;];L^{3}_{a=0}[C^{f32,g}_{a}=C^{f32,g}_{a}*0.5;];"};
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 16; ++seed)
    seen.insert(print_program(mutate(t, MutationKind::ShortenLoop, seed)->task.program));
  EXPECT_EQ(seen, shortened);
  // Zero output: one of the two statements stores 0; either way C is not the original.
  const std::string zero = print_program(mutate(t, MutationKind::ZeroOutput, 5)->task.program);
  EXPECT_NE(zero.find("C^{f32,g}_{a}=0;"), std::string::npos);
  // A task without any reduction has no drop-init site.
  Task plain = t;
  plain.program = parse_program("L^{4}_{a=0}[C^{f32,g}_{a}=A^{f32,g}_{a,0}-D^{f32,g}_{a};];");
  EXPECT_FALSE(mutate(plain, MutationKind::DropInit, 0).has_value());
}

TEST(FuzzMutations, AMutantInDeadCodeIsCountedEquivalentNotMissed) {
  // E is written and never read (W005), and its 1.0 is the only literal in a value position.
  Task t;
  t.workload = "dead";
  t.known = {{"A", Role::Input, DType::F32, {4, 2}}, {"C", Role::Output, DType::F32, {4}}};
  t.program = parse_program("L^{4}_{a=0}[E^{f32,g}_{a}=A^{f32,g}_{a,0}+1.0;];"
                            "L^{4}_{a=0}[C^{f32,g}_{a}=A^{f32,g}_{a,0}*A^{f32,g}_{a,1};];");
  DiffOptions opt;
  opt.candidates_per_program = 0;
  opt.chain_steps = 0;
  Figures fig;
  std::vector<std::string> misses;
  auto fails = check_program(t, 0, false, false, opt, fig, misses);
  EXPECT_TRUE(fails.empty()) << fails[0].check << ": " << fails[0].detail;
  EXPECT_EQ(fig.mutants["change_literal"].generated, 1);
  EXPECT_EQ(fig.mutants["change_literal"].equivalent, 1);
  EXPECT_EQ(fig.mutant_misses(), 0);
  EXPECT_TRUE(misses.empty());
  // Zeroing the output is never equivalent here (A is normal-distributed).
  EXPECT_EQ(fig.mutants["zero_output"].rejected, 1);
}

TEST(FuzzMinimize, ShrinksToTheStatementsThePredicateNeeds) {
  auto has_erf = [](const Task& t) {
    return count_exprs(t.program, [](const Expr& e, const ExprSite&) { return e.kind == ExprKind::Call && e.fn == Func::Erf; }) > 0;
  };
  Task big;
  std::uint64_t seed = 0;
  for (; seed < 500; ++seed) {
    big = generate_task(seed);
    if (has_erf(big) && count_stmts(big.program) >= 3) break;
  }
  ASSERT_LT(seed, 500u);
  const auto r = minimize(big, has_erf);
  EXPECT_TRUE(has_erf(r.task));
  Task v = r.task;
  EXPECT_TRUE(analyze(v).ok());
  EXPECT_LT(task_size(r.task), task_size(big));
  // What must stay: one statement per output (each must be written) plus at most the one holding erf.
  std::size_t outputs = 0;
  for (const auto& k : r.task.known) outputs += k.role == Role::Output;
  EXPECT_LE(count_stmts(r.task.program), outputs + 1) << print_program(r.task.program);
  EXPECT_GT(r.accepted, 0);
}

// Check "checker" on tests/equiv/checker_false_rejections/expand_collect_100352.json: an expand_collect (1.1*G
// against (0.1+1)*G, class R) whose bool output flips where a guided draw copied the compared value exactly. The
// checker's tie check accepts it; without the tie check, on the generator's program of seed 100352 (that file holds
// its minimised form), the check finds the false rejection, and the minimiser shrinks the program while some
// expand_collect candidate is still rejected. Slow (runs in `make unit` only): under ASan the 20 s minimiser budget
// shrinks nothing.
TEST(FuzzDifferentialSlow, CheckerCheckFindsAndMinimisesAFalseRejection) {
  DiffOptions opt;
  EXPECT_EQ(check_error(generate_task(100352, opt.gen), "checker", "expand_collect", 0, opt), "");
  opt.checker.guided.tie_check = false;
  Failure f;
  f.check = "checker";
  f.strategy = "expand_collect";
  f.task = generate_task(100352, opt.gen);
  const std::string e = check_error(f.task, "checker", "expand_collect", 0, opt);
  EXPECT_NE(e.find("accepted by the dataset's check"), std::string::npos) << e;
  EXPECT_NE(e.find("on guided draw"), std::string::npos) << e;
  EXPECT_EQ(check_error(f.task, "checker", "loop_reorder", 0, opt), "");
  opt.minimize_seconds = 20;
  opt.regressions_dir = (fs::temp_directory_path() / "steptp_fuzz_test_checker").string();
  fs::remove_all(opt.regressions_dir);
  minimize_and_write(f, opt);
  ASSERT_TRUE(fs::exists(f.file));
  EXPECT_LT(task_size(f.task), task_size(generate_task(100352, opt.gen)));
  const Failure back = read_regression(f.file);
  EXPECT_EQ(back.check, "checker");
  EXPECT_NE(check_error(back.task, "checker", "expand_collect", 0, opt), "");
  fs::remove_all(opt.regressions_dir);
}

TEST(FuzzDifferential, ShortRunWithoutCompiler) {
  DiffOptions opt;
  opt.lower_every = 0;
  opt.candidates_per_program = 8;
  opt.checker_candidates = 1;
  opt.minimize = false;
  const auto r = run_fuzz({/*seed*/ 1000, /*programs*/ 6, 0}, opt);
  for (const auto& f : r.failures) ADD_FAILURE() << f.check << " " << f.strategy << " seed " << f.seed << ": " << f.detail;
  for (const auto& m : r.misses) ADD_FAILURE() << "mutant miss: " << m;
  EXPECT_EQ(r.figures.programs, 6);
  EXPECT_EQ(r.figures.validated, 6);
  EXPECT_EQ(r.figures.roundtrips, 6);
  EXPECT_EQ(r.figures.lowerings, 0);
  EXPECT_GT(r.figures.candidates, 0);
  // check "checker": the first accepted candidate of each program is checked again by the mutation checker, which
  // must accept it (one, not the default two, and 6 programs: this suite also runs under ASan, about 20 s a program)
  EXPECT_GE(r.figures.checker_candidates, 5);
  EXPECT_LE(r.figures.checker_candidates, 6);
  for (const auto& f : r.false_rejections) ADD_FAILURE() << "checker false rejection: " << f.strategy << ": " << f.detail;
  EXPECT_EQ(r.figures.checker_false_rejections, 0);
  EXPECT_EQ(r.figures.to_json()["checker_candidates_checked"], r.figures.checker_candidates);
}

TEST(FuzzDifferentialSlow, ShortSeededRunWithCLowering) {
  DiffOptions opt;
  opt.lower_every = 3;
  opt.regressions_dir = (fs::temp_directory_path() / "steptp_fuzz_test_regressions").string();
  const std::int64_t n = 60;
  const auto r = run_fuzz({/*seed*/ 0, n, 0}, opt);
  for (const auto& f : r.failures) ADD_FAILURE() << f.check << " " << f.strategy << " seed " << f.seed << ": " << f.detail << " (" << f.file << ")";
  const auto& fig = r.figures;
  // The checker's 3 seeds may miss a mutant whose effect few inputs show (a threshold comparison into a bool
  // output); such misses are reported, and must stay rare.
  for (const auto& m : r.misses) std::cerr << "mutant miss: " << m << "\n";
  EXPECT_GE(fig.to_json()["mutant_rejection_rate"].get<double>(), 0.9);
  // and the same checker accepts the legitimate candidates it is shown (check "checker")
  for (const auto& f : r.false_rejections) ADD_FAILURE() << "checker false rejection: " << f.strategy << ": " << f.detail;
  EXPECT_GE(fig.checker_candidates, n);
  EXPECT_EQ(fig.programs, n);
  EXPECT_EQ(fig.validated, n);
  EXPECT_EQ(fig.lowerings, n / 3);
  EXPECT_GT(fig.candidates, n);
  EXPECT_GT(fig.chain_steps, n);
  for (MutationKind k : kAllMutations) EXPECT_GT(fig.mutants.at(std::string(mutation_name(k))).generated, 0) << mutation_name(k);
  const auto j = fig.to_json();
  EXPECT_EQ(j["programs_generated"], n);
  EXPECT_EQ(j["failures"], 0);
  EXPECT_GT(j["executions_per_second"].get<double>(), 0.0);
}

/// The committed regression cases: each file names the check that once failed on its (minimised) task.
void replay(bool with_compiler) {
  const fs::path dir = fs::path(STEPTP_SOURCE_DIR) / "fuzz" / "regressions";
  ASSERT_TRUE(fs::is_directory(dir));
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    const Failure f = read_regression(e.path().string());
    if ((f.check == "lower_c") != with_compiler) continue;
    ++n;
    EXPECT_EQ(check_error(f.task, "generate", "", f.seed, {}), "") << e.path() << ": the task itself must be valid";
    EXPECT_EQ(check_error(f.task, f.check, f.strategy, f.seed, {}), "") << e.path();
  }
  ::testing::Test::RecordProperty("replayed", n);
}

/// Mutants that an earlier checker accepted (misses of `steptp fuzz --seed 70000` and `--seed 50000`, kept as
/// written to mutant_misses/): each is really non-equivalent (the second method says so), the checker of the
/// mutation check rejects it, and without its cheap-check draws (or, where the file says "needs": "skewed", without
/// distribution S in its further draws; "needs": "boundary", without its boundary draws; "needs": "guided", without
/// its guided draws) it did not.
TEST(FuzzMutantRegressions, CheckerRejectsEachCommittedMiss) {
  const fs::path dir = fs::path(STEPTP_SOURCE_DIR) / "fuzz" / "mutant_regressions";
  ASSERT_TRUE(fs::is_directory(dir));
  int n = 0, skewed = 0, boundary = 0, guided = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    SCOPED_TRACE(e.path().string());
    std::ifstream f(e.path());
    const auto j = nlohmann::json::parse(f);
    const ir::Task t = ir::parse_task(j.at("original").dump()), m = ir::parse_task(j.at("mutant").dump());
    ++n;
    EXPECT_FALSE(confirmed_equivalent(t, m));
    DiffOptions opt;
    EXPECT_FALSE(equiv::check_equivalence(t, m, mutation_checker(opt)).equivalent);
    // What the checker needed to catch it: its guided draws ("needs": "guided ...", twenty-fourth session), its
    // boundary draws ("needs": "boundary ...", issue #16, twenty-third session), distribution S in its further draws ("needs": "skewed ...", twenty-second session) or else the
    // cheap-check draws. The guided draws (twenty-fourth session) came last and the boundary draws before them: the
    // misses of the earlier sessions were checked without them.
    const std::string needs = j.value("needs", "");
    opt.checker.guided.draws = 0;
    if (needs.starts_with("guided")) {
      ++guided;
    } else if (needs.starts_with("boundary")) {
      opt.checker.boundary.pairs = 0;
      ++boundary;
    } else if (needs.starts_with("skewed")) {
      ++skewed;
      opt.checker.boundary.pairs = 0;
      opt.checker.skewed_further_draws = false;
    } else {
      opt.checker.boundary.pairs = 0;
      opt.checker.cheap.extra_seeds = 0;
    }
    EXPECT_TRUE(equiv::check_equivalence(t, m, mutation_checker(opt)).equivalent);
  }
  EXPECT_GE(n, 11);
  EXPECT_GE(skewed, 4);
  EXPECT_GE(boundary, 1);
  EXPECT_GE(guided, 5);
}

TEST(FuzzRegressions, CommittedCasesPass) { replay(false); }
TEST(FuzzRegressionsSlow, CommittedLoweringCasesPass) { replay(true); }

}  // namespace
}  // namespace steptp::fuzz
