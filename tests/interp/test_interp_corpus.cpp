// Every corpus task that validates and whose work is under 10^8 statement executions runs in the interpreter
// without error on the §11 inputs (seed 0, N). Slow: about 1.5e9 statement executions in all.
#include <gtest/gtest.h>

#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::interp {
namespace {
using equiv::Distribution;
using equiv::make_inputs;

/// Statement executions of a program: the sum over statements of the product of their enclosing extents.
double work_of(const ir::Program& p) {
  double w = 0;
  ir::for_each_stmt(p, [&](const ir::Stmt&, const std::vector<const ir::Loop*>& loops, std::size_t) {
    double n = 1;
    for (const auto* l : loops) n *= static_cast<double>(l->extent);
    w += n;
  });
  return w;
}

TEST(InterpCorpusSlow, SmallTasksRunWithoutError) {
  const auto tasks = ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl");
  ASSERT_EQ(tasks.size(), 89u);
  int ran = 0, invalid = 0, big = 0;
  for (const auto& te : tasks) {
    ASSERT_TRUE(te.ok) << te.error.full();
    ir::Task copy = te.task;
    if (!ir::analyze(copy).ok()) {
      ++invalid;
      continue;
    }
    const double w = work_of(te.task.program);
    if (w >= 1e8) {
      ++big;
      continue;
    }
    SCOPED_TRACE(te.task.workload);
    try {
      Interpreter it(te.task);
      const TensorMap out = it.run(make_inputs(it, 0, Distribution::Normal));
      EXPECT_EQ(static_cast<double>(it.last_steps()), w);
      for (const auto& k : te.task.known) {
        if (k.role != ir::Role::Output) continue;
        ASSERT_EQ(out.count(k.name), 1u);
        EXPECT_EQ(out.at(k.name).shape, k.shape);
      }
      ++ran;
    } catch (const std::exception& e) {
      ADD_FAILURE() << te.task.workload << ": " << e.what();
    }
  }
  EXPECT_EQ(invalid, 8);  // the MQA family's E203 (LEIR.md §14)
  EXPECT_GE(ran, 40);
  RecordProperty("ran", ran);
  RecordProperty("big", big);
}

// Checked mode (E306/E307, LEIR.md §8.5) finds no conflict in the valid corpus programs it can afford to check.
TEST(InterpCorpus, CheckedModeHasNoFalsePositivesOnSmallTasks) {
  const auto tasks = ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl");
  int ran = 0;
  for (const auto& te : tasks) {
    ir::Task copy = te.task;
    if (!te.ok || !ir::analyze(copy).ok() || work_of(te.task.program) >= 3e6) continue;
    SCOPED_TRACE(te.task.workload);
    Interpreter it(te.task);
    RunOptions checked;
    checked.checked = true;
    const auto inputs = make_inputs(it, 1, Distribution::Uniform);
    TensorMap a, b;
    EXPECT_NO_THROW(a = it.run(inputs, checked));
    b = it.run(inputs);
    for (const auto& [name, t] : b) EXPECT_EQ(a.at(name).data, t.data) << name;  // same values either way
    ++ran;
  }
  EXPECT_EQ(ran, 16);
}

}  // namespace
}  // namespace steptp::interp
