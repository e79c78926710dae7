// Property test of the graph (0-2) and memory (18-22) strategies over the built-in workloads at their small
// shapes (STRATEGIES.md §2 rule 2): every candidate validates (apply runs the validator) and passes the numeric
// check in its class (class E: bit-identical). Candidates are sampled per (workload, strategy) with a fixed seed
// (the driver's sampler) to keep the suite CI-sized; the sample is deterministic. Enumeration itself runs on every
// workload.
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "graph_memory_test_util.hpp"
#include "strategies/sample.hpp"

namespace st = steptp::strategy;
namespace fe = steptp::frontend;

namespace {
const char* kMine[] = {"operator_fusion", "operator_fission", "compute_inline", "cache_read_write",
                       "layout_transformation", "set_storage_scope", "set_storage_layout", "precompute_indices"};
}

TEST(GraphMemoryPropertySlow, WorkloadsSmallShapes) {
  std::map<std::string, std::size_t> checked, enumerated;
  std::size_t tasks = 0;
  for (const auto& w : fe::workloads()) {
    steptp::ir::Task t;
    try {
      t = fe::emit(w, fe::small_params(w), steptp::ir::DType::F32);
    } catch (const std::exception&) {
      continue;
    }
    ++tasks;
    for (const char* name : kMine) {
      auto all = st::enumerate_candidates(*st::find(name), t);
      enumerated[name] += all.size();
      for (const auto& c : st::sample_candidates(all, 2, tasks)) {
        st::Applied a;
        try {
          a = st::find(name)->apply(t, c);
        } catch (const std::exception& e) {
          ADD_FAILURE() << w.name << ": " << c.id() << " threw " << e.what();
          continue;
        }
        EXPECT_TRUE(st::testing::equivalent_in_class(t, a)) << w.name;
        ++checked[name];
      }
    }
  }
  EXPECT_GT(tasks, 200u);
  for (const char* name : kMine) {
    std::cout << name << ": " << enumerated[name] << " candidates enumerated, " << checked[name] << " checked\n";
    EXPECT_GT(checked[name], 0u) << name;
  }
}
