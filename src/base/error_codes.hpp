// steptp's stable error and warning codes as an enum, with the table of their family, kind, exit status and meaning
// (the rows are in error_codes.def, the only file that spells a code string).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace steptp {

/// One stable code: `Code::E504` prints as E504. UncodedInput / UncodedInternal are errors without a code (yet).
enum class Code : std::uint16_t {
#define STEPTP_ERROR_CODE(id, text, family, kind, meaning) id,
#include "base/error_codes.def"
#undef STEPTP_ERROR_CODE
};

/// Where a code comes from.
enum class CodeFamily : std::uint8_t {
  LeirSyntax,    // E0xx: lexer and parser
  LeirTask,      // E101-E105: the task JSON
  LeirFile,      // E107-E109, E115, E116: reading inputs, writing outputs, workload names
  LeirValidate,  // E106, E11x, E2xx: the validator
  LeirWarning,   // W0xx: validator warnings
  LeirRun,       // E3xx: the interpreter and its budgets
  LeirLower,     // E4xx: lowerings
  LeirEquiv,     // E5xx: equivalence
  OnnxImport,    // E6xx: import-onnx
  Dataset,       // Dxxx: dataset directories, audit, export
  Strategy,      // Sxxx: strategies and candidates
  Usage,         // U001: the command line
  Uncoded,       // no stable code
};

/// What an error means for the process: its exit status (exit_status()).
enum class ErrorKind : std::uint8_t {
  User,         // unreadable or invalid input, a usage error: exit 2
  CheckFailed,  // the check ran and failed (invalid, not equivalent, a runtime error, a failed audit): exit 1
  Internal,     // a bug in steptp, not in the input: exit 70
  Warning,      // reported, not an error: exit 0
};

/// The process exit statuses (README "Exit statuses").
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitStopped = 3;  // generate: stopped early (--stop-after-units, --time-limit, a signal)
inline constexpr int kExitInternal = 70;  // EX_SOFTWARE of sysexits.h

/// The exit status of a kind: User 2, CheckFailed 1, Internal 70, Warning 0.
constexpr int exit_status(ErrorKind k) {
  switch (k) {
    case ErrorKind::User: return kExitBadInput;
    case ErrorKind::CheckFailed: return kExitCheckFailed;
    case ErrorKind::Internal: return kExitInternal;
    case ErrorKind::Warning: return kExitOk;
  }
  return kExitInternal;
}

/// One row of the table.
struct CodeInfo {
  Code id;
  std::string_view text;  // the code as printed (E504); empty for the uncoded rows
  CodeFamily family;
  ErrorKind kind;
  std::string_view meaning;
  int exit_status() const { return steptp::exit_status(kind); }
};

/// All rows, in table order (error_codes.def).
std::span<const CodeInfo> all_codes();
/// The row of `c`.
const CodeInfo& info(Code c);
/// E504 for Code::E504 (empty for the uncoded rows).
std::string_view code_text(Code c);
/// code_text as a std::string, for Diagnostic::code and messages.
inline std::string code_str(Code c) { return std::string(code_text(c)); }
/// The code spelt `text` (E504), or nullopt when no row has it ("" included).
std::optional<Code> code_from_text(std::string_view text);
/// "LEIR syntax", "dataset", ...: a family's name in the rendered tables.
std::string_view code_family_name(CodeFamily f);
/// "user input", "check failed", "internal", "warning".
std::string_view error_kind_name(ErrorKind k);

/// The Markdown table of every coded row (docs/errors.md, between its `codes` markers): code, family, kind, exit
/// status, meaning; one line a row, ending in a newline.
std::string render_codes_markdown();
/// The Markdown table of the exit statuses (README "Exit statuses", between its `exit-statuses` markers).
std::string render_exit_statuses_markdown();

}  // namespace steptp
