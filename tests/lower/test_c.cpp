// C++/OpenMP lowering (LEIR.md §10.2): generated code compiles, runs sandboxed and matches the interpreter
// (typed mode) under the §11 comparison on every hand-written task; structural checks of the emitted text.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "base/diag.hpp"
#include "ir/parser.hpp"
#include "lower/lower.hpp"
#include "lower_test_util.hpp"
#include "runtime/lower_check.hpp"
#include "runtime/measure.hpp"

namespace steptp {
namespace {

runtime::LowerCheckOptions check_opts() {
  runtime::LowerCheckOptions o;
  o.compile.cache_dir = testing::test_cache_dir();
  o.limits.timeout_seconds = 60;
  return o;
}

void expect_equivalent(const ir::Task& t) {
  const auto r = runtime::check_lowering(t, runtime::LowerTarget::C, check_opts());
  EXPECT_TRUE(r.ok) << t.workload << ": " << r.message;
  EXPECT_EQ(r.runs, 6) << t.workload;  // 3 seeds x {N, U}
}


TEST(LowerC, MatmulSoftmaxArgmaxMatchInterpreter) {
  const auto ts = testing::load_tasks("golden/tasks.jsonl");
  for (const char* w : {"matmul", "softmax", "argmax"}) expect_equivalent(testing::task_named(ts, w));
}

// Contraction (runtime::kernel_compile_options, issue #49): without it the compiled matmul is bit-identical to the
// typed interpreter; with it a*b+c rounds once, so the outputs differ, and stay within the f32 tolerance.
TEST(LowerC, FmaContractionChangesRoundingWithinTolerance) {
  const auto t = testing::task_named(testing::load_tasks("golden/tasks.jsonl"), "matmul");
  auto o = check_opts();
  o.compile = runtime::kernel_compile_options(false);
  o.compile.cache_dir = testing::test_cache_dir();
  EXPECT_NE(o.compile.flags.find("-ffp-contract=off"), std::string::npos);
  const auto off = runtime::check_lowering(t, runtime::LowerTarget::C, o);
  ASSERT_TRUE(off.ok) << off.message;
  EXPECT_EQ(off.max_abs_err, 0.0);
  o.compile = runtime::kernel_compile_options(true);
  o.compile.cache_dir = testing::test_cache_dir();
  EXPECT_EQ(o.compile.flags.find("-ffp-contract=off"), std::string::npos);
  EXPECT_NE(o.compile.flags.find("-ffp-contract=fast"), std::string::npos);
  const auto on = runtime::check_lowering(t, runtime::LowerTarget::C, o);
  ASSERT_TRUE(on.ok) << on.message;
  EXPECT_GT(on.max_abs_err, 0.0) << "contraction did not change a single rounding";
  EXPECT_LT(on.max_abs_err, 1e-4);  // a few f32 ulps of outputs of magnitude ~4
}

TEST(LowerCSlow, EveryHandWrittenTaskMatchesInterpreter) {
  for (const char* file : {"golden/tasks.jsonl", "c_tasks.jsonl"})
    for (const auto& t : testing::load_tasks(file)) expect_equivalent(t);
}

// Eager selects (lower/eager_select.hpp): an if_then_else whose arms only read in bounds evaluates both arms
// (leir::select) and reads its bool condition as a byte, so GCC vectorises the attention mask's select as a blend; a
// guarded read that may fall outside its buffer (padding) keeps the lazy `?:`. Outputs match the interpreter,
// including the broadcast mask on which GCC 12.2 miscompiles the lazy form's masked loads.
TEST(LowerC, SafeSelectsAreEagerAndVectorise) {
  const auto cts = testing::load_tasks("c_tasks.jsonl");
  const auto& t = testing::task_named(cts, "masked_scores");
  const std::string c = lower::lower_c(t);
  EXPECT_NE(c.find("leir::select<float>(leir::load_bool(M[v_tx * 64 + v_a]), -INFINITY, (N[v_tx * 64 + v_a] * "
                   "(0.25f)))"),
            std::string::npos)
      << c;
  char dir[] = "/tmp/steptp-select-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string src = std::string(dir) + "/k.cpp";
  FILE* f = std::fopen(src.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fwrite(c.data(), 1, c.size(), f);
  std::fclose(f);
  std::string out;
  const int rc = testing::run_command("c++ -x c++ " + runtime::kernel_compile_options(true).flags +
                                          " -fopt-info-vec-optimized -c " + src + " -o " + dir + "/k.o",
                                      &out);
  testing::run_command("rm -rf " + std::string(dir));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("loop vectorized"), std::string::npos) << out;
  expect_equivalent(t);
  expect_equivalent(testing::task_named(cts, "masked_broadcast"));
  // conv1d_padded reads A at a-1+k under a guard: that arm may fall outside A, so its select stays lazy
  const std::string conv = lower::lower_c(testing::task_named(testing::load_tasks("golden/tasks.jsonl"), "conv1d_padded"));
  EXPECT_EQ(conv.find("leir::select<"), std::string::npos) << conv;
  EXPECT_NE(conv.find(" ? "), std::string::npos) << conv;
}

TEST(LowerC, EmittedStructure) {
  const auto ts = testing::load_tasks("golden/tasks.jsonl");
  const auto cts = testing::load_tasks("c_tasks.jsonl");
  const std::string mm = lower::lower_c(testing::task_named(ts, "matmul"));
  EXPECT_NE(mm.find("extern \"C\" void leir_run(const float* __restrict A, const float* __restrict C, "
                    "float* __restrict D)"),
            std::string::npos);
  // the parallel loop twice: with the pragma over a call of an always-inline function of one iteration whose
  // buffers are __restrict parameters (an OpenMP region's outlined function would see them as aliasing), and a
  // serial copy for one thread
  EXPECT_NE(mm.find("static inline __attribute__((always_inline)) void leir_iteration0(const float* __restrict A, "
                    "const float* __restrict C, float* __restrict D, int64_t v_tx) {\n  for (int64_t v_a = 0; v_a < 12;"),
            std::string::npos)
      << mm;
  EXPECT_NE(mm.find("  if (leir_parallel) {\n    #pragma omp parallel for\n    for (int64_t v_tx = 0; v_tx < 8; ++v_tx) "
                    "leir_iteration0(A, C, D, v_tx);\n"),
            std::string::npos)
      << mm;
  EXPECT_NE(mm.find("  } else {\n    for (int64_t v_tx = 0; v_tx < 8; ++v_tx) {"), std::string::npos) << mm;
  // every top-level nest is a call of an always-inline function of its own, the buffers again __restrict
  // parameters: GCC drops the meaning of a restrict local initialised from an allocation, so a loop reading one
  // intermediate and writing another stayed scalar in the serial copy
  EXPECT_NE(mm.find("static inline __attribute__((always_inline)) void leir_nest0(bool leir_parallel, const float* "
                    "__restrict A, const float* __restrict C, float* __restrict D) {\n  (void)leir_parallel;\n  if "
                    "(leir_parallel) {\n"),
            std::string::npos)
      << mm;
  EXPECT_NE(mm.find("float* __restrict D) {\n  const bool leir_parallel = leir_parallel_team();\n  (void)leir_parallel;\n"
                    "  leir_nest0(leir_parallel, A, C, D);\n}\n"),
            std::string::npos)
      << mm;
  EXPECT_LT(mm.find("void leir_iteration0("), mm.find("void leir_nest0("));  // defined before its caller
  // the initialiser is hoisted out of the reduction loop (lower/hoist_init.hpp)
  EXPECT_NE(mm.find("        D[v_tx * 12 + v_a] = (0.0f);\n        for (int64_t v_c = 0; v_c < 16; ++v_c) {\n"),
            std::string::npos)
      << mm;
  EXPECT_NE(mm.find("extern \"C\" void leir_run_packed(void* const* b)"), std::string::npos);
  EXPECT_NE(mm.find("STEPTP_INTERP_NUMERIC_HPP"), std::string::npos);  // helpers embedded: self-contained
  EXPECT_EQ(mm.find("#include \""), std::string::npos);
  // loop kinds: reducing P is serial; non-reducing V gets simd; U gets the unroll pragma
  const std::string lk = lower::lower_c(testing::task_named(ts, "loop_kinds"));
  EXPECT_NE(lk.find("#pragma omp parallel for\n    for (int64_t v_a = 0; v_a < 4; ++v_a) leir_iteration0("),
            std::string::npos)
      << lk;
  EXPECT_NE(lk.find("int64_t v_a) {\n  #pragma omp simd\n"), std::string::npos) << lk;
  EXPECT_NE(lk.find("  } else {\n    for (int64_t v_a = 0; v_a < 4; ++v_a) {\n      #pragma omp simd"), std::string::npos)
      << lk;
  EXPECT_NE(lk.find("LEIR_UNROLL(8)"), std::string::npos);
  EXPECT_NE(lk.find("  for (int64_t v_a = 0; v_a < 4; ++v_a) {\n    LEIR_UNROLL(8)"), std::string::npos);
  // the unroll factor is capped at 512 statement instances per unrolled copy (LEIR.md §10.2): U256 over an L256
  // loop unrolls by 2; a U8 around it (one iteration already 65536 instances) gets no pragma; U4 of one statement 4
  const ir::Task big = ir::parse_task(
      R"({"workload": "w", "suite": "custom", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [2, 8, 256, 256]},)"
      R"( {"name": "C", "role": "output", "dtype": "f32", "shape": [2, 8, 256]}],)"
      R"( "leir": "B^{2}_{tx=0}U^{8}_{d=0}U^{256}_{a=0}L^{256}_{c=0})"
      R"([C^{f32,g}_{tx,d,c}=C^{f32,g}_{tx,d,c}+A^{f32,g}_{tx,d,a,c};];"})");
  const std::string ub = lower::lower_c(big);
  const auto at = ub.find("LEIR_UNROLL(2)\n");
  ASSERT_NE(at, std::string::npos) << ub;
  EXPECT_EQ(ub.substr(ub.find_first_not_of(' ', at + 15), 16), "for (int64_t v_a") << ub;
  EXPECT_EQ(ub.find("LEIR_UNROLL(8)"), std::string::npos);
  EXPECT_EQ(ub.find("LEIR_UNROLL(256)"), std::string::npos);
  // reducing B (cross-entropy's J over tx) is not parallel
  const std::string ce = lower::lower_c(testing::task_named(ts, "cross_entropy"));
  EXPECT_NE(ce.find("(void)leir_parallel;\n  J[0] = ((int64_t)INT64_C(0));\n  for (int64_t v_tx = 0; v_tx < 16; ++v_tx) {\n    J[0] = "),
            std::string::npos)
      << ce;
  // l arrays: automatic up to 64 KiB inside the first B body, heap beyond
  const std::string lp = lower::lower_c(testing::task_named(cts, "local_per_thread"));
  EXPECT_NE(lp.find("for (int64_t v_tx = 0; v_tx < 4; ++v_tx) {\n    float O[8];"), std::string::npos);
  const std::string bl = lower::lower_c(testing::task_named(cts, "big_local_heap"));
  EXPECT_NE(bl.find("float* __restrict O = (float*)leir_alloc(20000 * sizeof(float));"), std::string::npos);
  EXPECT_NE(bl.find("leir_free(O);"), std::string::npos);
  // f16 storage and rounding after every operation
  const std::string h = lower::lower_c(testing::task_named(ts, "half_and_ints"));
  EXPECT_NE(h.find("const uint16_t* __restrict A"), std::string::npos);
  EXPECT_NE(h.find("leir::round_f16(leir::f16_to_float(A[v_tx]) * (0.099975586f))"), std::string::npos);
  EXPECT_EQ(lower::lower_c(testing::task_named(ts, "half_and_ints")), h);  // deterministic
  // x**2 is the exact square (ir::is_square), any other exponent pow
  ir::Task sq;
  sq.known = {{"A", ir::Role::Input, ir::DType::F32, {4}, {}}, {"C", ir::Role::Output, ir::DType::F32, {4}, {}}};
  sq.program = ir::parse_program("B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}**2+A^{f32,g}_{tx}**(2.0)+A^{f32,g}_{tx}**3;];");
  const std::string sc = lower::lower_c(sq);
  EXPECT_NE(sc.find("leir::square(A[v_tx]) + leir::square(A[v_tx])"), std::string::npos) << sc;
  EXPECT_NE(sc.find("leir::pow(A[v_tx], (3.0f))"), std::string::npos);
}

