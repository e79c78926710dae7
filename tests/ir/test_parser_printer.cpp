// Parser + canonical printer: corpus round trip, whitespace tolerance, error codes, synthesized printing.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "test_paths.hpp"

using namespace steptp::ir;

namespace {
using steptp_test::kCorpus;

std::vector<std::string> corpus_lines() {
  std::ifstream in(kCorpus);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  return lines;
}

// Insert a space between every two tokens by re-lexing crudely: put a space after every character that
// ends a token boundary we can detect safely (between any two characters that are not both word/number chars).
std::string spaced(const std::string& s) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (i + 1 < s.size()) {
      char a = s[i], b = s[i + 1];
      bool two_char = (a == '^' && b == '{') || (a == '_' && b == '{') || (a == '*' && b == '*') ||
                      (a == '/' && b == '/') || ((a == '<' || a == '>' || a == '=' || a == '!') && b == '=');
      // keep exponent signs (1e-05) together
      bool exp_sign = (a == 'e' || a == 'E') && (b == '-' || b == '+') && i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]));
      bool after_exp = (a == '-' || a == '+') && i > 1 && (s[i - 1] == 'e' || s[i - 1] == 'E') && std::isdigit(static_cast<unsigned char>(s[i - 2])) && std::isdigit(static_cast<unsigned char>(b));
      if (!(word(a) && word(b)) && !two_char && !exp_sign && !after_exp) out += (i % 3 == 0 ? "\n " : " \t");
    }
  }
  return out;
}

std::string err_code(const std::string& text) {
  try {
    parse_program(text);
  } catch (const LeirError& e) {
    return e.code();
  }
  return "ok";
}
std::uint32_t err_offset(const std::string& text) {
  try {
    parse_program(text);
  } catch (const LeirError& e) {
    return e.diag().offset;
  }
  return 0;
}
}  // namespace

TEST(ParserCorpus, AllTasksRoundTripByteForByte) {
  auto lines = corpus_lines();
  ASSERT_EQ(lines.size(), 89u);
  for (const auto& l : lines) {
    Task t = parse_task(l);
    EXPECT_EQ(task_to_json(t), l) << t.workload;
  }
}

TEST(ParserCorpus, WhitespaceBetweenTokensIsIgnored) {
  for (const auto& l : corpus_lines()) {
    Task t = parse_task(l);
    std::string text = print_program(t.program);
    std::string ws = spaced(text);
    ASSERT_NE(ws, text);
    Program p = parse_program(ws);
    EXPECT_EQ(print_program(p), text) << t.workload;
    EXPECT_TRUE(p == t.program) << t.workload;
  }
}

TEST(Parser, TailFormRoundTrips) {
  std::string t = "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};]L^{2}_{a=0}[D^{f32,g}_{tx,a}=C^{f32,g}_{tx};];";
  Program p = parse_program(t);
  ASSERT_EQ(p.nests.size(), 1u);
  ASSERT_EQ(p.nests[0].body.size(), 2u);
  EXPECT_TRUE(p.nests[0].body[1].is_nest());
  EXPECT_TRUE(p.nests[0].body[1].nest().tail);
  EXPECT_EQ(print_program(p), t);
  // the equivalent explicit nesting prints differently but has the same structure otherwise
  std::string nested = "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};L^{2}_{a=0}[D^{f32,g}_{tx,a}=C^{f32,g}_{tx};];];";
  Program q = parse_program(nested);
  EXPECT_EQ(print_program(q), nested);
  q.nests[0].body[1].nest().tail = true;
  EXPECT_EQ(print_program(q), t);
}

TEST(Parser, ALoneTailNestPrintsInBracketForm) {
  // Found by the differential fuzzer (fuzz/regressions/candidate_operator_fission_lone_tail.json): operator_fission
  // left a tail nest as the only item of a body, which printed as `L^{1}_{a=0}[]L^{2}...;` (E011 empty body).
  Program p = parse_program("L^{1}_{a=0}[C^{f32,g}_{a}=1.0;]L^{2}_{c=0}[D^{f32,g}_{a,c}=C^{f32,g}_{a};];");
  p.nests[0].body.erase(p.nests[0].body.begin());
  ASSERT_TRUE(p.nests[0].body[0].nest().tail);
  const std::string text = print_program(p);
  EXPECT_EQ(text, "L^{1}_{a=0}[L^{2}_{c=0}[D^{f32,g}_{a,c}=C^{f32,g}_{a};];];");
  EXPECT_EQ(print_program(parse_program(text)), text);
}

