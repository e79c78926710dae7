// The library baseline registry (runtime/library_baseline.hpp): every registered workload, at small non-square
// shapes, gives the reference interpreter's outputs when its CBLAS call runs on the same inputs; workloads outside
// the registry and other dtypes have no baseline.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "equiv/inputs.hpp"
#include "frontend/workloads.hpp"
#include "interp/interpreter.hpp"
#include "runtime/best_core.hpp"
#include "runtime/library_baseline.hpp"

namespace steptp::runtime {
namespace {

ir::Task emit(const std::string& name, const frontend::Params& given, ir::DType dt = ir::DType::F32) {
  const auto* w = frontend::find_workload(name);
  EXPECT_NE(w, nullptr) << name;
  return frontend::emit(*w, frontend::resolve_params(*w, given), dt);
}

TEST(LibraryBaseline, EveryRegisteredWorkloadMatchesTheInterpreter) {
  if (!cblas_available()) GTEST_SKIP() << "built without STEPTP_WITH_CBLAS";
  const std::vector<std::pair<std::string, frontend::Params>> cases{
      {"Square_matrix_multiplication", {{"n", 7}}},
      {"Standard_matrix_multiplication", {{"m", 6}, {"n", 5}, {"k", 4}}},
      {"Matmul_with_irregular_shapes", {{"m", 5}, {"n", 3}, {"k", 7}}},
      {"Matmul_with_large_K_dimension", {{"m", 3}, {"n", 2}, {"k", 33}}},
      {"Matmul_with_small_K_dimension", {{"m", 6}, {"n", 5}, {"k", 2}}},
      {"Tall_skinny_matrix_multiplication", {{"m", 9}, {"n", 3}, {"k", 3}}},
      {"Matmul_with_transposed_A", {{"m", 6}, {"n", 5}, {"k", 4}}},
      {"Matmul_with_transposed_B", {{"m", 6}, {"n", 5}, {"k", 4}}},
      {"Matmul_with_transposed_both", {{"m", 6}, {"n", 5}, {"k", 4}}},
      {"Batched_matrix_multiplication", {{"b", 3}, {"m", 4}, {"n", 5}, {"k", 6}}},
      {"Matrix_vector_multiplication", {{"m", 7}, {"k", 9}}},
  };
  for (const auto& [name, params] : cases) {
    SCOPED_TRACE(name);
    for (ir::DType dt : {ir::DType::F32, ir::DType::F64}) {
      const ir::Task t = emit(name, params, dt);
      const auto call = library_call(name, t);
      ASSERT_TRUE(call.has_value());
      interp::Interpreter in(t);
      const interp::TensorMap inputs = equiv::make_inputs(t, 42, equiv::Distribution::Normal);
      const interp::TensorMap ref = in.run(inputs);
      const interp::Tensor got = run_library_call(*call, inputs);
      const interp::Tensor& want = ref.at(call->c);
      ASSERT_EQ(got.data.size(), want.data.size());
      for (std::size_t i = 0; i < got.data.size(); ++i)
        ASSERT_NEAR(got.data[i], want.data[i], 1e-4 * (1 + std::abs(want.data[i]))) << "element " << i;
    }
  }
}

TEST(LibraryBaseline, RoutinesAndShapesOfTheRegistry) {
  const auto t = emit("Matmul_with_transposed_A", {{"m", 6}, {"n", 5}, {"k", 4}});
  const auto c = library_call("Matmul_with_transposed_A", t);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->routine(), "cblas_sgemm");
  EXPECT_TRUE(c->trans_a);
  EXPECT_FALSE(c->trans_b);
  EXPECT_EQ(c->m, 6);
  EXPECT_EQ(c->n, 5);
  EXPECT_EQ(c->k, 4);
  const auto v = library_call("Matrix_vector_multiplication", emit("Matrix_vector_multiplication", {{"m", 7}, {"k", 9}}, ir::DType::F64));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->routine(), "cblas_dgemv");
  // outside the registry, or a dtype BLAS does not have
  EXPECT_FALSE(library_call("softmax", emit("softmax", {{"batch", 2}, {"dim", 8}})));
  EXPECT_FALSE(library_call("Square_matrix_multiplication", emit("Square_matrix_multiplication", {{"n", 4}}, ir::DType::F16)));
  // the registry is by workload: the same program under another name has no baseline
  EXPECT_FALSE(library_call("Matmul3D", t));
}

