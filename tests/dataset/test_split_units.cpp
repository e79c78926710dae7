// Long built-in tasks split into subgraph tasks (dataset/split_units.hpp, DATASET.md §2.2 "Long built-in tasks").
#include <gtest/gtest.h>

#include "dataset/split_units.hpp"
#include "frontend/partition.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "step/prompt.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy_lock.hpp"

using namespace steptp;
using namespace steptp::dataset;

namespace {

std::vector<Unit> plan_small(const std::string& workload) {
  GenConfig c;
  c.workloads = {workload};
  c.instances_per_workload = 1;
  c.target_root_ops = 0;  // the catalogue's small shape
  std::vector<Reject> rejects;
  auto units = plan_units(c, rejects);
  EXPECT_TRUE(rejects.empty());
  return units;
}

std::int64_t statements(const ir::Task& t) {
  std::int64_t n = 0;
  ir::for_each_stmt(t.program, [&](const ir::Stmt&, const std::vector<const ir::Loop*>&, std::size_t) { ++n; });
  return n;
}

/// The root's prompt tokens under the built-in rule, as the pipeline counts them.
std::int64_t prompt_tokens(const Unit& u) {
  const ir::Task t = emit_root_task(u);
  return approx_counter().count(render_system()) +
         approx_counter().count(render_user(u.wl.name, ir::print_program(t.program), t.known, 1));
}

}  // namespace

TEST(SplitUnits, RootTooLongFollowsTheLimitsWithTheReasoningReserve) {
  FilterConfig f;  // 3072 / 3072 / 6144
  EXPECT_FALSE(root_too_long(3072, 3072 - kReasoningReserve, f));  // every limit met exactly
  EXPECT_TRUE(root_too_long(3073, 0, f));                          // the prompt
  EXPECT_TRUE(root_too_long(100, 3072 - kReasoningReserve + 1, f));  // the answer
  f.max_total_tokens = 5000;
  EXPECT_TRUE(root_too_long(2500, 2000, f));   // 2500 + 2512 > 5000
  EXPECT_FALSE(root_too_long(2488, 2000, f));  // 2488 + 2512 = 5000
}

TEST(SplitUnits, ATooLongBuiltinBecomesItsSubgraphTasks) {
  const auto units = plan_small("MHA_Gemm_GeLU_mean");
  ASSERT_EQ(units.size(), 1u);
  const ir::Task root = emit_root_task(units[0]);
  FilterConfig f;
  f.max_prompt_tokens = int(prompt_tokens(units[0]));  // fits exactly: stays whole
  f.max_completion_tokens = f.max_total_tokens = 1 << 20;
  auto same = split_long_units(units, f, approx_counter());
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].wl.kind, SourceKind::Builtin);

  f.max_prompt_tokens -= 1;  // one token over: split
  const auto pieces = split_long_units(units, f, approx_counter());
  ASSERT_GE(pieces.size(), 3u);  // projections, scores + softmax + PV, the Gemm epilogue and the mean
  std::int64_t covered = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const Unit& p = pieces[k];
    EXPECT_EQ(p.wl.kind, SourceKind::SubgraphTask);
    EXPECT_EQ(p.wl.suite, "level2");
    EXPECT_EQ(p.wl.family, "attention");
    EXPECT_EQ(p.index, 0);
    EXPECT_EQ(p.params, units[0].params);
    EXPECT_EQ(p.wl.params, nullptr);
    ir::Task t = emit_root_task(p);
    EXPECT_EQ(t.workload.rfind("MHA_Gemm_GeLU_mean__", 0), 0u) << t.workload;
    EXPECT_EQ(p.name(), t.workload + "#0");
    EXPECT_NO_THROW(ir::validate_or_throw(t)) << p.name();
    EXPECT_LT(prompt_tokens(p), prompt_tokens(units[0])) << p.name();
    covered += statements(t) * p.wl.weight;
  }
  EXPECT_EQ(covered, statements(root));  // every statement of the root is in exactly one piece
  // the attention core stays in one piece: flashattention_wo_tiling has its site there as on the root
  const auto& flash = strategy::find_or_throw("flashattention_wo_tiling");
  ASSERT_FALSE(strategy::locked_enumerate(flash, root).empty());
  int with_site = 0;
  for (const auto& p : pieces) with_site += !strategy::locked_enumerate(flash, emit_root_task(p)).empty();
  EXPECT_EQ(with_site, 1);
  for (std::size_t k = 1; k < pieces.size(); ++k) EXPECT_LT(pieces[k - 1].wl.name, pieces[k].wl.name);
}

TEST(SplitUnits, PiecesKeepTheDeclaredInputRanges) {
  // The partition of a root, each nest one node (as split_long_units builds it), with its first input declared
  // positive: every piece that reads that input declares it, and no other input gains a range.
  ir::Task root = emit_root_task(plan_small("MHA_Gemm_GeLU_mean")[0]);
  ASSERT_EQ(root.known[0].role, ir::Role::Input);
  root.known[0].range = ir::ValueRange::Positive;
  frontend::OnnxImport imp;
  imp.task = root;
  for (std::size_t n = 0; n < root.program.nests.size(); ++n) imp.provenance.push_back({"n", "", n, n + 1});
  const auto part = frontend::partition_import(imp, "MHA_Gemm_GeLU_mean");
  ASSERT_GE(part.tasks.size(), 2u);
  int declared = 0;
  for (const auto& pt : part.tasks)
    for (const auto& k : pt.task.known)
      if (k.range != ir::ValueRange::Any) {
        ++declared;
        EXPECT_EQ(k.shape, root.known[0].shape);
        EXPECT_EQ(k.range, ir::ValueRange::Positive);
      }
  EXPECT_GE(declared, 1);
}

TEST(SplitUnits, OnlyBuiltinUnitsAreSplit) {
  auto units = plan_small("MHA");
  ASSERT_EQ(units.size(), 1u);
  units[0].wl.kind = SourceKind::SubgraphTask;
  units[0].wl.task = std::make_shared<const ir::Task>(emit_root_task(plan_small("MHA")[0]));
  FilterConfig f;
  f.max_prompt_tokens = 1;
  const auto out = split_long_units(units, f, approx_counter());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].wl.name, "MHA");
}
