// Process exit statuses of every steptp command (README "Exit statuses") and how an exception that reaches a
// command's top level maps to one. The statuses and the kinds they belong to are in base/error_codes.hpp.
#pragma once
#include <exception>

#include "base/error_codes.hpp"

namespace steptp::core {

using steptp::kExitBadInput;
using steptp::kExitCheckFailed;
using steptp::kExitInternal;
using steptp::kExitOk;
using steptp::kExitStopped;

/// True for the exceptions that report bad input: std::runtime_error and its subclasses (steptp::Error of a user
/// input code, I/O errors), std::invalid_argument, std::out_of_range (number parsing) and the JSON library's errors.
/// Everything else (std::logic_error, std::bad_alloc, a steptp::Error of an internal code, ...) is not.
bool is_input_error(const std::exception& e);

/// The exit status of an exception that reached a command's top level: a steptp::Error's exit_status() (its
/// code's kind), 2 for the other input errors (is_input_error), 70 (kExitInternal) for everything else.
int exit_status_of(const std::exception& e);

}  // namespace steptp::core
