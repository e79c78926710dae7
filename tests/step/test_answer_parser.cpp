// The strict answer parser (DATASET.md §8, §12): the §5.3 answer is accepted; nothing is repaired.
#include <gtest/gtest.h>

#include "step/answer_parser.hpp"

namespace steptp::core {
namespace {

const std::string kLeir =
    "B^{64}_{tx=0}L^{6}_{d=0}L^{8}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,d*8+a}=D^{f32,g}_{tx,d*8+a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,d*8+a};];";
const std::string kAnswer = R"({"applied_strategy": "loop_split", "transformed_IR": ")" + kLeir + R"("})";
const std::string kReply = "<think>\nObservation:\n- x\n</think>\n<answer>" + kAnswer + "</answer>";

TEST(AnswerParser, AcceptsTheSpecExample) {
  ParsedAnswer a = parse_answer(kReply, 1);
  ASSERT_TRUE(a.ok) << a.reason << ": " << a.detail;
  ASSERT_EQ(a.programs.size(), 1u);
  EXPECT_EQ(a.programs[0].strategy, "loop_split");
  EXPECT_EQ(a.programs[0].leir, kLeir);
  EXPECT_TRUE(a.think_present);
  EXPECT_EQ(a.think, "Observation:\n- x");
}

TEST(AnswerParser, MissingThinkIsNotedNotFatal) {
  ParsedAnswer a = parse_answer("<answer>\n  " + kAnswer + "\n</answer>\n", 1);
  ASSERT_TRUE(a.ok);
  EXPECT_FALSE(a.think_present);
}

TEST(AnswerParser, RejectsWithoutRepair) {
  auto reason = [](const std::string& reply, int n = 1, bool truncated = false) { return parse_answer(reply, n, truncated).reason; };
  EXPECT_EQ(reason("<answer>{'applied_strategy': 'loop_split', 'transformed_IR': 'x'}</answer>"), "not_json");
  EXPECT_EQ(reason(R"(<answer>{"applied_strategies": "loop_split", "transformed_IR": "x"}</answer>)"), "wrong_keys");
  EXPECT_EQ(reason(R"(<answer>{"applied_strategy": "loop_split", "transformed_IR": "x",}</answer>)"), "not_json");
  EXPECT_EQ(reason("<answer>" + kAnswer + "<\\answer>"), "no_answer_block");
  EXPECT_EQ(reason(R"(<answer>{"applied_strategy": "a", "transformed_IR": "x", "extra": 1}</answer>)"), "wrong_keys");
  EXPECT_EQ(reason(R"(<answer>{"applied_strategy": "a", "applied_strategy": "b", "transformed_IR": "x"}</answer>)"), "duplicate_key");
  EXPECT_EQ(reason(R"(<answer>{"applied_strategy": 3, "transformed_IR": "x"}</answer>)"), "not_a_string");
  EXPECT_EQ(reason("<answer>[" + kAnswer + "]</answer>"), "wrong_shape");   // n = 1 wants an object
  EXPECT_EQ(reason("<answer>" + kAnswer + "</answer>", 3), "wrong_shape");  // n >= 2 wants an array
  EXPECT_EQ(reason("<answer>[]</answer>", 2), "empty_array");
  EXPECT_EQ(reason("<answer>" + kAnswer + "</answer><answer>" + kAnswer + "</answer>"), "multiple_answer_blocks");
  EXPECT_EQ(reason(kReply, 1, /*truncated=*/true), "truncated");
  EXPECT_EQ(reason("  \n"), "empty_reply");
  EXPECT_EQ(reason("<think>\n<answer>" + kAnswer + "</answer>\n</think>\n"), "no_answer_block");  // only inside think
  EXPECT_EQ(reason("<answer>/* c */" + kAnswer + "</answer>"), "not_json");
}

TEST(AnswerParser, MultiAnswerArray) {
  std::string two = "<answer>[" + kAnswer + ", " + R"({"applied_strategy": "loop_reorder", "transformed_IR": "y"})" + "]</answer>";
  ParsedAnswer a = parse_answer("<think>\nx\n</think>\n" + two, 2);
  ASSERT_TRUE(a.ok) << a.detail;
  ASSERT_EQ(a.programs.size(), 2u);
  EXPECT_EQ(a.programs[1].strategy, "loop_reorder");
  EXPECT_EQ(a.programs[1].leir, "y");
  EXPECT_EQ(parse_answer("<answer>[" + kAnswer + ", 3]</answer>", 2).reason, "wrong_shape");
}

TEST(AnswerParser, TheLastThinkCloseDecides) {
  // an answer-like text inside the reasoning is ignored; the one after the last </think> counts
  ParsedAnswer a = parse_answer("<think>\n<answer>{}</answer>\n</think>\n<answer>" + kAnswer + "</answer>", 1);
  ASSERT_TRUE(a.ok) << a.detail;
  EXPECT_EQ(a.programs[0].strategy, "loop_split");
}

}  // namespace
}  // namespace steptp::core

// Issue #48 item 2: a number the JSON library cannot hold (1e999) is that answer's `not_json` parse failure; it used to
// escape as an uncaught out_of_range and stop eval.
namespace steptp::core {
namespace {
TEST(AnswerParser, NumberOverflowIsNotJson) {
  const ParsedAnswer a = parse_answer(R"(<answer>{"applied_strategy": 1e999, "transformed_IR": "x"}</answer>)", 1);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.reason, "not_json");
  EXPECT_NE(a.detail.find("number overflow"), std::string::npos) << a.detail;
}
}  // namespace
}  // namespace steptp::core
