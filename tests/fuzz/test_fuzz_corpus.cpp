// Runs the fuzz target's body over every file of the committed regression corpus fuzz/corpus/, so crash
// regressions run in `make test` (and under ASan/UBSan in `make asan`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../fuzz/fuzz_one.hpp"

namespace fs = std::filesystem;

TEST(FuzzCorpus, EverySeedParsesAndAnalyzesWithoutCrashing) {
  const fs::path dir = fs::path(STEPTP_SOURCE_DIR) / "fuzz" / "corpus";
  ASSERT_TRUE(fs::is_directory(dir));
  int files = 0, parsed = 0, with_errors = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    ++files;
    try {
      steptp::ir::parse_program(bytes);
      ++parsed;
    } catch (const steptp::ir::LeirError&) {
    }
    int errors = steptp::fuzz::fuzz_one(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    with_errors += errors > 0;
  }
  EXPECT_GE(files, 30);
  EXPECT_GE(parsed, 20);        // most seeds are programs, so the validator really runs
  EXPECT_GE(with_errors, 10);   // and many of them hit validator errors (the §12 examples)
}
