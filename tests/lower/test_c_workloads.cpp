// Every built-in workload (frontend/workloads) at its small shape: the C lowering compiles, runs sandboxed and
// matches the interpreter (LEIR.md §10.2, §11). Slow: one compiler run per workload (~1 s each, cached across runs
// in the test cache directory).
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "ir/diag.hpp"
#include "lower_test_util.hpp"
#include "runtime/lower_check.hpp"

namespace steptp {
namespace {

TEST(LowerCWorkloadsSlow, EveryBuiltInWorkloadAtSmallShape) {
  runtime::LowerCheckOptions o;
  o.compile.cache_dir = testing::test_cache_dir();
  o.compile.flags = "-O1 -fopenmp -shared -fPIC";  // compile speed matters more than kernel speed here
  o.seeds = {0};
  o.limits.timeout_seconds = 60;
  int checked = 0;
  for (const auto& w : frontend::workloads()) {
    SCOPED_TRACE(w.name);
    ir::Task t;
    try {
      t = frontend::emit(w, frontend::small_params(w), ir::DType::F32);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "emit: " << e.what();
      continue;
    }
    try {
      const auto r = runtime::check_lowering(t, runtime::LowerTarget::C, o);
      EXPECT_TRUE(r.ok) << r.message;
      ++checked;
    } catch (const ir::LeirError& e) {
      ADD_FAILURE() << "invalid workload task: " << e.diag().headline();
    }
  }
  EXPECT_GE(checked, 200);
}

}  // namespace
}  // namespace steptp
