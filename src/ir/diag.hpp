// Diagnostics with stable codes (LEIR.md §12): `LEIR-Ennn at <offset>: <message>` plus an excerpt and caret.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace steptp::ir {

/// One error or warning. `code` is "E004", "W001", ... `offset` is the 1-based character offset in the LEIR text
/// (0 when unknown); `path` is a JSON path such as "known[2].dtype" for task-level errors (then offset is 0).
struct Diagnostic {
  std::string code;
  std::string message;
  std::uint32_t offset = 0;
  std::string path;
  std::string excerpt;  // up to 40 characters each side, with "..." where cut, and a caret line; may be empty
  bool is_warning() const { return !code.empty() && code[0] == 'W'; }
  /// One line: "LEIR-E004 at 23: empty subscript" or "LEIR-E102 at known[2].dtype: ...".
  std::string headline() const;
  /// headline + "\n" + excerpt (when present).
  std::string full() const;
};

/// Builds the excerpt + caret for a 1-based offset into `text` (LEIR.md §12 format, two-space indent).
std::string make_excerpt(std::string_view text, std::uint32_t offset);

/// Exception carrying one diagnostic. Thrown by the parser, task reader, validator (validate_or_throw),
/// interpreter (E3xx), lowerings (E4xx) and equivalence (E5xx).
class LeirError : public std::runtime_error {
 public:
  explicit LeirError(Diagnostic d) : std::runtime_error(d.full()), diag_(std::move(d)) {}
  LeirError(std::string code, std::string message, std::uint32_t offset = 0, std::string path = {});
  const Diagnostic& diag() const { return diag_; }
  const std::string& code() const { return diag_.code; }

 private:
  Diagnostic diag_;
};

}  // namespace steptp::ir
