// Input limits (ir/limits.hpp, LEIR.md §12 E014/E015/E107) and the work estimate: hostile nesting is refused by the
// parser with a code and offset, a program exactly at the depth limit passes through every recursive pass
// (printer, validator, interpreter, lowerings, strategies, equivalence), and statement_executions counts exactly.
#include <gtest/gtest.h>

#include <string>

#include "equiv/equivalence.hpp"
#include "interp/interpreter.hpp"
#include "ir/limits.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "lower/lower.hpp"
#include "strategies/registry.hpp"

using namespace steptp;
using namespace steptp::ir;

namespace {

std::string repeat(const std::string& s, int n) {
  std::string r;
  for (int i = 0; i < n; ++i) r += s;
  return r;
}

// C_{tx} = ((...(A_{tx})...)) with k groups. Height: loop 1 + statement 1 + k groups + Ref 1 + Var 1 = k + 4.
std::string parens(int k) {
  return "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("(", k) + "A^{f32,g}_{tx}" + repeat(")", k) + ";];";
}
// C_{tx} = A_{tx}+A_{tx}+... with n terms: a left spine of n-1 Binary nodes over Ref+Var, so height n + 3.
std::string chain(int n) {
  std::string rhs = "A^{f32,g}_{tx}";
  for (int i = 1; i < n; ++i) rhs += "+A^{f32,g}_{tx}";
  return "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + rhs + ";];";
}

std::string code_of(const std::string& text) {
  try {
    parse_program(text);
  } catch (const LeirError& e) {
    return e.code();
  }
  return "";
}

Task task_of(const std::string& leir) {
  Task t;
  t.workload = "deep";
  t.suite = "level1";
  t.known = {{"A", Role::Input, DType::F32, {4}}, {"C", Role::Output, DType::F32, {4}}};
  t.program = parse_program(leir);
  return t;
}

}  // namespace

TEST(Limits, ParenthesesAtTheLimitParseOneMoreIsE015) {
  EXPECT_EQ(code_of(parens(kMaxNestingDepth - 4)), "");
  EXPECT_EQ(syntax_height(parse_program(parens(kMaxNestingDepth - 4))), kMaxNestingDepth);
  EXPECT_EQ(code_of(parens(kMaxNestingDepth - 3)), "E015");
}

TEST(Limits, TheIssuesInputsAreRefusedWithCodeAndOffset) {
  // 2,500 nested parentheses: refused where the 256th level opens, not with a stack overflow.
  try {
    parse_program(parens(2500));
    FAIL() << "no error";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E015");
    // Levels: loop 1 + statement 1, so the parenthesis that opens level 257 is the 255th, at 0-based position
    // 28 + 254: 1-based offset 283.
    EXPECT_EQ(e.diag().offset, 283u);
    EXPECT_NE(e.diag().excerpt.find('^'), std::string::npos);
    EXPECT_NE(e.diag().headline().find("LEIR-E015 at 283: nesting deeper than 256 levels"), std::string::npos)
        << e.diag().headline();
  }
  // 5,000 levels of (e+1).
  const std::string sums = "B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("(", 5000) + "A^{f32,g}_{tx}" + repeat("+1)", 5000) + ";];";
  EXPECT_EQ(code_of(sums), "E015");
}

TEST(Limits, LeftAssociativeChainsCountOneLevelPerOperator) {
  EXPECT_EQ(code_of(chain(kMaxNestingDepth - 3)), "");
  EXPECT_EQ(syntax_height(parse_program(chain(kMaxNestingDepth - 3))), kMaxNestingDepth);
  EXPECT_EQ(code_of(chain(kMaxNestingDepth - 2)), "E015");
  EXPECT_EQ(code_of(chain(20000)), "E015");
}