TEST(Parser, LiteralsKeepSpelling) {
  for (std::string s : {"1e-05", "1.0e-5", "2", "2.0", "0.5", "1E+3"}) {
    std::string t = "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*" + s + ";];";
    EXPECT_EQ(print_program(parse_program(t)), t);
  }
}

TEST(Parser, ChainAndPrecedence) {
  Expr e = parse_expr("1<=c<129&d>0|x");
  ASSERT_EQ(e.kind, ExprKind::Binary);
  EXPECT_EQ(e.bop, BinOp::Or);
  const Expr& a = e.args[0];
  EXPECT_EQ(a.bop, BinOp::And);
  EXPECT_EQ(a.args[0].kind, ExprKind::Compare);
  EXPECT_EQ(a.args[0].cmps.size(), 2u);
  Expr p = parse_expr("-x**2");
  ASSERT_EQ(p.kind, ExprKind::Neg);
  EXPECT_EQ(p.args[0].bop, BinOp::Pow);
  Expr r = parse_expr("a**b**c");  // right-associative
  EXPECT_EQ(r.args[1].kind, ExprKind::Binary);
  Expr l = parse_expr("a-b-c");  // left-associative
  EXPECT_EQ(l.args[0].kind, ExprKind::Binary);
}

TEST(Parser, ErrorCodesAndOffsets) {
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}$;];"), "E001");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}];"), "E002");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[N=align(4);];"), "E002");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*1.e5;];"), "E003");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=2x;];"), "E003");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=99999999999999999999;];"), "E003");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=1e999;];"), "E003");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{}=0;];"), "E004");
  EXPECT_EQ(err_offset("B^{4}_{tx=0}[C^{f32,g}_{}=A^{f32,g}_{tx};];"), 23u);  // the LEIR.md §12 example
  EXPECT_EQ(err_code("L^{8}_{a=1}[C^{f32,g}_{a}=0;];"), "E005");
  EXPECT_EQ(err_code("L^{0}_{a=0}[C^{f32,g}_{a}=0;];"), "E006");
  EXPECT_EQ(err_code("L^{2147483648}_{a=0}[C^{f32,g}_{a}=0;];"), "E006");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=tanh(A^{f32,g}_{tx});];"), "E007");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=max(A^{f32,g}_{tx});];"), "E008");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f128,g}_{tx}=0;];"), "E009");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,r}_{tx}=0;];"), "E010");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[];"), "E011");
  EXPECT_EQ(err_code(""), "E012");
  EXPECT_EQ(err_code("  \n "), "E012");
  EXPECT_EQ(err_code("L^{4}_{a1=0}[C^{f32,g}_{a1}=0;];"), "E013");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=foo;];"), "ok");  // a loop variable name: unbound is E113 later
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=a_b;];"), "E013");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}^{ap_0};];"), "E002");
  EXPECT_EQ(err_code("B^{4}_{tx=0}[C^{f32,g}_{tx}=0;]"), "E002");  // missing final ;
}

TEST(Parser, ErrorMessageHasCaretExcerpt) {
  try {
    parse_program("B^{4}_{tx=0}[C^{f32,g}_{}=A^{f32,g}_{tx};];");
    FAIL();
  } catch (const LeirError& e) {
    EXPECT_EQ(e.diag().headline(), "LEIR-E004 at 23: empty subscript");
    EXPECT_EQ(e.diag().excerpt,
              "  B^{4}_{tx=0}[C^{f32,g}_{}=A^{f32,g}_{tx};];\n"
              "                        ^");
  }
}

TEST(Printer, PythonFloatRepr) {
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(100.0), "100.0");
  EXPECT_EQ(python_float_repr(0.6366197466850281), "0.6366197466850281");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(-2.5), "-2.5");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(python_float_repr(1e100), "1e+100");
}

