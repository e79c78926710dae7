// One test per validator error code, each the LEIR.md §12 one-line example made into a full task; asserts the
// code, the 1-based offset (the offending token in the canonical text) and the complete diagnostic list.
#include <gtest/gtest.h>

#include "ir/ast.hpp"
#include "ir/printer.hpp"
#include "validate_test_util.hpp"

using namespace steptp::ir;
using testutil::codes;
using testutil::make_task;
using testutil::offset_of;

namespace {
// Analyzes the task and checks that the diagnostics are exactly `want` and that the first one sits at `marker`.
void expect_diag(const std::string& known, const std::string& leir, std::vector<std::string> want,
                 const std::string& marker, int nth = 0) {
  Task t = make_task(known, leir);
  Analysis a = analyze(t);
  ASSERT_EQ(codes(a), want) << leir << "\n" << (a.diags.empty() ? "" : a.diags[0].full());
  EXPECT_EQ(a.diags[0].offset, offset_of(leir, marker, nth)) << a.diags[0].full();
  EXPECT_FALSE(a.diags[0].excerpt.empty());
  EXPECT_EQ(a.ok(), a.diags[0].is_warning());
}
}  // namespace

TEST(ValidateErrors, E106UnsupportedDtype) {
  expect_diag("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{c64,g}_{tx};];", {"E106"}, "A^{c64");
}

TEST(ValidateErrors, E110ReservedBufferName) {
  expect_diag("C:output:f32:", "B^{1}_{tx=0}[Tmp^{f32,g}=0;C^{f32,g}=Tmp^{f32,g};];", {"E110"}, "Tmp");
}

TEST(ValidateErrors, E111ThreadNameOnAnLLoop) {
  expect_diag("C:output:f32:4", "L^{4}_{tx=0}[C^{f32,g}_{tx}=0;];", {"E111"}, "L^{4}");
}

TEST(ValidateErrors, E111BLoopWithAPlainName) {
  expect_diag("C:output:f32:4", "B^{4}_{a=0}[C^{f32,g}_{a}=0;];", {"E111"}, "B^{4}");
}

TEST(ValidateErrors, E111KeywordLoopVariable) {
  expect_diag("C:output:f32:4", "L^{4}_{in=0}[C^{f32,g}_{in}=0;];", {"E111"}, "L^{4}");
}

TEST(ValidateErrors, E112Rebound) {
  expect_diag("C:output:f32:4", "L^{4}_{a=0}L^{4}_{a=0}[C^{f32,g}_{a}=0;];", {"E112"}, "L^{4}", 1);
}

TEST(ValidateErrors, E113Unbound) {
  expect_diag("A:input:f32:4x4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,a};];", {"E113"}, "a}");
}

TEST(ValidateErrors, E114AxisBoundTwice) {
  expect_diag("C:output:f32:4x8", "B^{4}_{tx=0}B^{8}_{txa=0}[C^{f32,g}_{tx,txa}=0;];", {"E114"}, "B^{8}");
}

TEST(ValidateErrors, E201WriteToInput) {
  expect_diag("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[A^{f32,g}_{tx}=0;C^{f32,g}_{tx}=A^{f32,g}_{tx};];",
              {"E201"}, "A^");
}

TEST(ValidateErrors, E202RankMismatch) {
  expect_diag("A:input:f32:4;C:output:f32:4",
              "B^{4}_{tx=0}[M^{f32,g}_{tx}=A^{f32,g}_{tx};C^{f32,g}_{tx}=M^{f32,g}_{tx,0};];", {"E202"}, "M^", 1);
}

TEST(ValidateErrors, E202KnownRankMismatch) {
  expect_diag("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,0};];", {"E202"}, "A^");
}

TEST(ValidateErrors, E203DtypeDisagreement) {
  expect_diag("C:output:f64:", "B^{1}_{tx=0}[O^{f64,g}=16;];B^{1}_{tx=0}[C^{f64,g}=sqrt(O^{i32,g});];", {"E203"},
              "O^{i32");
}

TEST(ValidateErrors, E204ScopeDisagreement) {
  expect_diag("A:input:f32:4;C:output:f32:4",
              "B^{4}_{tx=0}[M^{f32,g}_{tx}=A^{f32,g}_{tx};C^{f32,g}_{tx}=M^{f32,l}_{tx};];", {"E204"}, "M^{f32,l}");
}

