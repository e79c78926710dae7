// `steptp generate --timer fixed` on a slice of the built-in default (one workload per family, the cover of every
// strategy with one region: 26 units; the whole default, 98 units, takes ten minutes of two cores) must give the
// same bytes on every build: the SHA-256 of each output file (the SQLite cache excepted) is pinned in
// golden/generate_fixed_default.sha256. A refactor that changes any of them changed behaviour. To change the dataset
// on purpose, regenerate the file with
//   steptp generate --out D --timer fixed --no-progress --per-family 1 --cover-units 1
//   cd D && find . -type f ! -name cache.sqlite | sort | sed 's,^\./,,' | xargs sha256sum
// and say why in the commit message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/hash.hpp"
#include "dataset_test_util.hpp"
#include "base/file_io.hpp"

using namespace steptp::dataset::dstest;
namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> golden_hashes() {
  std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/tests/dataset/golden/generate_fixed_default.sha256");
  std::map<std::string, std::string> out;
  std::string hash, name;
  while (in >> hash >> name) out[name] = hash;
  return out;
}

std::map<std::string, std::string> tree_hashes(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().filename() == "cache.sqlite") continue;
    out[fs::relative(e.path(), root).string()] = steptp::core::sha256_hex(steptp::ir::read_file(e.path().string()));
  }
  return out;
}

}  // namespace

TEST(GenerateGoldenSlow, FixedTimerDefaultRunIsByteIdentical) {
  auto golden = golden_hashes();
  ASSERT_GE(golden.size(), 17u) << "golden file missing or short";
  std::string d = temp_dir("golden");
  ASSERT_EQ(run_cli({"generate", "--out", d + "/o", "--timer", "fixed", "--no-progress", "--per-family", "1",
                     "--cover-units", "1"},
                    d),
            0);
  auto got = tree_hashes(d + "/o");
  for (const auto& [name, hash] : golden) {
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << name << " was not written";
    EXPECT_EQ(it->second, hash) << name << " differs from the golden run";
  }
  for (const auto& [name, hash] : got) EXPECT_TRUE(golden.count(name)) << name << " is new in the output";
  fs::remove_all(d);
}