TEST(Printer, SynthesizedTreesGetMinimalParentheses) {
  Expr a = make_var("a"), b = make_var("b"), c = make_var("c");
  EXPECT_EQ(print_expr(make_binary(BinOp::Mul, make_binary(BinOp::Add, a, b), c)), "(a+b)*c");
  EXPECT_EQ(print_expr(make_binary(BinOp::Add, make_binary(BinOp::Mul, a, b), c)), "a*b+c");
  EXPECT_EQ(print_expr(make_binary(BinOp::Sub, a, make_binary(BinOp::Sub, b, c))), "a-(b-c)");
  EXPECT_EQ(print_expr(make_binary(BinOp::Sub, make_binary(BinOp::Sub, a, b), c)), "a-b-c");
  EXPECT_EQ(print_expr(make_binary(BinOp::Pow, make_neg(a), make_int(2))), "(-a)**2");
  EXPECT_EQ(print_expr(make_neg(make_binary(BinOp::Pow, a, make_int(2)))), "-a**2");
  EXPECT_EQ(print_expr(make_binary(BinOp::Pow, a, make_binary(BinOp::Pow, b, c))), "a**b**c");
  EXPECT_EQ(print_expr(make_binary(BinOp::Pow, make_binary(BinOp::Pow, a, b), c)), "(a**b)**c");
  EXPECT_EQ(print_expr(make_neg(make_binary(BinOp::Add, a, b))), "-(a+b)");
  EXPECT_EQ(print_expr(make_binary(BinOp::Add, make_int(3), make_float(0.5))), "3+0.5");
  EXPECT_EQ(print_expr(make_binary(BinOp::Mul, a, make_int(-2))), "a*-2");
  EXPECT_EQ(print_expr(make_binary(BinOp::Pow, make_int(-2), a)), "(-2)**a");
  // every synthesized print parses back to the same tree modulo groups
  for (const Expr& e : {make_binary(BinOp::Mul, make_binary(BinOp::Add, a, b), c),
                        make_binary(BinOp::Sub, a, make_binary(BinOp::Sub, b, c))}) {
    EXPECT_EQ(print_expr(parse_expr(print_expr(e))), print_expr(e));
  }
}

TEST(Task, ErrorsHaveJsonPaths) {
  auto code_of = [](const std::string& j) {
    try {
      parse_task(j);
    } catch (const LeirError& e) {
      return e.code() + "@" + e.diag().path;
    }
    return std::string("ok");
  };
  const std::string leir = "\"leir\": \"B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];\"";
  EXPECT_EQ(code_of("{"), "E101@$");
  EXPECT_EQ(code_of("{\"workload\": \"w\", \"suite\": \"s\", \"known\": [{\"name\": \"C\", \"role\": \"output\", \"dtype\": \"f32\", \"shape\": [4]}]}"), "E101@leir");
  EXPECT_EQ(code_of("{\"workload\": 3, \"suite\": \"s\", \"known\": [], " + leir + "}"), "E101@workload");
  // several required members missing: one error at the task naming them all
  EXPECT_EQ(code_of("{\"workload\": 3}"), "E101@$");
  try {
    parse_task("{\"workload\": \"x\", \"leir\": \"(((((\"}");
    ADD_FAILURE() << "no error";
  } catch (const LeirError& e) {
    EXPECT_EQ(e.diag().message, "missing members \"suite\", \"known\"");
  }
  EXPECT_EQ(code_of("{\"workload\": \"w\", \"suite\": \"s\", \"known\": [{\"name\": \"A\", \"role\": \"weight\", \"dtype\": \"f32\", \"shape\": [4]}], " + leir + "}"), "E102@known[0].role");
  EXPECT_EQ(code_of("{\"workload\": \"w\", \"suite\": \"s\", \"known\": [{\"name\": \"A\", \"role\": \"input\", \"dtype\": \"f32\", \"shape\": [0]}], " + leir + "}"), "E102@known[0].shape[0]");
  EXPECT_EQ(code_of("{\"workload\": \"w\", \"suite\": \"s\", \"known\": [{\"name\": \"A\", \"role\": \"input\", \"dtype\": \"f32\", \"shape\": [4]}, {\"name\": \"A\", \"role\": \"output\", \"dtype\": \"f32\", \"shape\": [4]}], " + leir + "}"), "E103@known[1].name");
  EXPECT_EQ(code_of("{\"workload\": \"w\", \"suite\": \"s\", \"known\": [{\"name\": \"C\", \"role\": \"output\", \"dtype\": \"f32\", \"shape\": [4]}, {\"name\": \"A\", \"role\": \"input\", \"dtype\": \"f32\", \"shape\": [4]}], " + leir + "}"), "E104@known[1].role");
  EXPECT_EQ(code_of("{\"workload\": \"w\", \"suite\": \"s\", \"known\": [{\"name\": \"A\", \"role\": \"input\", \"dtype\": \"f32\", \"shape\": [4]}], " + leir + "}"), "E105@known");
}