TEST(LibraryBaseline, TimingGivesOrderedQuartiles) {
  if (!cblas_available()) GTEST_SKIP() << "built without STEPTP_WITH_CBLAS";
  const auto t = emit("Standard_matrix_multiplication", {{"m", 64}, {"n", 64}, {"k", 64}});
  const auto j = time_library_baseline("Standard_matrix_multiplication", t, 5, 1);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["routine"], "cblas_sgemm");
  EXPECT_EQ(j["repeats"].get<int>(), 5);
  EXPECT_GT(j["median_ns"].get<double>(), 0);
  EXPECT_LE(j["q1_ns"].get<double>(), j["median_ns"].get<double>());
  EXPECT_LE(j["median_ns"].get<double>(), j["q3_ns"].get<double>());
  EXPECT_TRUE(time_library_baseline("softmax", emit("softmax", {{"batch", 2}, {"dim", 8}}), 5, 1).is_null());
}

// The baseline's library is named beside its figures (issue #49): OpenBLAS's own core name and build, and the
// environment variables that force a core, exactly as this process sees them.
TEST(LibraryBaseline, NamesTheOpenBlasCoreAndTheForcingVariables) {
  if (!cblas_available()) GTEST_SKIP() << "built without STEPTP_WITH_CBLAS";
  const auto j = blas_library_info();
  ASSERT_TRUE(j.is_object());
  EXPECT_FALSE(j["openblas_core"].get<std::string>().empty());
  EXPECT_EQ(j["openblas_config"].get<std::string>().rfind("OpenBLAS ", 0), 0u) << j["openblas_config"];
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced) {
    EXPECT_EQ(j["OPENBLAS_CORETYPE"], forced);
  } else {
    EXPECT_TRUE(j["OPENBLAS_CORETYPE"].is_null());
  }
}

// The correctness check that decides whether the baseline may drop the forcing variables: a 192x160x224 sgemm of
// this process against the f64 product, within 1e-5 relative to the largest element (float rounding gives ~1e-7).
TEST(LibraryBaseline, SgemmCheckPassesInThisProcess) {
  if (!cblas_available()) GTEST_SKIP() << "built without STEPTP_WITH_CBLAS";
  const double e = blas_core_check();
  EXPECT_GT(e, 0.0);  // f32 rounding is never exact over k = 224
  EXPECT_LE(e, kBlasCheckTolerance);
}

// The vector level of OpenBLAS's core names, which decides whether the detected core is below the CPU's ISA.
TEST(LibraryBaseline, CoreLevels) {
  EXPECT_EQ(openblas_core_level("Prescott"), 1);
  EXPECT_EQ(openblas_core_level("Sandybridge"), 1);
  EXPECT_EQ(openblas_core_level(""), 1);
  EXPECT_EQ(openblas_core_level("Haswell"), 2);
  EXPECT_EQ(openblas_core_level("Zen"), 2);
  EXPECT_EQ(openblas_core_level("SkylakeX"), 3);
  EXPECT_EQ(openblas_core_level("Cooperlake"), 3);
}

// The core forced on a guest whose CPU model OpenBLAS does not know follows the CPU flags the kernel reports.
TEST(LibraryBaseline, CoreForCpuFollowsTheCpuFlags) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      flags = line + " ";
      break;
    }
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags";
  auto has = [&](const char* f) { return flags.find(std::string(" ") + f + " ") != std::string::npos; };
  std::string want;
  if (has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq"))
    want = has("avx512_bf16") ? "Cooperlake" : "SkylakeX";
  else if (has("avx2") && has("fma"))
    want = "Haswell";
  EXPECT_EQ(openblas_core_for_cpu(), want) << flags;
}

}  // namespace
}  // namespace steptp::runtime
