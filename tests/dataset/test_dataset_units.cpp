// S2 shape instances that can be measured (issue #9): small instances are grown towards the catalogue default
// until the root runs cfg.target_root_ops statement instances; target 0 keeps the small shapes. S1 ONNX models:
// one unit per extracted task by default, one per whole model with onnx_whole (issue #14).
#include <gtest/gtest.h>

#include "step/equiv.hpp"
#include "dataset/units.hpp"
#include "frontend/workloads.hpp"
#include "strategies/registry.hpp"

#include <map>
#include <set>

using namespace steptp;
using namespace steptp::dataset;

namespace {

std::vector<Unit> plan(const std::string& workload, std::int64_t target) {
  GenConfig c;
  c.workloads = {workload};
  c.instances_per_workload = 1;
  c.target_root_ops = target;
  std::vector<Reject> rejects;
  auto units = plan_units(c, rejects);
  EXPECT_TRUE(rejects.empty());
  return units;
}

TEST(DatasetUnits, SmallInstancesGrowToTheTargetWork) {
  for (const char* w : {"Standard_matrix_multiplication", "ReLU", "softmax", "Sum_reduction_over_a_dimension"}) {
    const auto* wl = frontend::find_workload(w);
    ASSERT_NE(wl, nullptr) << w;
    // target 0: the catalogue's small shape, unchanged
    auto small = plan(w, 0);
    ASSERT_EQ(small.size(), 1u);
    const auto sp = frontend::small_params(*wl);
    for (const auto& [k, v] : sp) EXPECT_EQ(small[0].params[k], v) << w << " " << k;
    const std::int64_t small_ops = statement_instances(emit_root_task(small[0]));
    // target 2^20: grown until the root reaches it, never by more than one growth step (< 4x overshoot here)
    auto grown = plan(w, 1 << 20);
    ASSERT_EQ(grown.size(), 1u);
    const std::int64_t ops = statement_instances(emit_root_task(grown[0]));
    EXPECT_GT(ops, small_ops) << w;
    EXPECT_GE(ops, 1 << 20) << w;
    EXPECT_LT(ops, 4 << 20) << w;
    // deterministic
    EXPECT_EQ(plan(w, 1 << 20)[0].params, grown[0].params);
  }
}

TEST(DatasetUnits, OnnxModelsArePartitionedIntoTaskUnits) {
  GenConfig c;
  c.builtin = false;
  c.onnx_dirs = {std::string(STEPTP_SHARED_DIR) + "/kernelbench-onnx/level2/12_Gemm_Multiply_LeakyReLU"};
  std::vector<Reject> rejects;
  auto units = plan_units(c, rejects);
  EXPECT_TRUE(rejects.empty());
  ASSERT_EQ(units.size(), 1u);  // Gemm with its multiply and LeakyReLU epilogue is one task
  EXPECT_EQ(units[0].name(), "12_Gemm_Multiply_LeakyReLU__0#0");
  EXPECT_EQ(units[0].wl.suite, "level2");
  EXPECT_EQ(units[0].wl.family, "matmul");
  EXPECT_EQ(units[0].wl.kind, SourceKind::SubgraphTask);
  EXPECT_EQ(units[0].wl.weight, 1);
  ASSERT_TRUE(units[0].wl.params);
  EXPECT_EQ(units[0].wl.params->size(), 2u);  // Gemm weight and bias
  ir::Task t = emit_root_task(units[0]);
  EXPECT_EQ(t.workload, "12_Gemm_Multiply_LeakyReLU__0");
  EXPECT_EQ(t.suite, "level2");

  c.onnx_whole = true;  // today's whole-model unit
  rejects.clear();
  units = plan_units(c, rejects);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].name(), "12_Gemm_Multiply_LeakyReLU#0");
  EXPECT_EQ(units[0].wl.kind, SourceKind::Onnx);
  EXPECT_EQ(emit_root_task(units[0]).workload, "12_Gemm_Multiply_LeakyReLU");
}

}  // namespace

// The two cover tests plan the whole small default (every rendered cover sample): Slow, run in the optimised build only
// (over two minutes each under ASan).
// GenConfig::cover_strategies (make run's default set): every registered strategy has a site in the root task of
// some planned unit, at the shapes that will be generated; without it the per-family set misses operator_fission
// (only the Argmax/Argmin workloads have a nest with two statements) and, at grown shapes, tensor_concat.
TEST(DatasetUnitsSlow, CoverStrategiesAddsUnitsForEveryStrategyWithoutASite) {
  auto plan_set = [](const GenConfig& c) {
    std::vector<Reject> rejects;
    return plan_units(c, rejects);
  };
  GenConfig base = GenConfig::small_default();
  base.cover_strategies = false;
  GenConfig covered = base;
  covered.cover_strategies = true;
  const auto without = plan_set(base), with = plan_set(covered);
  std::set<std::string> names_without, names_with;
  for (const auto& u : without) names_without.insert(u.wl.name);
  for (const auto& u : with) names_with.insert(u.wl.name);
  for (const auto& w : names_without) EXPECT_TRUE(names_with.count(w)) << w;  // only additions
  EXPECT_FALSE(names_without.count("Argmax_over_a_dimension"));
  EXPECT_TRUE(names_with.count("Argmax_over_a_dimension"));  // the first catalogue workload with an operator_fission site
  std::vector<ir::Task> roots;
  for (const auto& u : with) roots.push_back(emit_root_task(u));
  // Every strategy that has a site in some catalogue workload has one in the covered set. A few algebraic
  // strategies have none anywhere under the default Prove policy (no workload declares input ranges, so e.g. no
  // log of a product is provably positive): for those the whole catalogue is checked to have no site.
  std::vector<ir::Task> catalogue;
  for (const auto& w : frontend::workloads()) {
    try {
      catalogue.push_back(frontend::emit(w, frontend::small_params(w), ir::DType::F32));
    } catch (const std::exception&) {
    }
  }
  auto has_site = [](const strategy::StrategyInfo& s, const std::vector<ir::Task>& ts) {
    for (const auto& t : ts)
      if (!s.enumerate(t).empty()) return true;
    return false;
  };
  int nowhere = 0;
  for (const auto& s : strategy::registry()) {
    if (has_site(s, roots)) continue;
    EXPECT_EQ(s.family, strategy::Family::Algebraic) << s.name << " has no site in the covered default set";
    EXPECT_FALSE(has_site(s, catalogue)) << s.name << " has a catalogue site but none in the covered default set";
    ++nowhere;
  }
  EXPECT_LE(nowhere, 8);
}

// Quota-aware cover (DATASET.md §2.4, cover_units 3): a strategy that a single catalogue workload hosts is taught on
// further shape instances of it, each root with a site.
TEST(DatasetUnitsSlow, CoverAddsShapeInstancesOfASingleHost) {
  GenConfig c = GenConfig::small_default();
  ASSERT_EQ(c.cover_units, 3);
  std::vector<Reject> rejects;
  const auto units = plan_units(c, rejects);
  const std::vector<std::pair<std::string, std::string>> single_hosts{
      {"Beta_variance_mean_precision", "cancellation"}, {"KLDiv_categorical", "logsimp"}};
  for (const auto& [workload, strategy] : single_hosts) {
    std::set<int> indices;
    for (const auto& u : units)
      if (u.wl.name == workload) {
        indices.insert(u.index);
        EXPECT_FALSE(strategy::find_or_throw(strategy).enumerate(emit_root_task(u)).empty()) << u.name();
      }
    EXPECT_GE(indices.size(), 3u) << workload;
    EXPECT_TRUE(indices.count(0)) << workload;
  }
}
