// `steptp generate --tokenizer` through the built CLI (STEPTP_BINARY): the records' token counts come from the
// tokenizer file and name it; audit and export re-read it; a bad file is D012 before any output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/hash.hpp"
#include "dataset/dataset_test_util.hpp"
#include "base/file_io.hpp"
#include "step/bpe_tokenizer.hpp"

using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;

namespace {

std::string fixture() { return std::string(STEPTP_SOURCE_DIR) + "/tests/step/data/tiny_tokenizer.json"; }

std::vector<std::string> with_tokenizer(std::vector<std::string> a, const std::string& path) {
  a.push_back("--tokenizer");
  a.push_back(path);
  return a;
}

}  // namespace

TEST(TokenizerCli, GenerateCountsWithTheTokenizerAndNamesIt) {
  std::string d = temp_dir("tok");
  std::string tasks = write_tiny_tasks(d);
  // The fixture's vocabulary is tiny (about one token per byte): limits wide enough that S10 keeps its samples.
  const std::string cfg = d + "/wide.json";
  steptp::ir::write_file_atomic(
      cfg, R"({"filter": {"max_prompt_tokens": 100000, "max_completion_tokens": 100000, "max_total_tokens": 200000}})");
  auto args = with_tokenizer(tiny_args(tasks, d + "/o"), fixture());
  args.insert(args.end(), {"--config", cfg});
  ASSERT_EQ(run_cli(args, d), 0) << slurp(d + "/log.txt");
  auto tok = steptp::core::BpeTokenizer::from_file(fixture());
  const std::string rule = "bpe:" + steptp::core::sha256_hex(steptp::ir::read_file(fixture())).substr(0, 16);
  auto recs = read_json_lines(d + "/o/archive/all.jsonl");
  ASSERT_FALSE(recs.empty());
  for (const auto& r : recs) {
    const auto& t = r["tokens"];
    EXPECT_EQ(t["rule"], rule);
    EXPECT_EQ(t["leir_before"].get<std::int64_t>(), tok->count(r["before"]["leir"].get<std::string>()));
    EXPECT_EQ(t["leir_after"].get<std::int64_t>(), tok->count(r["after"]["leir"].get<std::string>()));
    EXPECT_GT(t["completion"].get<std::int64_t>(), t["leir_after"].get<std::int64_t>());
  }
  auto manifest = steptp::core::ojson::parse(slurp(d + "/o/manifest.json"));
  EXPECT_EQ(manifest["config"]["gen"]["tokenizer"], fixture());
  EXPECT_EQ(run_cli({"audit", d + "/o"}, d), 0) << slurp(d + "/log.txt");  // recomputes S10 with the file
  // Without the flag the built-in rule counts, and the configuration (so its hash) has no tokenizer key.
  ASSERT_EQ(run_cli(tiny_args(tasks, d + "/p"), d), 0);
  auto plain = read_json_lines(d + "/p/archive/all.jsonl");
  ASSERT_FALSE(plain.empty());
  EXPECT_EQ(plain[0]["tokens"]["rule"], "approx-v2");
  EXPECT_FALSE(steptp::core::ojson::parse(slurp(d + "/p/manifest.json"))["config"]["gen"].contains("tokenizer"));
  fs::remove_all(d);
}

TEST(TokenizerCli, BadTokenizerFileIsD012) {
  std::string d = temp_dir("badtok");
  std::string tasks = write_tiny_tasks(d);
  EXPECT_EQ(run_cli(with_tokenizer(tiny_args(tasks, d + "/o"), d + "/missing.json"), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("steptp: error: D012 at " + d + "/missing.json: cannot read the tokenizer file"),
            std::string::npos)
      << slurp(d + "/log.txt");
  EXPECT_FALSE(fs::exists(d + "/o"));  // refused before any output
  std::ofstream(d + "/wp.json") << R"({"model": {"type": "WordPiece", "vocab": {}}, "pre_tokenizer": null})";
  EXPECT_EQ(run_cli(with_tokenizer(tiny_args(tasks, d + "/o"), d + "/wp.json"), d), 2);
  EXPECT_NE(slurp(d + "/log.txt").find("D012 at " + d + "/wp.json: not a supported byte-level BPE tokenizer.json: "
                                       "model.type must be \"BPE\""),
            std::string::npos)
      << slurp(d + "/log.txt");
  EXPECT_FALSE(fs::exists(d + "/o"));
  fs::remove_all(d);
}
