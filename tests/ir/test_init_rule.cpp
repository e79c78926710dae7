// LEIR.md §8.4 accumulator initialisation: every row of the table, rules 1, 2 and 4, reduction variables, W003.
#include <gtest/gtest.h>

#include "ir/init_rule.hpp"
#include "ir/parser.hpp"
#include "validate_test_util.hpp"

using namespace steptp::ir;
using testutil::codes;
using testutil::make_task;

namespace {
// The initialiser the validator gives to statement `k` (text order) of the task.
InitKind init_of(const std::string& known, const std::string& leir, std::size_t k = 0,
                 std::vector<std::string>* diag_codes = nullptr) {
  Task t = make_task(known, leir);
  Analysis a = analyze(t);
  if (diag_codes) *diag_codes = codes(a);
  std::vector<const Stmt*> stmts;
  for_each_stmt(t.program, [&](const Stmt& s, const std::vector<const Loop*>&, std::size_t) { stmts.push_back(&s); });
  return stmts.at(k)->init;
}
const std::string kK = "A:input:f32:4x8;C:output:f32:4";
}  // namespace

TEST(InitRule, Row1LeadingSelfReferenceFollowedByPlusOrMinusStartsAtZero) {
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];"), InitKind::Zero);
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}-A^{f32,g}_{tx,a};];"), InitKind::Zero);
  // Leading atom through a longer left spine: ((C+x)*y)-z — the deepest binary node on the path is `+`.
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a}*2-1;];"),
            InitKind::Zero);
  // N_{tx}=N_{tx}+exp(A_{tx,a}-M_{tx}) (the §8.4 example).
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[M^{f32,g}_{tx}=max(M^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
                        "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-M^{f32,g}_{tx});];",
                    1),
            InitKind::Zero);
}

TEST(InitRule, Row2LeadingSelfReferenceFollowedByTimesStartsAtOne) {
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}*A^{f32,g}_{tx,a};];"), InitKind::One);
  // `**` is not `*`.
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}**A^{f32,g}_{tx,a};];"), InitKind::None);
}

TEST(InitRule, Row3TrailingSelfReferencePrecededByDivisionStartsAtOne) {
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,a}/C^{f32,g}_{tx};];"), InitKind::One);
  EXPECT_EQ(init_of("A:input:i64:4x8;C:output:i64:4",
                    "B^{4}_{tx=0}L^{8}_{a=0}[C^{i64,g}_{tx}=A^{i64,g}_{tx,a}//C^{i64,g}_{tx};];"),
            InitKind::One);
  EXPECT_EQ(init_of("A:input:i64:4x8;C:output:i64:4",
                    "B^{4}_{tx=0}L^{8}_{a=0}[C^{i64,g}_{tx}=A^{i64,g}_{tx,a}%C^{i64,g}_{tx};];"),
            InitKind::One);
  // Trailing self-reference after `+`: no row matches.
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,a}+C^{f32,g}_{tx};];"), InitKind::None);
}

TEST(InitRule, Rows4And5MaxAndMinStartAtInfinities) {
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=max(C^{f32,g}_{tx},A^{f32,g}_{tx,a});];"),
            InitKind::NegInf);
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=min(C^{f32,g}_{tx},A^{f32,g}_{tx,a});];"),
            InitKind::PosInf);
  // The first argument's leading atom counts: max(C+1, A) still starts at -inf.
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=max(C^{f32,g}_{tx}+1,A^{f32,g}_{tx,a});];"),
            InitKind::NegInf);
  // Self-reference as the second argument: no row.
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=max(A^{f32,g}_{tx,a},C^{f32,g}_{tx});];"),
            InitKind::None);
}

TEST(InitRule, GroupsAndUnaryMinusStopTheLeadingAtom) {
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=(C^{f32,g}_{tx}+A^{f32,g}_{tx,a})*2;];"),
            InitKind::None);
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=-C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];"), InitKind::None);
}

TEST(InitRule, Rule1PlainAssignment) {
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,0}+1;];"), InitKind::None);
}

TEST(InitRule, Rule2EarlierWriteMeansReadModifyWrite) {
  // Bias add after a matmul: the second statement updates C in place.
  const std::string leir =
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];"
      "B^{4}_{tx=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+1;];";
  EXPECT_EQ(init_of(kK, leir, 0), InitKind::Zero);
  EXPECT_EQ(init_of(kK, leir, 1), InitKind::None);
  // C=if_then_else(A>=M,a,C) coming after C=0 (argmax's second nest).
  const std::string am =
      "B^{4}_{tx=0}[C^{i64,g}_{tx}=0;];"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{i64,g}_{tx}=if_then_else(A^{f32,g}_{tx,a}>=1.0,a,C^{i64,g}_{tx});];";
  EXPECT_EQ(init_of("A:input:f32:4x8;C:output:i64:4", am, 1), InitKind::None);
  // Rule 2 for an input target (which is also E201): no initialiser.
  std::vector<std::string> cs;
  EXPECT_EQ(init_of(kK, "B^{4}_{tx=0}L^{8}_{a=0}[A^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}+1;C^{f32,g}_{tx}=A^{f32,g}_{tx,a};];",
                    0, &cs),
            InitKind::None);
  EXPECT_EQ(cs, std::vector<std::string>{"E201"});
}