TEST(ValidateErrors, E205ReadBeforeTheWritingNest) {
  expect_diag("A:input:f32:4;C:output:f32:4",
              "B^{4}_{tx=0}[C^{f32,g}_{tx}=M^{f32,g}_{tx};];B^{4}_{tx=0}[M^{f32,g}_{tx}=A^{f32,g}_{tx};];", {"E205"},
              "M^");
}

TEST(ValidateErrors, E205NeverWritten) {
  expect_diag("C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=M^{f32,g}_{tx};];", {"E205"}, "M^");
}

TEST(ValidateErrors, E205SameNestIsAllowed) {
  // Written later in the same top-level nest: statically fine (the read is then E301 at run time).
  Task t = make_task("A:input:f32:4;C:output:f32:4",
                     "B^{4}_{tx=0}[C^{f32,g}_{tx}=M^{f32,g}_{tx};M^{f32,g}_{tx}=A^{f32,g}_{tx};];");
  EXPECT_TRUE(analyze(t).diags.empty());
}

TEST(ValidateErrors, E206GatherInWriteSubscript) {
  expect_diag("I:input:i64:4;C:output:f32:4",
              "B^{4}_{tx=0}[M^{f32,g}_{I^{i64,g}_{tx}}=0;C^{f32,g}_{tx}=M^{f32,g}_{tx};];", {"E206"}, "I^");
}

TEST(ValidateErrors, E207NegativeWriteIndex) {
  expect_diag("C:output:f32:", "L^{8}_{a=0}[M^{f32,g}_{a-1}=0;];B^{1}_{tx=0}[C^{f32,g}=M^{f32,g}_{0};];", {"E207"},
              "M^");
}

TEST(ValidateErrors, E208UnguardedReadOutOfBounds) {
  expect_diag("A:input:f32:32;C:output:f32:32",
              "L^{32}_{a=0}[M^{f32,g}_{a}=A^{f32,g}_{a};];L^{32}_{a=0}[C^{f32,g}_{a}=M^{f32,g}_{a+1};];", {"E208"},
              "M^", 1);
}

TEST(ValidateErrors, E208NotForGuardedReads) {
  Task t = make_task("A:input:f32:32;C:output:f32:32",
                     "L^{32}_{a=0}[M^{f32,g}_{a}=A^{f32,g}_{a};];"
                     "L^{32}_{a=0}[C^{f32,g}_{a}=if_then_else(a<31,M^{f32,g}_{a+1},0);];");
  EXPECT_TRUE(analyze(t).diags.empty());
}

TEST(ValidateErrors, E209WriteOutsideKnownShape) {
  expect_diag("C:output:f32:16", "B^{17}_{tx=0}[C^{f32,g}_{tx}=0;];", {"E209"}, "C^");
}

TEST(ValidateErrors, E210WrittenExtentDiffers) {
  expect_diag("C:output:f32:16x32", "B^{16}_{tx=0}[C^{f32,g}_{tx,0}=0;];", {"E210"}, "C^");
}

TEST(ValidateErrors, E210OutputNeverWritten) {
  Task t = make_task("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[M^{f32,g}_{tx}=A^{f32,g}_{tx};];");
  Analysis a = analyze(t);
  ASSERT_EQ(codes(a), (std::vector<std::string>{"W005", "E210"}));
  EXPECT_EQ(a.diags[1].path, "known[1]");
  EXPECT_EQ(a.diags[1].offset, 0u);
  EXPECT_EQ(a.diags[1].headline(), "LEIR-E210 at known[1]: output C is never written");
}

TEST(ValidateErrors, E211DivisionInSubscript) {
  expect_diag("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx/2};];", {"E211"}, "tx/2");
}

TEST(ValidateErrors, E211FloatInSubscript) {
  expect_diag("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx*0.5};];", {"E211"}, "0.5");
}

TEST(ValidateErrors, E212FloatGather) {
  expect_diag("A:input:f32:4;C:output:f32:4",
              "B^{4}_{tx=0}[M^{f32,g}_{tx}=A^{f32,g}_{tx};C^{f32,g}_{tx}=A^{f32,g}_{M^{f32,g}_{tx}};];", {"E212"},
              "M^", 1);
}