TEST(Limits, OtherRecursiveShapes) {
  // Unary minus, exponents, calls, subscripts and comparison chains recurse too.
  EXPECT_EQ(code_of("B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("-", 3000) + "A^{f32,g}_{tx};];"), "E015");
  EXPECT_EQ(code_of("B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("A^{f32,g}_{tx}**", 3000) + "2;];"), "E015");
  EXPECT_EQ(code_of("B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("exp(", 3000) + "A^{f32,g}_{tx}" + repeat(")", 3000) + ";];"),
            "E015");
  EXPECT_EQ(code_of("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{" + repeat("I^{i64,g}_{", 3000) + "tx" +
                    repeat("}", 3001) + ";];"),
            "E015");
  EXPECT_EQ(code_of("B^{4}_{tx=0}[C^{f32,g}_{tx}=" + repeat("(A^{f32,g}_{tx}<", 3000) + "1" + repeat(")", 3000) + ";];"),
            "E015");
  // 300 loop headers in one nest (distinct names: not needed to reach the parser's check).
  std::string loops;
  for (int i = 0; i < 300; ++i) loops += "L^{1}_{a=0}";
  EXPECT_EQ(code_of(loops + "[C^{f32,g}=1;];"), "E015");
  // 3,000 nests in tail form and 3,000 nested bodies.
  EXPECT_EQ(code_of(repeat("L^{1}_{a=0}[C^{f32,g}=1;]", 3000) + ";"), "E015");
  EXPECT_EQ(code_of(repeat("L^{1}_{a=0}[", 3000) + "C^{f32,g}=1;" + repeat("];", 3000)), "E015");
}

TEST(Limits, TextOverOneMebibyteIsE014BeforeLexing) {
  std::string big = "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}+" + std::string(kMaxProgramBytes, '0') + ";];";
  try {
    parse_program(big);
    FAIL() << "no error";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E014");
    EXPECT_NE(e.diag().message.find(std::to_string(big.size()) + " bytes exceeds the limit of 1048576"),
              std::string::npos)
        << e.diag().message;
  }
  // Exactly at the limit: lexed and parsed (a long literal of zeros is 0).
  std::string at = "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}+;];";
  at.insert(at.size() - 3, std::string(kMaxProgramBytes - at.size(), '0'));
  ASSERT_EQ(at.size(), kMaxProgramBytes);
  EXPECT_EQ(code_of(at), "");
}

TEST(Limits, TaskTextOverFourMebibytesIsE107) {
  const std::string t = R"({"workload": ")" + std::string(kMaxTaskBytes, 'w') + R"(", "suite": "s", "known": [], "leir": ""})";
  try {
    parse_task(t);
    FAIL() << "no error";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E107");
    EXPECT_TRUE(is_input_limit_error(e.code()));
  }
  EXPECT_FALSE(is_input_limit_error("E101"));
}

TEST(Limits, InMemoryTreesDeeperThanTheLimitFailValidationWithE015) {
  Task t = task_of(parens(10));
  Expr e = make_ref("A", DType::F32, Scope::Global, {make_var("tx")});
  for (int i = 0; i < 1000; ++i) e = make_group(std::move(e));
  t.program.nests[0].body[0].stmt().rhs = std::move(e);
  EXPECT_EQ(syntax_height(t.program), 1000 + 4);
  const Analysis a = analyze(t);
  ASSERT_NE(a.first_error(), nullptr);
  EXPECT_EQ(a.first_error()->code, "E015");
  EXPECT_THROW(interp::Interpreter{t}, LeirError);
}

// A reduction C_{tx} += ((...(A_{tx,a})...)) with k groups: loops 2 + statement 1 + Binary 1 + k + Ref 1 + Var 1.
std::string deep_reduction(int k) {
  return "B^{4}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+" + repeat("(", k) + "A^{f32,g}_{tx,a}" + repeat(")", k) +
         ";];";
}
// C_{tx} = C_{tx}+A_{tx,a}+A_{tx,a}+... with n terms A: a spine of n Binary nodes: loops 2 + statement 1 + n + 2.
std::string chain_reduction(int n) {
  return "B^{4}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}" + repeat("+A^{f32,g}_{tx,a}", n) + ";];";
}

// Every recursive pass survives a program exactly at the limit (under ASan in `make asan` too), strategies included.
TEST(Limits, ProgramAtTheDepthLimitPassesEveryRecursivePass) {
  for (const std::string& leir : {deep_reduction(kMaxNestingDepth - 6), chain_reduction(kMaxNestingDepth - 5)}) {
    Task t = task_of(leir);
    t.known[0].shape = {4, 4};
    ASSERT_EQ(syntax_height(t.program), kMaxNestingDepth);
    EXPECT_EQ(print_program(t.program), leir);
    EXPECT_EQ(parse_program(print_program(t.program)), t.program);
    EXPECT_NO_THROW(validate_or_throw(t));
    interp::Interpreter in(t);
    const auto out = in.run(equiv::make_inputs(in, 0, equiv::Distribution::Normal));
    EXPECT_EQ(out.at("C").data.size(), 4u);
    EXPECT_FALSE(lower::lower_c(t).empty());
    EXPECT_FALSE(lower::lower_tir(t).empty());
    EXPECT_FALSE(lower::lower_cuda(t).empty());
    EXPECT_FALSE(task_to_json(t).empty());
    std::size_t applied = 0;
    for (const auto& s : strategy::registry()) {
      for (const auto& c : strategy::enumerate_candidates(s, t)) {
        try {
          const auto r = s.apply(t, c);
          const auto eq = equiv::check_equivalence(t, r.task, {});
          // A rewrite may deepen the tree past the limit: then the candidate is refused (E503 with E015 inside).
          EXPECT_TRUE(eq.equivalent || (eq.code == "E503" && eq.message.find("E015") != std::string::npos))
              << c.id() << ": " << eq.message;
          ++applied;
        } catch (const std::exception&) {
        }
        if (applied > 40) break;
      }
    }
    EXPECT_GE(applied, 3u);
  }
}

TEST(Limits, StatementExecutionsAreExactAndSaturate) {
  // 4*8 executions of X, 4*8*3 of Y: 128.
  const Program p = parse_program(
      "B^{4}_{tx=0}L^{8}_{a=0}[X^{f32,g}_{tx,a}=A^{f32,g}_{tx,a};L^{3}_{c=0}[Y^{f32,g}_{tx,a,c}=X^{f32,g}_{tx,a};];];"
      "L^{5}_{d=0}[Z^{f32,g}_{d}=1;];");
  EXPECT_EQ(statement_executions(p), 4u * 8 + 4u * 8 * 3 + 5);
  // The issue's task: 4096*4096*10^6 = 1.68e13.
  const Program big = parse_program(
      "B^{4096}_{tx=0}L^{4096}_{a=0}L^{1000000}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+A^{f32,g}_{tx,a};];");
  EXPECT_EQ(statement_executions(big), 4096ull * 4096ull * 1000000ull);
  // 2147483647^3 overflows 2^64: saturated.
  const Program huge = parse_program(
      "L^{2147483647}_{a=0}L^{2147483647}_{c=0}L^{2147483647}_{d=0}[C^{f32,g}=1;];");
  EXPECT_EQ(statement_executions(huge), ~std::uint64_t{0});
}

TEST(Limits, StepBudgetIsCheckedBeforeRunning) {
  Task t = task_of(parens(1));
  EXPECT_NO_THROW(interp::check_step_budget(t, 4));
  try {
    interp::check_step_budget(t, 3, "--max-steps");
    FAIL() << "no error";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E309");
    EXPECT_EQ(e.diag().message,
              "work estimate 4 statement executions per run exceeds the budget of 3 (raise it with --max-steps N, 0 "
              "for no limit)");
  }
  EXPECT_NO_THROW(interp::check_step_budget(t, 0));  // 0: no limit
}

TEST(Limits, MemoryEstimateCountsEveryBufferAndIsCheckedBeforeRunning) {
  Task t;
  t.workload = "w";
  t.suite = "s";
  t.known = {{"A", Role::Input, DType::F32, {100, 10}}, {"C", Role::Output, DType::F32, {100}}};
  t.program = parse_program("B^{100}_{tx=0}[M^{f32,g}_{tx}=A^{f32,g}_{tx,0};C^{f32,g}_{tx}=M^{f32,g}_{tx};];");
  // A: 1000 elements x 17 bytes; M and C: 100 x 9 each.
  EXPECT_EQ(interp::run_memory_bytes(t), 1000u * 17 + 100u * 9 * 2);
  EXPECT_NO_THROW(interp::check_memory_budget(t, 18800));
  try {
    interp::check_memory_budget(t, 18799);
    FAIL() << "no error";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E310");
  }
}

TEST(Limits, ProgressIsReportedAtTheRequestedInterval) {
  Task t;
  t.workload = "w";
  t.suite = "s";
  t.known = {{"A", Role::Input, DType::F32, {100}}, {"C", Role::Output, DType::F32, {100}}};
  t.program = parse_program("B^{100}_{tx=0}L^{10}_{a=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];");
  interp::Interpreter in(t);
  std::vector<std::uint64_t> calls;
  interp::RunOptions ro;
  ro.progress = [&](std::uint64_t s) { calls.push_back(s); };
  ro.progress_every = 300;
  in.run(equiv::make_inputs(in, 0, equiv::Distribution::Normal), ro);
  EXPECT_EQ(calls, (std::vector<std::uint64_t>{301, 601, 901}));
  EXPECT_EQ(in.last_steps(), 1000u);
  // With a hard limit too: progress until the limit, then E308.
  calls.clear();
  ro.max_steps = 700;
  try {
    in.run(equiv::make_inputs(in, 0, equiv::Distribution::Normal), ro);
    FAIL() << "no E308";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E308");
  }
  EXPECT_EQ(calls, (std::vector<std::uint64_t>{301, 601}));
}
