// Compaction of s/l intermediates in the C lowering (lower/compact.hpp, LEIR.md §10.2): the planned storage,
// the emitted declaration and index arithmetic, and the compiled program against the interpreter.
#include <gtest/gtest.h>

#include "ir/parser.hpp"
#include "lower/compact.hpp"
#include "lower/lower.hpp"
#include "lower_test_util.hpp"
#include "runtime/lower_check.hpp"

namespace steptp {
namespace {

ir::Task compact_task(std::vector<ir::KnownBuffer> known, const std::string& leir) {
  ir::Task t;
  t.workload = "compact";
  t.known = std::move(known);
  t.program = ir::parse_program(leir);
  return t;
}

ir::KnownBuffer f32_buf(const char* name, ir::Role role, std::vector<std::int64_t> shape) {
  return {name, role, ir::DType::F32, std::move(shape), {}};
}

void expect_compiled_matches(const ir::Task& t) {
  runtime::LowerCheckOptions o;
  o.compile.cache_dir = testing::test_cache_dir();
  o.limits.timeout_seconds = 60;
  const auto r = runtime::check_lowering(t, runtime::LowerTarget::C, o);
  EXPECT_TRUE(r.ok) << r.message;
}

std::map<std::string, lower::CompactBuffer> compact_plan(const ir::Task& t) {
  const lower::Prepared p(t);
  return lower::plan_compaction(p);
}

// The register-blocked GEMM that loop_tiling, loop_reorder x3, cache_read_write (write, l, d=2) and loop_unrolling
// reach from `B^{16}_{tx}L^{16}_{a}L^{8}_{c}` (scaled down from 512^3): the cache E_{d*4+tx,f*8+a} is 16x16 in LEIR,
// but one (tx, f) iteration touches a 4x8 block, rows 4 apart.
TEST(LowerCompact, CacheWriteOfATiledGemmIsOneRegisterBlock) {
  const auto t = compact_task({f32_buf("A", ir::Role::Input, {16, 8}), f32_buf("C", ir::Role::Input, {8, 16}),
                       f32_buf("D", ir::Role::Output, {16, 16})},
                      "B^{4}_{tx=0}L^{2}_{f=0}[L^{8}_{c=0}U^{4}_{d=0}L^{8}_{a=0}[E^{f32,l}_{d*4+tx,f*8+a}=E^{f32,l}_{"
                      "d*4+tx,f*8+a}+A^{f32,g}_{d*4+tx,c}*C^{f32,g}_{c,f*8+a};];L^{4}_{d=0}L^{8}_{a=0}[D^{f32,g}_{d*4+"
                      "tx,f*8+a}=E^{f32,l}_{d*4+tx,f*8+a};];];");
  const auto pl = compact_plan(t);
  ASSERT_EQ(pl.count("E"), 1u);
  const auto& e = pl.at("E");
  EXPECT_EQ(e.shape, (std::vector<std::int64_t>{4, 8}));
  // dim 0: d*4+tx -> tx (the first B header) dropped, the rest d*4 divided by 4; dim 1: f*8+a -> f dropped (8 > span 7)
  EXPECT_EQ(e.dims[0].dropped, (std::set<std::string>{"tx"}));
  EXPECT_EQ(e.dims[0].g, 4);
  EXPECT_EQ(e.dims[1].dropped, (std::set<std::string>{"f"}));
  EXPECT_EQ(e.dims[1].g, 1);
  const std::string c = lower::lower_c(t);
  EXPECT_NE(c.find("    for (int64_t v_tx = 0; v_tx < 4; ++v_tx) {\n      float E[32];\n"), std::string::npos) << c;
  EXPECT_NE(c.find("            E[(v_d) * 8 + (v_a)] = (0.0f);\n"), std::string::npos) << c;  // hoisted (hoist_init.hpp)
  expect_compiled_matches(t);
}

TEST(LowerCompact, OverlappingIterationsKeepTheirVariable) {
  // f*2+a with a in [0,3): iterations f and f+1 share an element, so f stays; tx (first B) is dropped.
  const auto t = compact_task({f32_buf("A", ir::Role::Input, {2, 9}), f32_buf("C", ir::Role::Output, {2, 4, 3})},
                      "B^{2}_{tx=0}L^{4}_{f=0}[L^{3}_{a=0}[O^{f32,l}_{tx,f*2+a}=A^{f32,g}_{tx,f*2+a}*2;];L^{3}_{a=0}[C^{"
                      "f32,g}_{tx,f,a}=O^{f32,l}_{tx,f*2+a}+1;];];");
  const auto pl = compact_plan(t);
  ASSERT_EQ(pl.count("O"), 1u);
  EXPECT_EQ(pl.at("O").shape, (std::vector<std::int64_t>{1, 9}));
  EXPECT_EQ(pl.at("O").dims[1].dropped.count("f"), 0u);
  expect_compiled_matches(t);
  // Iteration f reads element 2f, which iteration f-1 wrote (its third element): sharing storage between
  // iterations would read the wrong value, so f must stay (coefficient 2, span 2).
  const auto carried = compact_task({f32_buf("A", ir::Role::Input, {4, 3}), f32_buf("C", ir::Role::Output, {4})},
                            "L^{4}_{f=0}[L^{1}_{a=0}[C^{f32,g}_{f}=if_then_else(f>0,O^{f32,l}_{f*2+a},0.5);];L^{3}_{a=0}"
                            "[O^{f32,l}_{f*2+a}=A^{f32,g}_{f,a}*2;];];");
  EXPECT_EQ(compact_plan(carried).count("O"), 0u);
  expect_compiled_matches(carried);
}

TEST(LowerCompact, ParallelLoopsAndCrossIterationReadsAreNotDropped) {
  // P loop p: its iterations may run at once, so p keeps its own elements.
  const auto par = compact_task({f32_buf("A", ir::Role::Input, {4, 3}), f32_buf("C", ir::Role::Output, {4, 3})},
                        "P^{4}_{p=0}[L^{3}_{a=0}[O^{f32,l}_{p*3+a}=A^{f32,g}_{p,a}*2;];L^{3}_{a=0}[C^{f32,g}_{p,a}=O^{f32,"
                        "l}_{p*3+a}+1;];];");
  EXPECT_EQ(compact_plan(par).count("O"), 0u);
  expect_compiled_matches(par);
  // O_{f} and O_{0}: iteration f reads what iteration 0 wrote, so f is not common to all accesses and stays.
  const auto cross = compact_task({f32_buf("A", ir::Role::Input, {2, 4}), f32_buf("C", ir::Role::Output, {2, 4})},
                          "B^{2}_{tx=0}L^{4}_{f=0}[L^{1}_{a=0}[O^{f32,l}_{f}=A^{f32,g}_{tx,f};];L^{1}_{a=0}[C^{f32,g}_{"
                          "tx,f}=O^{f32,l}_{f}+O^{f32,l}_{0};];];");
  EXPECT_EQ(compact_plan(cross).count("O"), 0u);
  expect_compiled_matches(cross);
  // a gather entry keeps the LEIR layout
  ir::Task g = compact_task({f32_buf("A", ir::Role::Input, {2, 4}), {"I", ir::Role::Input, ir::DType::I64, {4}, {}},
                     f32_buf("C", ir::Role::Output, {2, 4})},
                    "B^{2}_{tx=0}[L^{4}_{a=0}[O^{f32,l}_{tx,a}=A^{f32,g}_{tx,a};];L^{4}_{a=0}[C^{f32,g}_{tx,a}=O^{f32,l}_"
                    "{tx,I^{i64,g}_{a}%4};];];");
  EXPECT_EQ(compact_plan(g).count("O"), 0u);
}

TEST(LowerCompact, NestWithoutBoundLoopsDropsSerialHeadersByDisjointness) {
  // No B header: O is declared before the nest. f*8+a and h*64+f*8+a: both serial headers drop (mixed radix).
  const auto t = compact_task({f32_buf("A", ir::Role::Input, {2, 4, 8}), f32_buf("C", ir::Role::Output, {2, 4, 8})},
                      "L^{2}_{h=0}L^{4}_{f=0}[L^{8}_{a=0}[O^{f32,l}_{h*64+f*8+a}=A^{f32,g}_{h,f,a}*2;];L^{8}_{a=0}[C^{"
                      "f32,g}_{h,f,a}=O^{f32,l}_{h*64+f*8+7-a}-1;];];");
  const auto pl = compact_plan(t);
  ASSERT_EQ(pl.count("O"), 1u);
  EXPECT_EQ(pl.at("O").shape, (std::vector<std::int64_t>{8}));
  EXPECT_EQ(pl.at("O").dims[0].dropped, (std::set<std::string>{"f", "h"}));
  const std::string c = lower::lower_c(t);
  EXPECT_NE(c.find("  {\n    float O[8];\n"), std::string::npos) << c;
  EXPECT_NE(c.find("O[(v_a * INT64_C(-1) + INT64_C(7))]"), std::string::npos) << c;
  expect_compiled_matches(t);
}

}  // namespace
}  // namespace steptp
