// Built-in workloads (frontend/workloads) at their small shape: the C lowering compiles, runs sandboxed and matches
// the interpreter (LEIR.md §10.2, §11). Slow: one compiler run per workload (~1 s each, cached across runs in the
// test cache directory), so `make test` checks every 4th workload (all families) and `make check-all` all 297.
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "base/diag.hpp"
#include "lower_test_util.hpp"
#include "runtime/lower_check.hpp"
#include "test_scope.hpp"

namespace steptp {
namespace {

TEST(LowerCWorkloadsSlow, EveryBuiltInWorkloadAtSmallShape) {
  runtime::LowerCheckOptions o;
  o.compile.cache_dir = testing::test_cache_dir();
  o.compile.flags = "-O1 -fopenmp -shared -fPIC";  // compile speed matters more than kernel speed here
  o.seeds = {0};
  o.limits.timeout_seconds = 60;
  constexpr std::size_t kStride = 4;
  std::size_t checked = 0, i = 0;
  const auto& all = frontend::workloads();
  for (const auto& w : all) {
    if (!testing::sampled(i++, kStride)) continue;
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
  EXPECT_EQ(checked, testing::sample_size(all.size(), kStride));
  EXPECT_GE(all.size(), 290u);
}

}  // namespace
}  // namespace steptp
