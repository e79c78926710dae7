// Token counting (src/step/tokens.hpp): the built-in rule approx-v2 on hand-computed strings, the run's counter
// (built-in or a tokenizer file, named by its rule), and the `tokenizer` configuration option.
#include <gtest/gtest.h>

#include <string>

#include "test_paths.hpp"
#include "step/bpe_tokenizer.hpp"
#include "step/config.hpp"
#include "step/tokens.hpp"

namespace steptp::core {
namespace {

TEST(TokenCounter, RuleNamesTheFile) {
  auto c = make_token_counter(steptp_test::step_data("tiny_tokenizer.json"));
  EXPECT_EQ(c->rule(), "bpe:" + BpeTokenizer::from_file(steptp_test::step_data("tiny_tokenizer.json"))->sha256().substr(0, 16));
  EXPECT_EQ(c->count(" the the"), 2);
  EXPECT_EQ(make_token_counter(steptp_test::step_data("tiny_tokenizer.json")).get(), c.get());  // read once per process
  EXPECT_EQ(make_token_counter("")->rule(), "approx-v2");
  EXPECT_EQ(make_token_counter("")->count("abcdefghij"), 2);
}

TEST(TokenRules, ApproxV2HandComputed) {
  EXPECT_EQ(approx_tokens(""), 0);
  EXPECT_EQ(approx_tokens("abcdefghi"), 1);   // ceil(9/9)
  EXPECT_EQ(approx_tokens("abcdefghij"), 2);  // ceil(10/9)
  EXPECT_EQ(approx_tokens("1234"), 4);        // one per digit
  EXPECT_EQ(approx_tokens("x^{8}"), 4);       // x, ^{ (ceil(2/2)), 8, }
  EXPECT_EQ(approx_tokens("a_b"), 2);         // a single _ before a letter joins the word
  EXPECT_EQ(approx_tokens("tx=0}L"), 4);      // tx, = (before a digit: counts), 0, }L
  EXPECT_EQ(approx_tokens("[64, 32]"), 8);    // [ 6 4 , (space before a digit) 3 2 ] -- Qwen3's count too
  EXPECT_EQ(approx_tokens("x;\nB"), 3);       // the newline joins the ';' before it
  EXPECT_EQ(approx_tokens("a\n  b"), 4);      // a, newline, leading run, b
  EXPECT_EQ(approx_tokens("a b"), 2);         // a space before a word is free
  EXPECT_EQ(approx_tokens("\xc3\xa9"), 1);    // one code point
  EXPECT_EQ(approx_tokens("  if\n\n    x = 12;\n"), 10);
  EXPECT_EQ(approx_counter().rule(), "approx-v2");
  EXPECT_EQ(approx_counter().count("[64, 32]"), 8);
}

TEST(TokenCounter, ConfigOptionHashedOnlyWhenSet) {
  dataset::GenConfig g;
  const std::string h0 = g.hash();
  EXPECT_FALSE(g.to_json().contains("tokenizer"));  // so the hash and the caches of runs without it are unchanged
  g.tokenizer = "tok.json";
  EXPECT_EQ(g.to_json()["tokenizer"], "tok.json");
  EXPECT_NE(g.hash(), h0);
  EXPECT_EQ(dataset::GenConfig::from_json(g.to_json()).tokenizer, "tok.json");
  g.tokenizer.clear();
  EXPECT_EQ(g.hash(), h0);
}

}  // namespace
}  // namespace steptp::core
