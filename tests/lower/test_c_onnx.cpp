// Shared KernelBench ONNX models (../shared/kernelbench-onnx/index.json): the imported task lowers to TVMScript, C
// and CUDA text; the C lowering compiles, and — when the task is small enough for the interpreter (≤ 5·10^7
// statement executions) — runs sandboxed and matches the interpreter on seed 0 (N and U). Slow: `make test` checks
// every 3rd model of the index (all levels), `make check-all` every model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frontend/onnx_import.hpp"
#include "base/diag.hpp"
#include "ir/limits.hpp"
#include "lower/lower.hpp"
#include "lower_test_util.hpp"
#include "runtime/lower_check.hpp"
#include "test_scope.hpp"

namespace steptp {
namespace {

TEST(LowerCOnnxSlow, EverySharedModel) {
  const std::string root = std::string(STEPTP_SHARED_DIR) + "/kernelbench-onnx";
  const auto index = nlohmann::json::parse(ir::read_file(root + "/index.json"));
  runtime::LowerCheckOptions o;
  o.compile.cache_dir = testing::test_cache_dir();
  o.compile.flags = "-O1 -fopenmp -shared -fPIC";
  o.seeds = {0};
  o.limits.timeout_seconds = 120;
  int imported = 0, checked = 0;
  std::size_t i = 0;
  for (const auto& m : index) {
    if (!testing::sampled(i++, 3)) continue;
    const std::string path = m.at("path").get<std::string>();
    SCOPED_TRACE(path);
    frontend::OnnxImport imp;
    try {
      imp = frontend::import_onnx(root + "/" + path + "/model.onnx");
    } catch (const std::exception& e) {
      continue;  // unsupported ops are the importer's business (tests/frontend)
    }
    ++imported;
    const ir::Task& t = imp.task;
    EXPECT_NO_THROW(lower::lower_tir(t, true));
    std::string c;
    ASSERT_NO_THROW(c = lower::lower_c(t));
    EXPECT_NO_THROW(lower::lower_cuda(t));
    if (ir::statement_executions(t.program) > 50000000u) {
      EXPECT_NO_THROW(runtime::compile_c(c, o.compile));
      continue;
    }
    const auto r = runtime::check_lowering(t, runtime::LowerTarget::C, o);
    EXPECT_TRUE(r.ok) << r.message;
    ++checked;
  }
  EXPECT_GT(imported, 0);
  std::printf("ONNX models: %d imported, %d compared with the interpreter\n", imported, checked);
}

}  // namespace
}  // namespace steptp
