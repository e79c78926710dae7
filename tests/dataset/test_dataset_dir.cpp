// dataset_dir.hpp: the stable codes and locations of a directory that is not what a command reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "step/dataset_dir.hpp"
#include "dataset_test_util.hpp"

namespace steptp::dataset {
namespace {

namespace fs = std::filesystem;

/// Runs `f`, which must throw DatasetDirError; returns it.
template <class F>
DatasetDirError thrown(F f) {
  try {
    f();
  } catch (const DatasetDirError& e) {
    return e;
  }
  ADD_FAILURE() << "no DatasetDirError";
  return DatasetDirError("none", "", "");
}

TEST(DatasetDir, ManifestCodesAndLocations) {
  const std::string d = dstest::temp_dir("dsdir");
  auto e = thrown([&] { read_manifest(d + "/missing"); });
  EXPECT_EQ(e.code(), "D001");
  EXPECT_EQ(e.location(), d + "/missing");
  EXPECT_EQ(std::string(e.what()), "D001 at " + d + "/missing: no such dataset directory");
  std::ofstream(d + "/file") << "x";
  EXPECT_EQ(thrown([&] { read_manifest(d + "/file"); }).code(), "D001");
  fs::create_directories(d + "/empty");
  e = thrown([&] { read_manifest(d + "/empty"); });
  EXPECT_EQ(std::string(e.what()), "D001 at " + d + "/empty: not a steptp dataset (no manifest.json; run `steptp generate`)");
  fs::create_directories(d + "/sharded/shards");
  EXPECT_EQ(thrown([&] { read_manifest(d + "/sharded"); }).code(), "D004");
  fs::create_directories(d + "/bad");
  std::ofstream(d + "/bad/manifest.json") << "[1, 2]";  // JSON, but not an object
  e = thrown([&] { read_manifest(d + "/bad"); });
  EXPECT_EQ(e.code(), "D003");
  EXPECT_EQ(e.location(), d + "/bad/manifest.json");
  fs::create_directories(d + "/good");
  std::ofstream(d + "/good/manifest.json") << R"({"schema": "steptp.manifest/1", "complete": true})";
  const ojson m = read_manifest(d + "/good");
  EXPECT_EQ(m.value("schema", ""), "steptp.manifest/1");
  EXPECT_TRUE(m.value("complete", false));
  fs::remove_all(d);
}

TEST(DatasetDir, FilesAndLinesAreLocated) {
  const std::string d = dstest::temp_dir("dsdir-lines");
  auto e = thrown([&] { require_file(d, "eval/val.prompts.jsonl", "the val split's prompt file"); });
  EXPECT_EQ(std::string(e.what()), "D002 at " + d + "/eval/val.prompts.jsonl: the val split's prompt file is missing");
  std::ofstream(d + "/a.jsonl") << "{\"x\": 1}\n\n  \n{\"x\": 2}\n{\"x\": \n";
  EXPECT_EQ(require_file(d, "a.jsonl", "records"), d + "/a.jsonl");
  e = thrown([&] { read_jsonl(d + "/a.jsonl"); });
  EXPECT_EQ(e.code(), "D003");
  EXPECT_EQ(e.location(), d + "/a.jsonl:5");  // blank lines count in the line number
  std::ofstream(d + "/b.jsonl") << "{\"x\": 1}\n\n{\"x\": 2}\n";
  const auto v = read_jsonl(d + "/b.jsonl");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].value("x", 0), 2);
  EXPECT_EQ(thrown([&] { read_jsonl(d + "/none.jsonl"); }).code(), "D002");
  fs::remove_all(d);
}

}  // namespace
}  // namespace steptp::dataset
