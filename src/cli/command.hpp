// CLI subcommand registry. Each src/cli/cmd_*.cpp registers its subcommands with a static CommandRegistrar, so
// adding a command never touches main.cpp. CLI sources are compiled into the `steptp` executable itself (not the
// library), which keeps the static registrars alive.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "base/diag.hpp"

namespace steptp::cli {

/// A command's run function returns the process exit code (base/exit_status.hpp): 0 success, 1 "check failed",
/// 2 bad input, 3 stopped early (generate); 70 is for a bug in steptp, never for bad input.
using RunFn = std::function<int()>;

/// `setup` adds one subcommand to `app` (with its options bound to captured state) and returns the function to
/// run when that subcommand is selected.
using SetupFn = std::function<RunFn(CLI::App& app)>;

struct CommandRegistrar {
  CommandRegistrar(std::string order_key, SetupFn setup);
};

struct RegisteredCommand {
  std::string order_key;  // commands are added to --help in this order
  SetupFn setup;
};
std::vector<RegisteredCommand>& command_registry();

/// Prints "steptp: error: <msg>" to stderr (one line, core::terminal_safe) and returns 2.
int fail(const std::string& msg);

/// An exception that reached a command's top level, and the one place that maps it to an exit status
/// (core::exit_status_of): a steptp::Error by its code's kind (user input 2, check failed 1), the other input errors
/// (core::is_input_error) 2, each printed by fail(); anything else is one line "steptp: internal error: <what>
/// (...)" and core::kExitInternal (70). main() calls it for every exception a command's run function lets through.
int fail_exception(const std::exception& e);

/// A command-line usage error (a flag value or combination the command refuses): fail() with the stable code U001
/// located at the command (U001 at `steptp generate`: --timer must be real or fixed), like CLI11's own parse
/// errors (main.cpp); an empty `command` is the top level (U001 at `steptp`: ...).
int usage_error(const std::string& command, const std::string& msg);

/// fail() with a diagnostic about `file`: "FILE: LEIR-E002 at 65: ...", or the headline alone when the diagnostic
/// is already located at the file ("LEIR-E108 at FILE: cannot read file: ..."), so the path is not printed twice.
int fail_in(const std::string& file, const ir::LeirError& e);

}  // namespace steptp::cli