TEST(InitRule, Rule4PrefixRecurrenceGetsNone) {
  // X_{a}=X_{a-1}+A_{a}: r's subscript differs from sL, so no initialiser (the reference's init is wrong).
  std::vector<std::string> cs;
  EXPECT_EQ(init_of("A:input:f32:8;C:output:f32:8",
                    "L^{8}_{a=0}[C^{f32,g}_{a}=if_then_else(a-1<0,0,C^{f32,g}_{a-1})+A^{f32,g}_{a};];", 0, &cs),
            InitKind::None);
  EXPECT_TRUE(cs.empty());
  EXPECT_EQ(init_of("A:input:f32:8;C:output:f32:8",
                    "L^{8}_{a=0}[M^{f32,g}_{a}=A^{f32,g}_{a};C^{f32,g}_{a}=C^{f32,g}_{a}+M^{f32,g}_{a};];", 1),
            InitKind::Zero);
}

TEST(InitRule, ReductionVariablesInHeaderOrder) {
  Task t = make_task("A:input:f32:2x4x8;C:output:f32:8",
                     "L^{4}_{a=0}L^{8}_{c=0}L^{2}_{d=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{d,a,c};];");
  Analysis a = analyze(t);
  EXPECT_TRUE(a.diags.empty());
  const Stmt& s = t.program.nests[0].body[0].stmt();
  EXPECT_EQ(s.reduction_vars, (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(s.init, InitKind::Zero);
}

TEST(InitRule, W003NoReductionVariable) {
  std::vector<std::string> cs;
  EXPECT_EQ(init_of("A:input:f32:8;C:output:f32:8", "L^{8}_{a=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+A^{f32,g}_{a};];", 0, &cs),
            InitKind::Zero);
  EXPECT_EQ(cs, std::vector<std::string>{"W003"});
}

TEST(InitRule, W003UnusedEnclosingLoop) {
  std::vector<std::string> cs;
  const std::string leir = "L^{4}_{a=0}L^{8}_{c=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{c};];";
  Task t = make_task("A:input:f32:8;C:output:f32:", leir);
  Analysis a = analyze(t);
  ASSERT_EQ(codes(a), std::vector<std::string>{"W003"});
  EXPECT_EQ(a.diags[0].offset, 24u);  // the statement: two 11-character headers, "[", then C
  EXPECT_NE(a.diags[0].message.find("'a'"), std::string::npos);
  // An unused loop of extent 1 fires the initialiser only once: no warning.
  Task t1 = make_task("A:input:f32:8;C:output:f32:", "L^{1}_{a=0}L^{8}_{c=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{c};];");
  EXPECT_TRUE(analyze(t1).diags.empty());
}

TEST(InitRule, HelpersOnParsedExpressions) {
  Expr e = parse_expr("(X^{f32,g}+1)*2-A^{f32,g}/X^{f32,g}");
  EdgeAtom lead = leading_atom(e);
  EXPECT_EQ(lead.atom->kind, ExprKind::Group);
  EXPECT_EQ(lead.via, EdgeAtom::Via::BinOp);
  EXPECT_EQ(lead.op, BinOp::Mul);
  EdgeAtom trail = trailing_atom(e);
  EXPECT_TRUE(trail.atom->is_ref("X"));
  EXPECT_EQ(trail.op, BinOp::Div);
  const Expr* r = first_occurrence(e, "X");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r, &e.args[0].args[0].args[0].args[0]);
  EXPECT_TRUE(mentions_var(parse_expr("A^{f32,g}_{I^{i64,g}_{c+1}}"), "c"));
  EXPECT_FALSE(mentions_var(parse_expr("A^{f32,g}_{I^{i64,g}_{c+1}}"), "a"));
}

TEST(InitRule, IsReducingLoop) {
  Task t = make_task("A:input:f32:4x8;C:output:f32:4",
                     "P^{4}_{a=0}P^{8}_{c=0}[C^{f32,g}_{a}=C^{f32,g}_{a}+A^{f32,g}_{a,c};];");
  const Nest& n = t.program.nests[0];
  EXPECT_FALSE(is_reducing_loop(n, "a"));
  EXPECT_TRUE(is_reducing_loop(n, "c"));
}
