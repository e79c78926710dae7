// The Markdown tables rendered from base/error_codes.def are the ones in the documentation: docs/errors.md (every
// code, between `<!-- codes:begin -->` and `<!-- codes:end -->`) and README.md (the exit statuses, between
// `<!-- exit-statuses:begin -->` and `<!-- exit-statuses:end -->`).
// After a change to the table, regenerate both blocks with
//   STEPTP_UPDATE_DOCS=1 build/steptp_tests --gtest_filter='ErrorDocs.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "base/error_codes.hpp"

namespace steptp {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Checks (or, with STEPTP_UPDATE_DOCS set, rewrites) the lines between `<!-- NAME:begin -->` and
/// `<!-- NAME:end -->` of the file at `rel` (relative to the source directory).
void expect_block(const std::string& rel, const std::string& name, const std::string& want) {
  const std::string path = std::string(STEPTP_SOURCE_DIR) + "/" + rel;
  std::string text = read_all(path);
  ASSERT_FALSE(text.empty()) << path;
  const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
  const auto b = text.find(begin);
  ASSERT_NE(b, std::string::npos) << rel << " has no " << begin;
  const auto from = b + begin.size();
  const auto e = text.find(end, from);
  ASSERT_NE(e, std::string::npos) << rel << " has no " << end;
  if (std::getenv("STEPTP_UPDATE_DOCS")) {
    text.replace(from, e - from, want);
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  EXPECT_EQ(text.substr(from, e - from), want)
      << rel << ": the " << name << " table differs from base/error_codes.def; regenerate it with "
      << "STEPTP_UPDATE_DOCS=1 build/steptp_tests --gtest_filter='ErrorDocs.*'";
}

TEST(ErrorDocs, CodeTableIsTheRenderedOne) { expect_block("docs/errors.md", "codes", render_codes_markdown()); }

TEST(ErrorDocs, ReadmeExitStatusTableIsTheRenderedOne) {
  expect_block("README.md", "exit-statuses", render_exit_statuses_markdown());
}

TEST(ErrorDocs, RenderedTablesHaveOneLinePerRow) {
  const std::string codes = render_codes_markdown();
  std::size_t lines = 0, coded = 0;
  for (char c : codes) lines += c == '\n';
  for (const auto& row : all_codes()) coded += !row.text.empty();
  EXPECT_EQ(lines, coded + 2);  // header and separator
  EXPECT_NE(codes.find("| E504 | LEIR equivalence | check failed | 1 | output mismatch |\n"), std::string::npos);
  EXPECT_NE(render_exit_statuses_markdown().find("| 70 | "), std::string::npos);
}

}  // namespace
}  // namespace steptp
