// Terminal-safe messages and the exit status of an exception (base/text.hpp, base/exit_status.hpp; issue #48 item 8).
#include <gtest/gtest.h>

#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/exit_status.hpp"
#include "base/text.hpp"
#include "base/diag.hpp"

namespace steptp::core {
namespace {

TEST(TerminalSafe, EscapesControlsBidiAndInvalidUtf8) {
  EXPECT_EQ(terminal_safe("plain text, 100% \\ ok"), "plain text, 100% \\ ok");
  EXPECT_EQ(terminal_safe(std::string("nul\0bel\x07" "esc\x1b[2J del\x7f", 20)), "nul\\x00bel\\x07esc\\x1b[2J del\\x7f");
  EXPECT_EQ(terminal_safe("tab\tcr\r"), "tab\\x09cr\\x0d");
  EXPECT_EQ(terminal_safe("keeps\nnewlines"), "keeps\nnewlines");
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82"), "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82");
  EXPECT_EQ(terminal_safe("RLO \xe2\x80\xae LRI \xe2\x81\xa6 ZWSP \xe2\x80\x8b BOM \xef\xbb\xbf"),
            "RLO \\u202e LRI \\u2066 ZWSP \\u200b BOM \\ufeff");
  EXPECT_EQ(terminal_safe("C1 \xc2\x9b"), "C1 \\u009b");
  // invalid: a lone continuation byte, a truncated sequence, an overlong '/', a surrogate, 0xff
  EXPECT_EQ(terminal_safe("\x80 \xe2\x80 \xc0\xaf \xed\xa0\x80 \xff"),
            "\\x80 \\xe2\\x80 \\xc0\\xaf \\xed\\xa0\\x80 \\xff");
}

TEST(ExitStatus, InputErrorsAreExit2AndEverythingElseIsInternal) {
  EXPECT_TRUE(is_input_error(std::runtime_error("x")));
  EXPECT_TRUE(is_input_error(ir::LeirError("E108", "cannot read file", 0, "f")));
  EXPECT_TRUE(is_input_error(std::invalid_argument("x")));
  EXPECT_TRUE(is_input_error(std::out_of_range("stoi")));
  try {
    const auto j = nlohmann::json::parse("[1e999]");
    (void)j;
    FAIL() << "1e999 parsed";
  } catch (const nlohmann::json::exception& e) {
    EXPECT_TRUE(is_input_error(e));
  }
  EXPECT_FALSE(is_input_error(std::logic_error("lower: unknown buffer X")));
  EXPECT_FALSE(is_input_error(std::length_error("batch scratch exhausted")));
  EXPECT_FALSE(is_input_error(std::bad_alloc()));
  EXPECT_EQ(kExitInternal, 70);
  EXPECT_EQ(kExitBadInput, 2);
}

}  // namespace
}  // namespace steptp::core