ir::Task f32_task(const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& inputs,
                  const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& outputs, const std::string& leir) {
  ir::Task t;
  t.workload = "hoist";
  for (const auto& [n, s] : inputs) t.known.push_back({n, ir::Role::Input, ir::DType::F32, s, {}});
  for (const auto& [n, s] : outputs) t.known.push_back({n, ir::Role::Output, ir::DType::F32, s, {}});
  t.program = ir::parse_program(leir);
  return t;
}

TEST(LowerC, InitialisersAreHoistedWhereSafe) {
  // A register block (cache write of a tiled GEMM): E's initialiser becomes a d x a nest before the c loop.
  const ir::Task rb = f32_task({{"A", {16, 8}}, {"C", {8, 16}}}, {{"D", {16, 16}}},
                               "B^{4}_{tx=0}L^{2}_{f=0}[L^{8}_{c=0}U^{4}_{d=0}L^{8}_{a=0}[E^{f32,l}_{d*4+tx,f*8+a}=E^{f32,l}_{"
                               "d*4+tx,f*8+a}+A^{f32,g}_{d*4+tx,c}*C^{f32,g}_{c,f*8+a};];L^{4}_{d=0}L^{8}_{a=0}[D^{f32,g}_{"
                               "d*4+tx,f*8+a}=E^{f32,l}_{d*4+tx,f*8+a};];];");
  const std::string c = lower::lower_c(rb);
  EXPECT_NE(c.find("        for (int64_t v_d = 0; v_d < 4; ++v_d) {\n          for (int64_t v_a = 0; v_a < 8; ++v_a) {\n"
                   "            E[(v_d) * 8 + (v_a)] = (0.0f);\n          }\n        }\n        for (int64_t v_c = 0;"),
            std::string::npos)
      << c;
  EXPECT_EQ(c.find("if (v_c == 0)"), std::string::npos) << c;
  expect_equivalent(rb);
  // Kept inline: S is read by another statement inside its reduction loop (rule 3) ...
  const ir::Task read = f32_task({{"A", {4, 8}}}, {{"Q", {4, 8}}},
                                 "L^{4}_{a=0}L^{8}_{c=0}[S^{f32,g}_{a}=S^{f32,g}_{a}+A^{f32,g}_{a,c};Q^{f32,g}_{a,c}=S^{f32,g}_{a}*2;];");
  EXPECT_NE(lower::lower_c(read).find("if (v_c == 0) S[v_a] = (0.0f);"), std::string::npos);
  expect_equivalent(read);
  // ... a loop between the reduction loop and S that S does not index (rule 1: the original resets S per u) ...
  const ir::Task unused = f32_task({{"A", {4, 8}}}, {{"S", {4}}},
                                   "L^{8}_{c=0}L^{2}_{u=0}L^{4}_{a=0}[S^{f32,g}_{a}=S^{f32,g}_{a}+A^{f32,g}_{a,c};];");
  EXPECT_NE(lower::lower_c(unused).find("if (v_c == 0) S[v_a] = (0.0f);"), std::string::npos);
  expect_equivalent(unused);
  // ... and a LHS that two iterations share (rule 2: a+b is not injective over a, b < 3).
  const ir::Task shared = f32_task({{"A", {4, 3, 3}}}, {{"S", {5}}},
                                   "L^{4}_{c=0}L^{3}_{a=0}L^{3}_{b=0}[S^{f32,g}_{a+b}=S^{f32,g}_{a+b}+A^{f32,g}_{c,a,b};];");
  EXPECT_NE(lower::lower_c(shared).find("if (v_c == 0) S[(v_a + v_b)] = (0.0f);"), std::string::npos)
      << lower::lower_c(shared);
  expect_equivalent(shared);
  // a*3+b over b < 3 is injective (mixed radix): hoisted.
  const ir::Task radix = f32_task({{"A", {4, 2, 3}}}, {{"S", {6}}},
                                  "L^{4}_{c=0}L^{2}_{a=0}L^{3}_{b=0}[S^{f32,g}_{a*3+b}=S^{f32,g}_{a*3+b}+A^{f32,g}_{c,a,b};];");
  EXPECT_EQ(lower::lower_c(radix).find("if (v_c == 0)"), std::string::npos) << lower::lower_c(radix);
  expect_equivalent(radix);
}

