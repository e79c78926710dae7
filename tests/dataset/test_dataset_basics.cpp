// Unit tests of the dataset building blocks: hashing and the DATASET.md §4 test vectors, seeded randomness,
// approx-v1 tokens, JSON text forms, the SQLite cache, the strict answer parser and the chat-line schema.
#include <gtest/gtest.h>

#include <filesystem>

#include "step/cache.hpp"
#include "step/chat_schema.hpp"
#include "base/hash.hpp"
#include "base/json_text.hpp"
#include "step/reasoning.hpp"
#include "base/rng.hpp"
#include "step/tokens.hpp"
#include "dataset_test_util.hpp"

using namespace steptp::dataset;

TEST(DatasetHash, Sha256KnownAnswers) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // 56 bytes: padding spills into a second block
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// DATASET.md §4 example: ids and seeds follow §3 and §11 exactly, so they serve as test vectors.
TEST(DatasetHash, SpecTestVectors) {
  const std::string known =
      R"([{"dtype":"f32","name":"A","role":"input","shape":[64,32]},{"dtype":"f32","name":"C","role":"input","shape":[32,48]},{"dtype":"f32","name":"D","role":"output","shape":[64,48]}])";
  const std::string leir =
      "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];";
  std::string tk = H({"steptp.task/1", "Standard_matrix_multiplication", known, leir});
  EXPECT_EQ(tk.substr(0, 32), "15341dbbec5c6bfd2d304d8894e7bf70");
  ojson params{{"candidate", "loop_split@0/l1{outer=6}"}, {"values", {{"outer", 6}}}};
  std::string ck = H({"steptp.cand/1", tk, "loop_split", canonical_json(params), "1"});
  EXPECT_EQ(ck.substr(0, 32), "44d69ff4eaf48d6f27a6d7ca5239095f");
  EXPECT_EQ(hex16(derive(20260525, "instance", {"Standard_matrix_multiplication", "7", "0"})), "a077efc3dd37f3b4");
  EXPECT_EQ(hex16(derive(20260525, "candidate", {tk, "loop_split"})), "475ded4b309c2a44");
  EXPECT_EQ(hex16(derive(20260525, "equiv", {tk, "0"})), "dcf20f59f062a858");
  EXPECT_EQ(hex16(derive(20260525, "equiv", {tk, "3"})), "c96d469a1ad13303");
}

TEST(DatasetRng, PortableAndInRange) {
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.below(7), b.below(7));
  Rng c(1);
  std::vector<int> hist(5, 0);
  for (int i = 0; i < 5000; ++i) hist[c.below(5)]++;
  for (int h : hist) EXPECT_GT(h, 800);
  // std::mt19937_64 output is fixed by the standard: the 10000th draw of the default seed
  std::mt19937_64 g;
  g.discard(9999);
  EXPECT_EQ(g(), 9981545732273789042ull);
  Rng d(7);
  std::vector<int> v{0, 1, 2, 3, 4, 5};
  d.shuffle(v);
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  double r = Rng(3).real01();
  EXPECT_GE(r, 0.0);
  EXPECT_LT(r, 1.0);
}

TEST(DatasetTokens, ApproxV1Rule) {
  EXPECT_EQ(approx_tokens_v1(""), 0);
  EXPECT_EQ(approx_tokens_v1("abcd"), 1);
  EXPECT_EQ(approx_tokens_v1("abcde"), 2);       // ceil(5/4)
  EXPECT_EQ(approx_tokens_v1("1234"), 2);        // ceil(4/3)
  EXPECT_EQ(approx_tokens_v1("a b"), 2);         // spaces inside a line count 0
  EXPECT_EQ(approx_tokens_v1("a\n  b"), 4);      // a, newline, leading run, b
  EXPECT_EQ(approx_tokens_v1("x^{8}"), 5);       // x ^ { 8 }
  EXPECT_EQ(approx_tokens_v1("\xc3\xa9"), 1);    // one code point
}

