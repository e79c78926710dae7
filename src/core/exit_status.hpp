// Process exit statuses of every steptp command (README "Exit statuses") and how an exception that reaches a
// command's top level maps to one.
#pragma once
#include <exception>

namespace steptp::core {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;  // the check ran and failed: invalid, not equivalent, failed audit, ...
inline constexpr int kExitBadInput = 2;     // unreadable or invalid input, a usage error
inline constexpr int kExitStopped = 3;      // generate: stopped early (--time-limit, a signal)
inline constexpr int kExitInternal = 70;    // a bug in steptp or exhaustion (EX_SOFTWARE of sysexits.h)

/// True for the exceptions that report bad input: std::runtime_error and its subclasses (ir::LeirError and the D,
/// S and policy errors, I/O errors), std::invalid_argument, std::out_of_range (number parsing) and the JSON
/// library's errors. Everything else (std::logic_error, std::bad_alloc, ...) is internal: kExitInternal.
bool is_input_error(const std::exception& e);

}  // namespace steptp::core