TEST(Task, BareLeirTextGetsAHintNamingTheTaskFormat) {
  auto message_of = [](const std::string& j) {
    try {
      parse_task(j);
    } catch (const LeirError& e) {
      return e.code() + ": " + e.diag().message;
    }
    return std::string("ok");
  };
  const std::string hint = "this is bare LEIR text: a task is a JSON object with members \"workload\"";
  for (const char* bare : {"L^{4}_{a=0}[B^{f32,g}_{a}=A^{f32,g}_{a}*2.0;];", "  \n D^{f32,g}=1.0;"}) {
    const std::string m = message_of(bare);
    EXPECT_EQ(m.rfind("E101: malformed JSON: " + hint, 0), 0u) << m;  // first, before the JSON library's words
    EXPECT_NE(m.find(hint), std::string::npos) << m;
  }
  // JSON that is merely malformed, or text that is neither, gets no hint
  for (const char* other : {"{\"workload\": ", "this is not json", "L^4", "true false"})
    EXPECT_EQ(message_of(other).find(hint), std::string::npos) << other;
}

TEST(Task, HashIsStableAndDistinguishes) {
  auto lines = corpus_lines();
  ASSERT_FALSE(lines.empty()) << "cannot read the reference corpus " << kCorpus
                              << " (the tests need the shared/ folder beside the repository)";
  Task a = parse_task(lines[0]);
  Task b = parse_task(lines[0]);
  EXPECT_EQ(task_hash(a), task_hash(b));
  b.workload = "renamed";
  EXPECT_EQ(task_hash(a), task_hash(b));  // labels do not matter
  b.known[0].shape[0] += 1;
  EXPECT_NE(task_hash(a), task_hash(b));
  std::set<std::uint64_t> hashes;
  for (const auto& l : lines) hashes.insert(task_hash(parse_task(l)));
  EXPECT_GT(hashes.size(), 80u);
  EXPECT_EQ(task_hash_hex(a).size(), 16u);
}

// Declared value ranges of known buffers (STRATEGIES.md §4; the "range" member): round trip, absent by default,
// and E102 for a bad value or a range on an output.
TEST(TaskJson, DeclaredRangeRoundTripsAndIsValidated) {
  const std::string with =
      R"({"workload": "w", "suite": "s", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [4], "range": "positive"}, )"
      R"({"name": "D", "role": "input", "dtype": "f32", "shape": [4], "range": "nonnegative"}, )"
      R"({"name": "C", "role": "output", "dtype": "f32", "shape": [4]}], "leir": "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}+D^{f32,g}_{tx};];"})";
  auto t = steptp::ir::parse_task(with);
  EXPECT_EQ(t.known[0].range, steptp::ir::ValueRange::Positive);
  EXPECT_EQ(t.known[1].range, steptp::ir::ValueRange::NonNegative);
  EXPECT_EQ(t.known[2].range, steptp::ir::ValueRange::Any);
  EXPECT_EQ(steptp::ir::task_to_json(t), with);  // byte for byte; no "range" member for Any
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string text = with;
    text.replace(text.find(from), from.size(), to);
    try {
      steptp::ir::parse_task(text);
    } catch (const steptp::ir::LeirError& e) {
      return e.diag().code;
    }
    return std::string("none");
  };
  EXPECT_EQ(bad(R"("range": "positive")", R"("range": "big")"), "E102");
  EXPECT_EQ(bad(R"("range": "positive")", R"("range": 1)"), "E102");
  EXPECT_EQ(bad(R"("shape": [4]}], "leir")", R"("shape": [4], "range": "positive"}], "leir")"), "E102");
}
