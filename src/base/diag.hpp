// Diagnostics with stable codes (LEIR.md §12): `LEIR-Ennn at <offset>: <message>` plus an excerpt and caret.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace steptp::ir {

/// One error or warning. `code` is the text of a Code (E004, W001, ...: make_diag). `offset` is the 1-based
/// character offset in the LEIR text (0 when unknown); `path` is a JSON path such as "known[2].dtype" for
/// task-level errors (then offset is 0).
struct Diagnostic {
  std::string code;
  std::string message;
  std::uint32_t offset = 0;
  std::string path;
  std::string excerpt;  // up to 40 characters each side, with "..." where cut, and a caret line; may be empty
  /// True for a code of kind ErrorKind::Warning (W001-W005).
  bool is_warning() const;
  /// One line: "LEIR-E004 at 23: empty subscript" or "LEIR-E102 at known[2].dtype: ...".
  std::string headline() const;
  /// headline + "\n" + excerpt (when present).
  std::string full() const;
};

/// Builds the excerpt + caret for a 1-based offset into `text` (LEIR.md §12 format, two-space indent).
std::string make_excerpt(std::string_view text, std::uint32_t offset);

/// A diagnostic of code `c` (Diagnostic::code is its text, E004).
Diagnostic make_diag(Code c, std::string message, std::uint32_t offset = 0, std::string path = {});

/// Exception carrying one diagnostic: a steptp::Error whose what() is the diagnostic's full() text. Thrown by the
/// parser, task reader, validator (validate_or_throw), interpreter (E3xx), lowerings (E4xx) and equivalence (E5xx).
class LeirError : public Error {
 public:
  explicit LeirError(Diagnostic d);
  LeirError(Code c, std::string message, std::uint32_t offset = 0, std::string path = {});
  /// A code given as text (E108): for callers that pass on another diagnostic's code, and tests.
  LeirError(std::string code, std::string message, std::uint32_t offset = 0, std::string path = {});
  const Diagnostic& diag() const { return diag_; }
  /// The code's text, E004 (id() is the enumerator).
  const std::string& code() const { return diag_.code; }

 private:
  Diagnostic diag_;
};

}  // namespace steptp::ir
