// base/error_codes.def: the one table of stable codes (unique, complete rows, kind -> exit status), steptp::Error
// and its subclasses, and the Markdown tables rendered from it (docs/errors.md, README "Exit statuses").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/error.hpp"
#include "base/error_codes.hpp"
#include "base/exit_status.hpp"
#include "step/dataset_dir.hpp"
#include "base/diag.hpp"
#include "strategies/registry.hpp"

namespace steptp {
namespace {

TEST(ErrorCodes, EveryRowIsCompleteAndUnique) {
  std::set<std::string_view> seen;
  std::size_t coded = 0;
  const std::regex shape("[EWDSU][0-9]{3}");
  for (const auto& row : all_codes()) {
    EXPECT_EQ(&info(row.id), &row);
    EXPECT_FALSE(row.meaning.empty()) << row.text;
    EXPECT_NE(code_family_name(row.family), "?") << row.text;
    EXPECT_NE(error_kind_name(row.kind), "?") << row.text;
    if (row.text.empty()) {
      EXPECT_EQ(row.family, CodeFamily::Uncoded);
      continue;
    }
    ++coded;
    EXPECT_TRUE(std::regex_match(std::string(row.text), shape)) << row.text;
    EXPECT_TRUE(seen.insert(row.text).second) << "duplicate " << row.text;
    EXPECT_EQ(code_from_text(row.text), row.id) << row.text;
    EXPECT_EQ(code_text(row.id), row.text);
    // The letter agrees with the family, and warnings (only they) are of kind Warning.
    const char letter = row.text[0];
    EXPECT_EQ(letter == 'W', row.kind == ErrorKind::Warning) << row.text;
    EXPECT_EQ(letter == 'W', row.family == CodeFamily::LeirWarning) << row.text;
    EXPECT_EQ(letter == 'D', row.family == CodeFamily::Dataset) << row.text;
    EXPECT_EQ(letter == 'S', row.family == CodeFamily::Strategy) << row.text;
    EXPECT_EQ(letter == 'U', row.family == CodeFamily::Usage) << row.text;
  }
  EXPECT_GE(coded, 90u);
  EXPECT_EQ(code_from_text(""), std::nullopt);
  EXPECT_EQ(code_from_text("E999"), std::nullopt);
  EXPECT_EQ(code_or("nope"), Code::UncodedInput);
}

TEST(ErrorCodes, KindsMapToTheExitStatuses) {
  EXPECT_EQ(exit_status(ErrorKind::User), 2);
  EXPECT_EQ(exit_status(ErrorKind::CheckFailed), 1);
  EXPECT_EQ(exit_status(ErrorKind::Internal), 70);
  EXPECT_EQ(exit_status(ErrorKind::Warning), 0);
  EXPECT_EQ(info(Code::E108).exit_status(), 2);
  EXPECT_EQ(info(Code::E504).exit_status(), 1);
  EXPECT_EQ(info(Code::E502).exit_status(), 2);  // inconclusive: the original fails to run
  EXPECT_EQ(info(Code::E301).exit_status(), 1);
  EXPECT_EQ(info(Code::E309).exit_status(), 2);  // over a budget: refused, bad input
  EXPECT_EQ(info(Code::D006).exit_status(), 1);  // audit failures
  EXPECT_EQ(info(Code::W004).exit_status(), 0);
  EXPECT_EQ(info(Code::S003).kind, ErrorKind::Internal);
  EXPECT_EQ(info(Code::U001).kind, ErrorKind::User);
}

// The spec (docs/LEIR.md §12 and its warnings) and the table name the same E and W codes.
TEST(ErrorCodes, TheSpecCodesAreInTheTable) {
  std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/docs/LEIR.md");
  ASSERT_TRUE(in) << "docs/LEIR.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::regex code(R"(\b([EW][0-9]{3})\b)");
  std::set<std::string> in_spec;
  for (std::sregex_iterator it(text.begin(), text.end(), code), end; it != end; ++it) {
    in_spec.insert((*it)[1].str());
    EXPECT_TRUE(code_from_text((*it)[1].str()).has_value()) << (*it)[1].str() << " of LEIR.md has no row";
  }
  EXPECT_GT(in_spec.size(), 60u);
  for (const auto& row : all_codes()) {
    const std::string t(row.text);
    if (!t.empty() && (t[0] == 'E' || t[0] == 'W')) {
      EXPECT_TRUE(in_spec.count(t)) << t << " is in the table but not in docs/LEIR.md";
    }
  }
}

TEST(Error, SubclassesCarryTheCodeAndKeepTheirText) {
  const ir::LeirError le(Code::E108, "cannot read file: is a directory", 0, "/tmp");
  EXPECT_EQ(le.id(), Code::E108);
  EXPECT_EQ(le.code(), "E108");
  EXPECT_EQ(le.code_text(), "E108");
  EXPECT_EQ(le.where().path, "/tmp");
  EXPECT_EQ(le.message(), "cannot read file: is a directory");
  EXPECT_EQ(std::string(le.what()), "LEIR-E108 at /tmp: cannot read file: is a directory");
  EXPECT_EQ(le.kind(), ErrorKind::User);
  EXPECT_EQ(ir::LeirError("E004", "empty subscript", 23).id(), Code::E004);  // a code given as text

  const dataset::DatasetDirError de(Code::D001, "/x", "no such dataset directory");
  EXPECT_EQ(std::string(de.what()), "D001 at /x: no such dataset directory");
  EXPECT_EQ(de.code(), "D001");
  EXPECT_EQ(de.location(), "/x");
  EXPECT_EQ(de.id(), Code::D001);

  const strategy::StrategyError se(Code::S001, "stale site: x");
  EXPECT_EQ(std::string(se.what()), "stale site: x");
  EXPECT_EQ(se.code(), "S001");

  const Error* as_error = &le;  // one type to catch
  EXPECT_EQ(as_error->exit_status(), 2);
}

TEST(Error, OneMappingFromExceptionsToExitStatuses) {
  using core::exit_status_of;
  EXPECT_EQ(exit_status_of(ir::LeirError(Code::E108, "cannot read file", 0, "f")), 2);
  EXPECT_EQ(exit_status_of(ir::LeirError(Code::E301, "read of uninitialised element")), 1);
  EXPECT_EQ(exit_status_of(dataset::DatasetDirError(Code::D002, "d", "missing")), 2);
  EXPECT_EQ(exit_status_of(strategy::StrategyError(Code::S003, "result failed validation")), 70);
  EXPECT_EQ(exit_status_of(Error(Code::UncodedInput, "bad flag")), 2);
  EXPECT_EQ(exit_status_of(std::runtime_error("x")), 2);
  EXPECT_EQ(exit_status_of(std::invalid_argument("x")), 2);
  EXPECT_EQ(exit_status_of(std::logic_error("bug")), 70);
  EXPECT_FALSE(core::is_input_error(Error(Code::UncodedInternal, "bug")));
}

// No source file outside the table spells a code as a string literal.
TEST(ErrorCodes, CodeLiteralsOnlyInTheTable) {
  const std::set<std::string> pending;  // files allowed a literal while being converted: none
  const std::regex literal("\"[A-Z][0-9]{3}\"");
  const std::filesystem::path src = std::filesystem::path(STEPTP_SOURCE_DIR) / "src";
  for (const auto& e : std::filesystem::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = "src/" + std::filesystem::relative(e.path(), src).generic_string();
    if (rel == "src/base/error_codes.def" || pending.count(rel)) continue;
    std::ifstream in(e.path());
    std::string line;
    for (int no = 1; std::getline(in, line); ++no)
      EXPECT_FALSE(std::regex_search(line, literal)) << rel << ":" << no << ": " << line;
  }
}

}  // namespace
}  // namespace steptp