TEST(DatasetJson, PythonLayoutAndCanonical) {
  ojson j;
  j["b"] = 1;
  j["a"] = {1.5, "x"};
  j["c"] = std::nan("");
  EXPECT_EQ(dump_py(j), R"({"b": 1, "a": [1.5, "x"], "c": null})");
  EXPECT_EQ(canonical_json(j), R"({"a":[1.5,"x"],"b":1,"c":null})");
  EXPECT_EQ(fmt_number(ojson(7.384615384615385)), "7.38");
  EXPECT_EQ(fmt_number(ojson(98304)), "98304");
  EXPECT_EQ(fmt_number(ojson(2.675)), "2.67");  // correctly rounded: the double is 2.67499999...
}

TEST(DatasetCache, PersistsAndCounts) {
  std::string dir = dstest::temp_dir("cache");
  std::string path = dir + "/c.sqlite";
  {
    Cache c(path);
    EXPECT_FALSE(c.get("candidates", "k1"));
    c.put("candidates", "k1", "v1");
    EXPECT_EQ(*c.get("candidates", "k1"), "v1");
    EXPECT_EQ(c.counters()["candidates"], (std::pair<std::int64_t, std::int64_t>{1, 1}));
    EXPECT_THROW(c.get("nope", "k"), std::invalid_argument);
  }
  Cache again(path);
  EXPECT_EQ(*again.get("candidates", "k1"), "v1");
  EXPECT_EQ(again.count("candidates"), 1);
  again.clear("candidates");
  EXPECT_EQ(again.count("candidates"), 0);
  std::filesystem::remove_all(dir);
}

TEST(DatasetChatSchema, StrictAnswerParser) {
  auto ok = parse_answer("<think>\nx\n</think>\n<answer>{\"applied_strategy\": \"loop_split\", \"transformed_IR\": \"P\"}</answer>", 1);
  ASSERT_TRUE(ok.ok) << ok.detail;
  EXPECT_EQ(ok.programs[0].strategy, "loop_split");
  EXPECT_TRUE(ok.think_present);
  EXPECT_FALSE(parse_answer("<answer>{'applied_strategy': 'a', 'transformed_IR': 'b'}</answer>", 1).ok);
  EXPECT_FALSE(parse_answer("<answer>{\"applied_strategies\": \"a\", \"transformed_IR\": \"b\"}</answer>", 1).ok);
  EXPECT_FALSE(parse_answer("<answer>{\"applied_strategy\": \"a\", \"transformed_IR\": \"b\",}</answer>", 1).ok);
  EXPECT_FALSE(parse_answer("<answer>{\"applied_strategy\": \"a\", \"transformed_IR\": \"b\"}<\\answer>", 1).ok);
  EXPECT_FALSE(parse_answer("<answer>{\"applied_strategy\": \"a\", \"transformed_IR\": \"b\"}</answer>", 2).ok);
  auto multi = parse_answer("<answer>[{\"applied_strategy\": \"a\", \"transformed_IR\": \"b\"}, "
                            "{\"applied_strategy\": \"c\", \"transformed_IR\": \"d\"}]</answer>", 2);
  ASSERT_TRUE(multi.ok);
  EXPECT_EQ(multi.programs.size(), 2u);
}

TEST(DatasetChatSchema, LineShape) {
  ojson good = ojson::parse(R"({"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Task: apply one optimisation strategy x"}, {"role": "assistant", "content": "<think>\nr\n</think>\n<answer>{\"applied_strategy\": \"a\", \"transformed_IR\": \"b\"}</answer>"}]})");
  EXPECT_TRUE(chat_line_errors(good).empty());
  ojson extra = good;
  extra["id"] = 1;
  EXPECT_FALSE(chat_line_errors(extra).empty());
  ojson swapped = good;
  swapped["messages"][0]["role"] = "user";
  EXPECT_FALSE(chat_line_errors(swapped).empty());
}
