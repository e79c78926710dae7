// Every built-in workload emits valid LEIR (LEIR.md §7) at its default and small shapes, in every dtype it offers;
// parameter resolution and sampling are strict and reproducible.
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

using namespace steptp;

namespace {
std::string errors_of(const ir::Analysis& a) {
  std::string s;
  for (const auto& d : a.diags)
    if (!d.is_warning()) s += d.headline() + "\n";
  return s;
}
}  // namespace

TEST(WorkloadsValid, DefaultAndSmallShapesValidate) {
  for (const auto& w : frontend::workloads()) {
    SCOPED_TRACE(w.name);
    for (bool small : {false, true}) {
      ir::Task t = frontend::emit(w, small ? frontend::small_params(w) : frontend::default_params(w),
                                  ir::DType::F32);
      ir::Analysis a = ir::analyze(t);
      EXPECT_TRUE(a.ok()) << (small ? "small: " : "default: ") << errors_of(a);
      // W005 (an intermediate written, never read) only where the reference does it too.
      for (const auto& d : a.diags)
        if (d.code == "W005") {
          EXPECT_EQ(w.name, "cumsum_exclusive") << d.headline();
        }
    }
  }
}

TEST(WorkloadsValid, EveryOfferedDtypeValidatesAtSmallShapes) {
  for (const auto& w : frontend::workloads()) {
    for (auto dt : w.dtypes) {
      SCOPED_TRACE(w.name + " " + std::string(ir::dtype_name(dt)));
      ir::Task t = frontend::emit(w, frontend::small_params(w), dt);
      ir::Analysis a = ir::analyze(t);
      EXPECT_TRUE(a.ok()) << errors_of(a);
      for (const auto& k : t.known)
        if (ir::is_float(k.dtype)) {
          EXPECT_EQ(k.dtype, dt) << k.name;
        }
    }
  }
}

TEST(WorkloadsValid, ParamErrors) {
  const auto* w = frontend::find_workload("GroupNorm");
  ASSERT_NE(w, nullptr);
  EXPECT_THROW(frontend::emit(*w, {{"nope", 3}}, ir::DType::F32), std::invalid_argument);
  EXPECT_THROW(frontend::emit(*w, {{"groups", 0}}, ir::DType::F32), std::invalid_argument);   // below range
  EXPECT_THROW(frontend::emit(*w, {{"groups", 7}}, ir::DType::F32), std::invalid_argument);   // 64 % 7 != 0
  EXPECT_THROW(frontend::emit(*w, {}, ir::DType::I32), std::invalid_argument);                 // dtype not offered
  // A partial set keeps the other defaults.
  ir::Task t = frontend::emit(*w, {{"groups", 4}}, ir::DType::F32);
  EXPECT_NE(ir::print_program(t.program).find("L^{4}_{a=0}L^{16}_{c=0}"), std::string::npos);
}

TEST(WorkloadsValid, SamplingIsReproducibleAndRespectsRangesAndConstraints) {
  for (const char* name : {"GroupNorm", "GQA_Gemm_Tanh_sum", "conv_grouped_2D", "Max_Pooling_2D", "cumsum"}) {
    SCOPED_TRACE(name);
    const auto* w = frontend::find_workload(name);
    ASSERT_NE(w, nullptr);
    auto a = frontend::sample_params(*w, 12, 7);
    auto b = frontend::sample_params(*w, 12, 7);
    auto c = frontend::sample_params(*w, 12, 8);
    ASSERT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_GE(a.size(), 10u);
    std::set<frontend::Params> distinct(a.begin(), a.end());
    EXPECT_GE(distinct.size(), 5u);
    for (const auto& p : a) {
      EXPECT_EQ(w->constraint(p), "");
      for (const auto& s : w->params) {
        EXPECT_GE(p.at(s.name), s.lo);
        EXPECT_LE(p.at(s.name), s.hi);
      }
      EXPECT_NO_THROW(frontend::resolve_params(*w, p));
    }
  }
  // Constraint actually filters: every GroupNorm draw has features divisible by groups.
  const auto* gn = frontend::find_workload("GroupNorm");
  for (const auto& p : frontend::sample_params(*gn, 30, 1)) EXPECT_EQ(p.at("features") % p.at("groups"), 0);
}
