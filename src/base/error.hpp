// steptp::Error: the one exception type of steptp's reported errors. It carries a stable code (error_codes.def),
// a location and a message; its kind (user input, check failed, internal) and so the exit status come from the
// code's row of the table. The error classes of the subsystems (ir::LeirError, dataset::DatasetDirError,
// strategy::StrategyError, the policy, search and eval input errors) are thin subclasses that keep their what()
// text; the CLI's fail_exception maps any of them to its exit status in one place.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "base/error_codes.hpp"

namespace steptp {

/// Where an error is: a 1-based offset into a LEIR text (0 when unknown) and/or a path (a file, "file:line", a JSON
/// path such as "known[2].dtype", a workload name, a command).
struct Location {
  std::uint32_t offset = 0;
  std::string path;
};

class Error : public std::runtime_error {
 public:
  /// `what` is the full text what() returns (the subclasses' formats: `LEIR-E004 at 23: ...`, `D001 at DIR: ...`);
  /// empty: the message itself.
  Error(Code id, std::string message, Location where = {}, const std::string& what = {});
  /// The code (Code::UncodedInput for an error without one).
  Code id() const { return id_; }
  /// The code as printed (E504); empty for an uncoded error.
  std::string_view code_text() const { return steptp::code_text(id_); }
  ErrorKind kind() const { return info(id_).kind; }
  /// The exit status of kind(): 2 user input, 1 check failed, 70 internal.
  int exit_status() const { return steptp::exit_status(kind()); }
  const std::string& message() const { return message_; }
  const Location& where() const { return where_; }

 private:
  Code id_;
  std::string message_;
  Location where_;
};

/// The code spelt `text`, or `fallback` when the table has none (a code string from an older caller or a test).
Code code_or(std::string_view text, Code fallback = Code::UncodedInput);

}  // namespace steptp
