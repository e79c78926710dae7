// CUDA lowering (LEIR.md §10.3): structure of the emitted code, E401/E403, and (when nvcc is installed) every
// generated file compiles with `nvcc -c --expt-relaxed-constexpr` (numeric.hpp calls constexpr std:: functions). Running on a GPU: `steptp lower --target cuda TASK --check`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "base/diag.hpp"
#include "ir/parser.hpp"
#include "lower/lower.hpp"
#include "lower_test_util.hpp"

namespace steptp {
namespace {

std::string nvcc() {
  if (const char* e = std::getenv("NVCC"); e && *e) return e;
  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return testing::run_command("nvcc --version") == 0 ? "nvcc" : "";
}


TEST(LowerCuda, HostLoopsLaunchDimsAndScopes) {
  const auto ts = testing::load_tasks("golden/tasks.jsonl");
  const std::string h = lower::lower_cuda(testing::task_named(ts, "host_loops_gpu"));
  EXPECT_NE(h.find("__global__ void leir_nest0(const float* __restrict A, float* __restrict C, int64_t v_a) {\n"
                   "  const int64_t v_tx = (int64_t)threadIdx.x;\n  const int64_t v_by = (int64_t)blockIdx.y;"),
            std::string::npos);
  EXPECT_NE(h.find("  for (int64_t v_a = 0; v_a < 3; ++v_a) {\n    leir_nest0<<<dim3(1, 4, 1), dim3(64, 1, 1)>>>(A, C, v_a);"),
            std::string::npos);
  const std::string ls = lower::lower_cuda(testing::task_named(ts, "local_shared"));
  EXPECT_NE(ls.find("  __shared__ float S[32];"), std::string::npos);
  EXPECT_NE(ls.find("  float O[32];"), std::string::npos);
  EXPECT_NE(ls.find("leir_nest0<<<dim3(4, 1, 1), dim3(8, 1, 1)>>>"), std::string::npos);
  // a nest without B runs in one single-thread kernel; a reducing B loop is a loop inside the kernel
  const std::string lk = lower::lower_cuda(testing::task_named(ts, "loop_kinds"));
  EXPECT_NE(lk.find("leir_nest1<<<dim3(1, 1, 1), dim3(1, 1, 1)>>>(A, C, S, R);"), std::string::npos);
  const std::string ce = lower::lower_cuda(testing::task_named(ts, "cross_entropy"));
  EXPECT_NE(ce.find("__global__ void leir_nest5(const float* __restrict A, const int64_t* __restrict C, float* __restrict D, "
                    "float* __restrict F, float* __restrict G, float* __restrict E, int64_t* __restrict H, "
                    "float* __restrict I, int64_t* __restrict J) {\n  for (int64_t v_tx = 0; v_tx < 16; ++v_tx) {"),
            std::string::npos);
  EXPECT_NE(ce.find("LEIR_CUDA_CHECK(cudaMalloc((void**)&J, 1 * sizeof(int64_t)));"), std::string::npos);
}

TEST(LowerCuda, SharedOver48KiBIsE403) {
  ir::Task t;
  t.known = {{"A", ir::Role::Input, ir::DType::F32, {4, 16384}}, {"C", ir::Role::Output, ir::DType::F32, {4, 16384}}};
  t.program = ir::parse_program(
      "B^{4}_{bx=0}[L^{16384}_{a=0}[S^{f32,s}_{a}=A^{f32,g}_{bx,a};];L^{16384}_{a=0}[C^{f32,g}_{bx,a}=S^{f32,s}_{a};];];");
  try {
    lower::lower_cuda(t);
    FAIL() << "expected E403";
  } catch (const ir::LeirError& e) {
    EXPECT_EQ(e.code(), "E403");
  }
  EXPECT_NO_THROW(lower::lower_c(t));  // the C lowering puts it on the heap
}

TEST(LowerCudaSlow, EveryGeneratedFileCompilesWithNvcc) {
  const std::string cc = nvcc();
  if (cc.empty()) GTEST_SKIP() << "nvcc not found (set NVCC); CUDA compile test skipped";
  const auto dir = std::filesystem::temp_directory_path() / ("steptp-cuda-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (const char* file : {"golden/tasks.jsonl", "c_tasks.jsonl"}) {
    for (const auto& t : testing::load_tasks(file)) {
      const std::string cu = (dir / (t.workload + ".cu")).string();
      ir::write_file_atomic(cu, lower::lower_cuda(t));
      std::string out;
      const int rc = testing::run_command(cc + " -c --expt-relaxed-constexpr -o '" + cu + ".o' '" + cu + "'", &out);
      EXPECT_EQ(rc, 0) << t.workload << ":\n" << out;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace steptp