TEST(ValidateErrors, E213IntegerDivision) {
  expect_diag("C:output:i64:4", "B^{4}_{tx=0}[C^{i64,g}_{tx}=tx/2;];", {"E213"}, "tx/2");
}

TEST(ValidateErrors, E213NotForConstantsOrFloats) {
  // 1/2 is a float constant (type F); tx/2.0 promotes to f64.
  Task t = make_task("C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=1/2+tx/2.0;];");
  EXPECT_TRUE(analyze(t).diags.empty());
}

TEST(ValidateErrors, E214ScopedIntermediateInTwoNests) {
  expect_diag("A:input:f32:4;C:output:f32:4",
              "B^{4}_{tx=0}[O^{f32,l}_{tx}=A^{f32,g}_{tx};];B^{4}_{tx=0}[C^{f32,g}_{tx}=O^{f32,l}_{tx};];", {"E214"},
              "O^", 1);
}

TEST(ValidateErrors, E215HugeNonAffineBox) {
  expect_diag("A:input:f32:7;C:output:f32:",
              "L^{1024}_{a=0}L^{1024}_{c=0}L^{1024}_{d=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{(a*c*d)%7};];", {"E215"},
              "(a*c*d)");
}

TEST(ValidateErrors, E216ConstantDivisionByZero) {
  expect_diag("C:output:i64:", "B^{1}_{tx=0}[C^{i64,g}=1//0;];", {"E216"}, "1//0");
}

TEST(ValidateErrors, E216Overflow) {
  expect_diag("C:output:i64:", "B^{1}_{tx=0}[C^{i64,g}=9223372036854775807+1;];", {"E216"}, "9223");
}

// Issue #48 item 5: `//` and `%` by a range that contains 0. Before E217, the first passed `check` and made
// `measure` segfault; the second (index -4 at a=2) was timed with ok: true.
TEST(ValidateErrors, E217IndexDivisionByZeroScaled) {
  expect_diag("A:input:f32:8;D:output:f32:8", "L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{(7//(a-3))*100000000};];",
              {"E217"}, "(7//(a-3))");
  Task t = make_task("A:input:f32:8;D:output:f32:8",
                     "L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{(7//(a-3))*100000000};];");
  EXPECT_NE(analyze(t).diags[0].message.find("at a=3"), std::string::npos) << analyze(t).diags[0].full();
}

TEST(ValidateErrors, E217IndexDivisionByZeroNegativeIndex) {
  expect_diag("A:input:f32:8;D:output:f32:8", "L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{7//(a-3)+3};];", {"E217"},
              "7//(a-3)");
}

TEST(ValidateErrors, E217ModuloByZeroInAWrite) {
  expect_diag("A:input:f32:8;D:output:f32:4", "L^{8}_{a=0}L^{2}_{c=0}[D^{f32,g}_{a%(c*2)}=A^{f32,g}_{a};];",
              {"E217"}, "a%(c*2)");
}

TEST(ValidateErrors, E208DivisorRangeWithoutZeroIsExact) {
  // a+1 in [1, 8]: 7//(a+1) takes [0, 7] (fits 8), 15//(a+1) takes [1, 15] (E208 against extent 8).
  Task ok = make_task("A:input:f32:8;D:output:f32:8", "L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{7//(a+1)};];");
  EXPECT_TRUE(analyze(ok).diags.empty());
  expect_diag("A:input:f32:8;D:output:f32:8", "L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{15//(a+1)};];", {"E208"},
              "A^{f32,g}_{15");
}

TEST(ValidateErrors, E217NotForAGuardedRead) {
  // The guard excludes a=3; guarded reads are checked at run time (E302/E303), as LEIR.md §7.2 says.
  Task t = make_task("A:input:f32:8;D:output:f32:8",
                     "L^{8}_{a=0}[D^{f32,g}_{a}=if_then_else(a>3,A^{f32,g}_{7//(a-3)},0);];");
  EXPECT_TRUE(analyze(t).diags.empty()) << analyze(t).diags[0].full();
}

