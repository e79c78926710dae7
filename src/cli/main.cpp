// steptp command-line entry point. Subcommands live in src/cli/cmd_*.cpp.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/command.hpp"
#include "runtime/best_core.hpp"
#include "base/allocator.hpp"
#include "base/error_codes.hpp"
#include "base/exit_status.hpp"
#include "base/text.hpp"

namespace steptp::cli {

std::vector<RegisteredCommand>& command_registry() {
  static std::vector<RegisteredCommand> r;
  return r;
}

CommandRegistrar::CommandRegistrar(std::string order_key, SetupFn setup) {
  command_registry().push_back({std::move(order_key), std::move(setup)});
}

int fail(const std::string& msg) {
  std::cerr << "steptp: error: " << steptp::core::terminal_safe(msg) << "\n";
  return 2;
}

int fail_exception(const std::exception& e) {
  const int status = steptp::core::exit_status_of(e);  // the one mapping of exceptions to exit statuses
  if (status != steptp::core::kExitInternal) {
    fail(e.what());
    return status;
  }
  std::cerr << "steptp: internal error: " << steptp::core::terminal_safe(e.what())
            << " (a bug in steptp, not in the input: please report it with the command line)\n";
  return steptp::core::kExitInternal;
}

int usage_error(const std::string& command, const std::string& msg) {
  return fail(steptp::code_str(steptp::Code::U001) + " at `steptp" + (command.empty() ? "" : " " + command) +
              "`: " + msg);
}

int fail_in(const std::string& file, const ir::LeirError& e) {
  if (e.diag().path == file) return fail(e.diag().headline());
  return fail(file + ": " + e.diag().headline());
}

}  // namespace steptp::cli

int main(int argc, char** argv) {
  using namespace steptp::cli;
  steptp::core::keep_freed_memory();
  {  // the library baseline runs in a child steptp (runtime/best_core.hpp)
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) steptp::runtime::set_self_executable(self.string());
  }
  CLI::App app{"steptp: step-level tensor-program optimisation data (Step-TP) on the LEIR loop IR"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "steptp 0.1.0");
  auto& reg = command_registry();
  std::sort(reg.begin(), reg.end(), [](auto& a, auto& b) { return a.order_key < b.order_key; });
  std::vector<std::pair<CLI::App*, RunFn>> runs;
  for (auto& c : reg) {
    std::size_t before = app.get_subcommands({}).size();
    RunFn fn = c.setup(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) runs.emplace_back(subs.back(), std::move(fn));
  }
  if (argc > 1 && argv[1][0] != '-') {  // name an unknown command instead of CLI11's "A subcommand is required"
    bool known = false;
    for (auto* sub : app.get_subcommands({})) known |= sub->check_name(argv[1]);
    if (!known) return usage_error(argv[1], "unknown command (see `steptp --help`)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // one line with code U001 and the command as location, like other bad input
    std::string what = e.what(), where;
    CLI::App* deepest = &app;
    for (CLI::App* a = &app; a;) {  // the deepest parsed subcommand, e.g. `steptp cost-model train`
      CLI::App* next = nullptr;
      for (auto* sub : a->get_subcommands({}))
        if (sub->parsed()) next = sub;
      if (next) where += (where.empty() ? "" : " ") + next->get_name(), deepest = next;
      a = next;
    }
    // CLI11 checks required options before unexpected ones: name a misspelt flag rather than what it hid.
    if (dynamic_cast<const CLI::RequiredError*>(&e)) {
      std::string extra;
      for (const auto& r : deepest->remaining()) extra += (extra.empty() ? "" : " ") + r;
      if (!extra.empty()) what = "unexpected argument(s) " + extra + "; " + what;
    }
    for (auto& ch : what)
      if (ch == '\n') ch = ' ';
    return usage_error(where, what + " (see --help)");
  }
  try {
    for (auto& [sub, fn] : runs)
      if (sub->parsed()) return fn();
  } catch (const std::exception& e) {
    return fail_exception(e);
  }
  return 0;
}
