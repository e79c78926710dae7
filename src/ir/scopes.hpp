// LEIR.md §5 names and scope rules: buffer names, loop variables, bound (hardware) names. Shared by the validator
// (E110-E114) and by anything that creates names (strategies' fresh names must pass these predicates).
#pragma once
#include <string_view>

namespace steptp::ir {

/// §5 buffer name: [A-Z][a-z]*, first letter not one of B L P T U V, and not `None`/`False`.
bool is_valid_buffer_name(std::string_view name);

/// §5 loop variable: [a-z]+, not a function name, not `inf`, not a Python keyword.
bool is_valid_loop_var(std::string_view name);

/// §5 bound name: (t|b)(x|y|z)[a-z]* — `t` selects threadIdx, `b` blockIdx, the second letter the axis.
bool is_bound_name(std::string_view name);

/// The hardware axis a bound name selects: "tx", "ty", "tz", "bx", "by" or "bz" (its first two letters);
/// "" if `name` is not a bound name.
std::string_view hardware_axis(std::string_view name);

/// Is `name` a Python keyword (§5 list)?
bool is_python_keyword(std::string_view name);

}  // namespace steptp::ir
