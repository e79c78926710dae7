// Escaping of outside strings into generated code (lower/escape.hpp, issue #48 item 1). Unit tests pin the literal
// of each character class; the Slow tests put those classes and random byte strings into every string field of a
// task and of an ONNX model, lower to C++, CUDA and TVMScript, and check that the code parses (g++ -fsyntax-only,
// Python ast) and that the string appears only as its escaped literal, in one place.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "frontend/onnx_import.hpp"
#include "frontend/onnx_test_util.hpp"
#include "ir/parser.hpp"
#include "lower/escape.hpp"
#include "lower/lower.hpp"
#include "lower_test_util.hpp"

namespace steptp {
namespace {

namespace fs = std::filesystem;
using lower::cpp_string_literal;
using lower::python_string_literal;

// One string per character class of the issue, and the issue's own exploit.
std::vector<std::string> hostile_strings() {
  return {"",
          "plain_Name-1.2",
          "line\nbreak",
          "cr\rreturn",
          "ends a block comment */ here /* and opens one",
          "backslash-newline \\\nspliced",
          "trailing backslash \\",
          "#include <cstdlib>\n#define leir_run x",
          "quotes \" ' \"\"\" '''",
          "trigraph ?" "?/ and ?" "?=",
          std::string("control \x01\x07\x1b\x7f and NUL ") + std::string(1, '\0') + " inside",
          "tab\tand form feed\f",
          "utf-8 caf\xc3\xa9 and RLO \xe2\x80\xae and BOM \xef\xbb\xbf",
          "invalid utf-8 \xff\xfe\xc3",
          "X\nstatic int p = (fclose(fopen(\"PWNED\", \"w\")), 0);\n//"};
}

std::vector<std::string> random_strings(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> v;
  for (std::size_t i = 0; i < n; ++i) {
    std::string s(rng() % 48, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 256);
    v.push_back(s);
  }
  return v;
}

TEST(LowerEscape, CppLiteralOfEachCharacterClass) {
  EXPECT_EQ(cpp_string_literal(""), "\"\"");
  EXPECT_EQ(cpp_string_literal("Matmul_3D"), "\"Matmul_3D\"");
  EXPECT_EQ(cpp_string_literal("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(cpp_string_literal("x\ny\rz"), "\"x\\012y\\015z\"");
  EXPECT_EQ(cpp_string_literal("\\\n"), "\"\\\\\\012\"");  // backslash-newline: no line splice survives
  EXPECT_EQ(cpp_string_literal("*/#"), "\"*/#\"");         // harmless inside a literal
  EXPECT_EQ(cpp_string_literal("?" "?/"), "\"\\?\\?/\"");      // no trigraph sequence
  EXPECT_EQ(cpp_string_literal(std::string("\0" "7", 2)), "\"\\0007\"");  // three digits: the 7 stays a 7
  EXPECT_EQ(cpp_string_literal("\x7f\xe2\x80\xae"), "\"\\177\\342\\200\\256\"");
}

TEST(LowerEscape, PythonLiteralOfEachCharacterClass) {
  EXPECT_EQ(python_string_literal(""), "\"\"");
  EXPECT_EQ(python_string_literal("float32"), "\"float32\"");
  EXPECT_EQ(python_string_literal("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(python_string_literal("\"\"\"'''"), "\"\\\"\\\"\\\"'''\"");
  EXPECT_EQ(python_string_literal("x\ny\r#"), "\"x\\x0ay\\x0d#\"");
  EXPECT_EQ(python_string_literal(std::string("\0\x7f\xc3\xa9", 4)), "\"\\x00\\x7f\\xc3\\xa9\"");
}

TEST(LowerEscape, LiteralsArePrintableAsciiWithoutLineBreaks) {
  auto all = hostile_strings();
  for (auto& s : random_strings(200, 7)) all.push_back(s);
  for (const auto& s : all) {
    for (const std::string& lit : {cpp_string_literal(s), python_string_literal(s)}) {
      ASSERT_GE(lit.size(), 2u);
      EXPECT_EQ(lit.front(), '"');
      EXPECT_EQ(lit.back(), '"');
      for (char c : lit) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << lit;
    }
  }
}

// ---- the generated code, with the strings in every string field ----

ir::Task base_task() {
  ir::Task t;
  t.workload = "W";
  t.suite = "S";
  t.known = {{"A", ir::Role::Input, ir::DType::F32, {8}}, {"D", ir::Role::Output, ir::DType::F32, {8}}};
  t.program = ir::parse_program("L^{8}_{a=0}[D^{f32,g}_{a}=A^{f32,g}_{a}*2;];");
  return t;
}

// `code` must be `neutral` with the neutral workload's literal replaced by `s`'s: `s` enters only escaped, once.
void expect_only_escaped(const std::string& code, const std::string& neutral, const std::string& s) {
  std::string want = neutral;
  const std::string lit = cpp_string_literal("W");
  const auto at = want.find(lit);
  ASSERT_NE(at, std::string::npos);
  want.replace(at, lit.size(), cpp_string_literal(s));
  EXPECT_EQ(code, want);
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

int python_parses_all(const fs::path& dir, std::string* out) {
  return testing::run_command("python3 -c 'import ast,pathlib,sys\nfor p in sorted(pathlib.Path(sys.argv[1]).glob(\"*"
                              ".py\")): ast.parse(p.read_text(), str(p))' " + dir.string(), out);
}

TEST(LowerEscapeSlow, LiteralsRoundTripThroughGccAndPython) {
  auto all = hostile_strings();
  for (auto& s : random_strings(40, 11)) all.push_back(s);
  const fs::path dir = scratch("steptp-escape-rt");
  std::string cpp = "#include <cstdio>\nstatic const char* const k[] = {\n", sizes = "static const unsigned long n[] = {";
  std::string py = "import sys\nk = [\n";
  for (const auto& s : all) {
    cpp += "  " + cpp_string_literal(s) + ",\n";
    sizes += std::to_string(s.size()) + "UL, ";
    py += "  " + python_string_literal(s) + ",\n";
  }
  cpp += "};\n" + sizes + "};\nint main() {\n  for (unsigned i = 0; i < sizeof n / sizeof *n; ++i) {\n"
         "    for (unsigned long j = 0; j < n[i]; ++j) std::printf(\"%02x\", (unsigned char)k[i][j]);\n"
         "    std::printf(\"\\n\");\n  }\n}\n";
  py += "]\nfor s in k: print(s.encode('latin-1').hex())\n";
  std::ofstream(dir / "rt.cpp") << cpp;
  std::ofstream(dir / "rt.py") << py;
  std::string expect;
  for (const auto& s : all) {
    for (unsigned char c : s) {
      static const char* h = "0123456789abcdef";
      expect += h[c >> 4];
      expect += h[c & 15];
    }
    expect += "\n";
  }
  std::string out;
  ASSERT_EQ(testing::run_command("c++ -std=c++20 -Wall -Werror -o " + (dir / "rt").string() + " " +
                                     (dir / "rt.cpp").string(), &out), 0) << out;
  ASSERT_EQ(testing::run_command((dir / "rt").string(), &out), 0);
  EXPECT_EQ(out, expect);
  ASSERT_EQ(testing::run_command("python3 " + (dir / "rt.py").string(), &out), 0) << out;
  EXPECT_EQ(out, expect);
  fs::remove_all(dir);
}

// Every string field of a task (workload, suite) carries the string; the C++ parses and the CUDA and TVMScript hold
// it only escaped (TVMScript: not at all).
TEST(LowerEscapeSlow, TaskStringFieldsReachCodeOnlyEscaped) {
  auto all = hostile_strings();
  for (auto& s : random_strings(6, 13)) all.push_back(s);
  const fs::path dir = scratch("steptp-escape-task");
  const ir::Task neutral = base_task();
  const std::string c0 = lower::lower_c(neutral), cu0 = lower::lower_cuda(neutral), tir0 = lower::lower_tir(neutral);
  std::size_t i = 0;
  for (const auto& s : all) {
    SCOPED_TRACE(::testing::PrintToString(s));
    ir::Task t = base_task();
    t.workload = s;
    t.suite = s;
    const std::string c = lower::lower_c(t);
    expect_only_escaped(c, c0, s);
    expect_only_escaped(lower::lower_cuda(t), cu0, s);
    EXPECT_EQ(lower::lower_tir(t), tir0);
    const fs::path f = dir / ("t" + std::to_string(i++) + ".cpp");
    std::ofstream(f) << c;
    std::string out;
    EXPECT_EQ(testing::run_command("c++ -std=c++20 -fopenmp -fsyntax-only " + f.string(), &out), 0) << out;
  }
  std::ofstream(dir / "tir.py") << tir0;
  std::string out;
  EXPECT_EQ(python_parses_all(dir, &out), 0) << out;
  // nvcc, where installed, compiles the CUDA of the issue's exploit and of a random byte string
  const std::string nvcc = std::filesystem::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
  for (const std::string& s : {all[all.size() - 7], all.back()}) {
    if (nvcc.empty()) break;
    ir::Task t = base_task();
    t.workload = s;
    const fs::path f = dir / "k.cu";
    std::ofstream(f) << lower::lower_cuda(t);
    EXPECT_EQ(testing::run_command(nvcc + " -c --expt-relaxed-constexpr -o " + (dir / "k.o").string() + " " +
                                       f.string(), &out), 0) << out;
  }
  fs::remove_all(dir);
}

// A model whose every name and doc string is the string: graph, nodes, inputs, outputs, initializers, value infos,
// producer; the workload label too. The LEIR names are the importer's own, so the code is the neutral model's.
onnx::ModelProto named_model(const std::string& s) {
  const std::string x = s + "#x", w = s + "#w", y = s + "#y", h = s + "#h";
  auto m = test::make_model({{x, {2, 3}}}, {{y, {2, 3}}});
  m.set_producer_name(s);
  m.set_doc_string(s);
  m.mutable_graph()->set_name(s);
  m.mutable_graph()->set_doc_string(s);
  test::add_float_init(m, w, {3}, {1, 2, 3});
  test::add_node(m, "Mul", {x, w}, {h}, s + "#mul")->set_doc_string(s);
  test::add_node(m, "Relu", {h}, {y}, s + "#relu")->set_doc_string(s);
  test::add_value_info(m.mutable_graph()->add_value_info(), h, {2, 3});
  return m;
}

TEST(LowerEscapeSlow, OnnxStringFieldsReachCodeOnlyEscaped) {
  auto all = hostile_strings();
  for (auto& s : random_strings(6, 17)) all.push_back(s);
  const fs::path dir = scratch("steptp-escape-onnx");
  const auto neutral = frontend::import_onnx_bytes(test::bytes_of(named_model("n")), "n", "W", "S").task;
  const std::string c0 = lower::lower_c(neutral), cu0 = lower::lower_cuda(neutral), tir0 = lower::lower_tir(neutral);
  std::size_t i = 0;
  for (const auto& s : all) {
    SCOPED_TRACE(::testing::PrintToString(s));
    const auto t = frontend::import_onnx_bytes(test::bytes_of(named_model(s)), s, s, s).task;
    const std::string c = lower::lower_c(t);
    expect_only_escaped(c, c0, s);
    expect_only_escaped(lower::lower_cuda(t), cu0, s);
    EXPECT_EQ(lower::lower_tir(t), tir0);
    if (i % 3 == 0) {  // the C++ is the neutral one but for the literal: parse a third of them
      const fs::path f = dir / ("m" + std::to_string(i) + ".cpp");
      std::ofstream(f) << c;
      std::string out;
      EXPECT_EQ(testing::run_command("c++ -std=c++20 -fopenmp -fsyntax-only " + f.string(), &out), 0) << out;
    }
    ++i;
  }
  std::ofstream(dir / "tir.py") << tir0;
  std::string out;
  EXPECT_EQ(python_parses_all(dir, &out), 0) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace steptp