TEST(LowerC, ParallelLoopInsideSerialLoopsBranchesOnTheTeamSize) {
  // A B loop under a serial loop: `omp parallel for` behind `if (leir_parallel)`, and the same loop without the
  // pragma in the else branch (one thread: no fork per outer iteration), when one entry runs at least 16384
  // statement instances; below that it is serial (a fork per outer iteration would cost more than it gains). A
  // top-level B loop keeps the plain pragma whatever its size.
  ir::Task t;
  t.workload = "inner_b";
  t.known = {{"A", ir::Role::Input, ir::DType::F32, {3, 16384}, {}},
             {"C", ir::Role::Output, ir::DType::F32, {3, 16384}, {}},
             {"E", ir::Role::Output, ir::DType::F32, {3, 4}, {}}, {"D", ir::Role::Output, ir::DType::F32, {4}, {}}};
  t.program = ir::parse_program("L^{3}_{a=0}B^{16384}_{tx=0}[C^{f32,g}_{a,tx}=A^{f32,g}_{a,tx}*2;];"
                                "L^{3}_{a=0}B^{4}_{tx=0}[E^{f32,g}_{a,tx}=A^{f32,g}_{a,tx}+1;];"
                                "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{0,tx}+1;];");
  const std::string c = lower::lower_c(t);
  EXPECT_NE(c.find("  const bool leir_parallel = leir_parallel_team();\n"), std::string::npos);
  const std::string body = "for (int64_t v_tx = 0; v_tx < 16384; ++v_tx) {\n        C[v_a * 16384 + v_tx] = "
                           "(A[v_a * 16384 + v_tx] * (2.0f));\n      }\n";
  EXPECT_NE(c.find("  for (int64_t v_a = 0; v_a < 3; ++v_a) {\n    if (leir_parallel) {\n      #pragma omp parallel for\n"
                   "      for (int64_t v_tx = 0; v_tx < 16384; ++v_tx) leir_iteration0(A, C, E, D, v_a, v_tx);\n"
                   "    } else {\n      " + body + "    }\n  }\n"),
            std::string::npos)
      << c;
  // the iteration function takes the enclosing loop's variable
  EXPECT_NE(c.find("void leir_iteration0(const float* __restrict A, float* __restrict C, float* __restrict E, "
                   "float* __restrict D, int64_t v_a, int64_t v_tx) {\n  C[v_a * 16384 + v_tx] = "),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("  for (int64_t v_a = 0; v_a < 3; ++v_a) {\n    for (int64_t v_tx = 0; v_tx < 4; ++v_tx) {\n"
                   "      E[v_a * 4 + v_tx]"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("  if (leir_parallel) {\n    #pragma omp parallel for\n    for (int64_t v_tx = 0; v_tx < 4; ++v_tx) "
                   "leir_iteration1(A, C, E, D, v_tx);\n  } else {\n    for (int64_t v_tx = 0; v_tx < 4; ++v_tx) {\n"
                   "      D[v_tx]"),
            std::string::npos)
      << c;
  expect_equivalent(t);
}

}  // namespace
}  // namespace steptp
