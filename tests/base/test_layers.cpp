// The layers of src/ (README "Layout"): a folder includes only itself and the folders before it in kLayers, so
// base sits under everything, dataset holds the generate pipeline above the step layer that eval and search share,
// and nothing includes the CLI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

const std::vector<std::string> kLayers = {"base",    "ir",    "interp", "equiv",  "strategies", "lower",
                                          "runtime", "frontend", "step", "dataset", "policy",   "eval",
                                          "search",  "report", "fuzz",   "cli"};

int rank_of(const std::string& folder) {
  for (std::size_t i = 0; i < kLayers.size(); ++i)
    if (kLayers[i] == folder) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST(Layers, EveryFolderIsALayer) {
  const std::filesystem::path src = std::filesystem::path(STEPTP_SOURCE_DIR) / "src";
  for (const auto& e : std::filesystem::directory_iterator(src)) {
    if (e.is_directory()) {
      EXPECT_GE(rank_of(e.path().filename().string()), 0) << e.path() << " is in no layer";
    }
  }
}

TEST(Layers, IncludesPointDownOnly) {
  const std::filesystem::path src = std::filesystem::path(STEPTP_SOURCE_DIR) / "src";
  const std::regex include("^#include \"([a-z_]+)/");
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    const std::string folder = std::filesystem::relative(e.path(), src).begin()->string();
    const int own = rank_of(folder);
    std::ifstream in(e.path());
    std::string line;
    ++files;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const int dep = rank_of(m[1].str());
      EXPECT_GE(dep, 0) << e.path() << " includes " << m[1] << "/, which is no folder of src/";
      EXPECT_LE(dep, own) << e.path() << " (" << folder << ") includes " << m[1]
                          << "/, a layer above it (README \"Layout\")";
    }
  }
  EXPECT_GT(files, 400);
}
