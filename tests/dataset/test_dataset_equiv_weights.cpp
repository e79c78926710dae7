// S5 with a model's weights (issue #14): make_reference feeds the given values into every draw, and candidates are
// checked on the reference's inputs, so a rewrite that is right only for the stored weights passes and one that
// is wrong for them fails.
#include <gtest/gtest.h>

#include "../interp/interp_helpers.hpp"
#include "step/equiv.hpp"

namespace steptp::dataset {
namespace {
using namespace steptp::interp::testing;

const std::vector<ir::KnownBuffer> kKnown{in("A", {4}), kb("W", ir::Role::Param, {4}), out("D", {4})};
const char* kTwoW = "L^{4}_{a=0}[D^{f32,g}_{a}=W^{f32,g}_{a}*2+A^{f32,g}_{a};];";
const char* kSquare = "L^{4}_{a=0}[D^{f32,g}_{a}=W^{f32,g}_{a}*W^{f32,g}_{a}+W^{f32,g}_{a}+A^{f32,g}_{a}*1;];";

TEST(DatasetEquivWeights, StoredWeightsEnterEveryDraw) {
  interp::TensorMap w;
  w["W"] = tensor({4}, {1, 0, 1, 0});  // 2W == W*W + W exactly where W is 0 or 1
  EquivConfig cfg;
  const ir::Task t = make_task(kTwoW, kKnown);
  const Reference ref = make_reference(t, "task", cfg, &w);
  ASSERT_EQ(ref.inputs.size(), 4u);  // 3 normal + 1 uniform draw
  for (const auto& in : ref.inputs) EXPECT_EQ(in.at("W").data, (std::vector<double>{1, 0, 1, 0}));
  EXPECT_NE(ref.inputs[0].at("A").data, ref.inputs[1].at("A").data);  // the input is still drawn
  const ir::Task c = make_task(kSquare, kKnown);
  EXPECT_TRUE(check_against(c, ref, 'R', cfg).ok);
  EXPECT_FALSE(check_against(c, make_reference(t, "task", cfg), 'R', cfg).ok);  // drawn W: not equivalent
  w["W"] = tensor({4}, {1, 2, 3, 4});
  EXPECT_EQ(check_against(c, make_reference(t, "task", cfg, &w), 'R', cfg).reason, "not_equivalent");
  w["W"] = tensor({3}, {1, 2, 3});
  EXPECT_THROW(make_reference(t, "task", cfg, &w), std::invalid_argument);
}

}  // namespace
}  // namespace steptp::dataset