TEST(ValidateErrors, AllErrorsAreReportedInTextOrder) {
  // Three independent defects: E211 (nest 1), E213 (nest 2), E216 (nest 3).
  const std::string leir =
      "B^{4}_{tx=0}[C^{i64,g}_{tx}=A^{i64,g}_{tx*0.5};];B^{4}_{tx=0}[D^{i64,g}_{tx}=tx/2;];"
      "B^{1}_{tx=0}[E^{i64,g}=1%0;];";
  Task t = make_task("A:input:i64:4;C:output:i64:4;D:output:i64:4;E:output:i64:", leir);
  Analysis a = analyze(t);
  ASSERT_EQ(codes(a), (std::vector<std::string>{"E211", "E213", "E216"}));
  EXPECT_EQ(a.diags[0].offset, offset_of(leir, "0.5"));
  EXPECT_EQ(a.diags[1].offset, offset_of(leir, "tx/2"));
  EXPECT_EQ(a.diags[2].offset, offset_of(leir, "1%0"));
  EXPECT_EQ(a.first_error(), &a.diags[0]);
}

TEST(ValidateErrors, ExcerptAndHeadlineFormat) {
  Task t = make_task("C:output:i64:4", "B^{4}_{tx=0}[C^{i64,g}_{tx}=tx/2;];");
  Analysis a = analyze(t);
  ASSERT_EQ(a.diags.size(), 1u);
  EXPECT_EQ(a.diags[0].full(),
            "LEIR-E213 at 29: '/' between integer or bool operands (type i64); use '//'\n"
            "  B^{4}_{tx=0}[C^{i64,g}_{tx}=tx/2;];\n"
            "                              ^");
}

TEST(ValidateErrors, ValidateOrThrowThrowsTheFirstError) {
  Task t = make_task("C:output:i64:", "B^{1}_{tx=0}[C^{i64,g}=1//0;];");
  try {
    validate_or_throw(t);
    FAIL() << "no throw";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.code(), "E216");
    EXPECT_EQ(e.diag().offset, 24u);  // "B^{1}_{tx=0}[" is 13 characters, "C^{i64,g}=" 10
  }
  Task ok = make_task("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f16,g}_{tx};];");
  Analysis a = validate_or_throw(ok);  // warnings do not throw
  EXPECT_EQ(codes(a), std::vector<std::string>{"W001"});
}

TEST(ValidateErrors, InMemoryProgramOffsetsReferToCanonicalText) {
  // C_{tx}=A_{tx/2} built with the AST builders: every offset is 0 until the validator maps it.
  Task t = make_task("A:input:f32:4;C:output:f32:4", "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];");
  Stmt& s = t.program.nests[0].body[0].stmt();
  s.rhs = make_ref("A", DType::F32, Scope::Global, {make_binary(BinOp::Div, make_var("tx"), make_int(2))});
  s.rhs.args[0].offset = 0;
  Analysis a = analyze(t);
  ASSERT_EQ(codes(a), std::vector<std::string>{"E211"});
  const std::string canon = print_program(t.program);
  EXPECT_EQ(canon, "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx/2};];");
  EXPECT_EQ(a.diags[0].offset, offset_of(canon, "tx/2"));
}

TEST(ValidateErrors, WhitespaceSourceOffsetsReferToCanonicalText) {
  // Documented choice: offsets and excerpts always refer to the canonical (whitespace-free) text.
  Task t = make_task("C:output:i64:4", "B^{4}_{tx=0} [ C^{i64,g}_{tx} = tx / 2 ; ] ;");
  Analysis a = analyze(t);
  ASSERT_EQ(codes(a), std::vector<std::string>{"E213"});
  EXPECT_EQ(a.diags[0].offset, 29u);
}

TEST(ValidateErrors, E207AtTheI64MaximumDoesNotOverflow) {
  // Fuzz regression (UBSan: hi + 1 overflowed when a write index saturates at 2^63-1).
  expect_diag("C:output:f32:", "L^{4}_{a=0}[M^{f32,g}_{a*9223372036854775807}=0;];B^{1}_{tx=0}[C^{f32,g}=M^{f32,g}_{0};];",
              {"E207"}, "M^");
  Task t = make_task("C:output:f32:4", "L^{4}_{a=0}[C^{f32,g}_{a*9223372036854775807}=0;];");
  EXPECT_EQ(codes(analyze(t)), std::vector<std::string>{"E209"});
}
