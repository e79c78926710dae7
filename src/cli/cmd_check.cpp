// `steptp check FILE.jsonl`: validate every task (LEIR.md §7) and print one line per task.
//   <line>: <workload>: ok [(N warnings)]
//   <line>: <workload>: LEIR-Ennn at <offset>: <message> [(N warnings)]
// Exit codes: 0 all valid, 1 some task fails (a task-reader or validator error), 2 the file is unreadable, no
// line of it is a JSON object at all, or some task is over the input limits (E014, E015, E107: refused, not
// checked).
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "base/text.hpp"
#include "ir/limits.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::cli {
namespace {

// A workload name as printed: terminal-safe, "?" when missing, at most 200 bytes of it (a hostile name may be MiBs).
std::string shown_name(const std::string& w) {
  if (w.empty()) return "?";
  if (w.size() <= 200) return core::terminal_safe(w);
  return core::terminal_safe(w.substr(0, 200)) + fmt::format("... ({} bytes)", w.size());
}

struct CheckOpts {
  std::string file;
  bool verbose = false;
};

std::string warn_suffix(std::size_t n) {
  if (n == 0) return "";
  return " (" + std::to_string(n) + (n == 1 ? " warning)" : " warnings)");
}

int run_check(const CheckOpts& o) {
  std::vector<ir::TaskOrError> tasks;
  tasks = ir::read_tasks_jsonl(o.file);
  if (tasks.empty()) return fail(ir::make_diag(Code::E101, "no tasks (the file is empty)", 0, o.file).headline());
  // A file none of whose lines is even JSON is bad input overall (exit 2), not a failed check.
  bool any_json = false;
  for (const auto& te : tasks) any_json = any_json || te.ok || te.error.code != code_text(Code::E101);
  if (!any_json) {
    const std::string all = ir::read_file(o.file);
    std::size_t pos = 0;
    while (!any_json && pos < all.size()) {
      std::size_t nl = all.find('\n', pos);
      if (nl == std::string::npos) nl = all.size();
      any_json = nlohmann::json::accept(std::string_view(all).substr(pos, nl - pos));
      pos = nl + 1;
    }
    if (!any_json)  // the first line's own parse error says where, as `run` and `lower` do for a whole file
      return fail(ir::make_diag(Code::E101, fmt::format("not JSONL (no line is a JSON value; line {}: {})",
                                                        tasks.front().line, tasks.front().error.message),
                                0, o.file)
                      .headline());
  }
  int failed = 0;
  bool refused = false;  // some line over the input limits: bad input, exit 2
  for (auto& te : tasks) {
    std::cout << te.line << ": ";
    if (!te.ok) {
      ++failed;
      refused = refused || ir::is_input_limit_error(te.error.code);
      std::cout << shown_name(te.task.workload) << ": " << core::terminal_safe(te.error.headline()) << "\n";
      if (o.verbose && !te.error.excerpt.empty()) std::cout << core::terminal_safe(te.error.excerpt) << "\n";
      continue;
    }
    ir::Analysis a = ir::analyze(te.task);
    if (const ir::Diagnostic* e = a.first_error()) refused = refused || ir::is_input_limit_error(e->code);
    std::size_t warnings = 0;
    for (const auto& d : a.diags) warnings += d.is_warning();
    std::cout << shown_name(te.task.workload) << ": ";
    if (const ir::Diagnostic* e = a.first_error()) {
      ++failed;
      std::cout << core::terminal_safe(e->headline()) << warn_suffix(warnings) << "\n";
    } else {
      std::cout << "ok" << warn_suffix(warnings) << "\n";
    }
    if (o.verbose)
      for (const auto& d : a.diags) std::cout << "  " << core::terminal_safe(d.full()) << "\n";
  }
  std::cout << tasks.size() - failed << " of " << tasks.size() << " task(s) valid\n";
  return refused ? 2 : failed ? 1 : 0;
}

CommandRegistrar reg("20-check", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<CheckOpts>();
  auto* sub = app.add_subcommand("check",
                                 "Validate tasks (LEIR static semantics); one line per task; exit 0 if all are valid, "
                                 "1 if any fails, 2 on bad input (an unreadable file, no line of JSON, a task over "
                                 "the input limits)");
  sub->add_option("file", o->file, "Tasks as JSONL (one JSON task per line)")->required();
  sub->add_flag("-v,--verbose", o->verbose, "Also print every diagnostic with its excerpt");
  return [o] { return run_check(*o); };
});

}  // namespace
}  // namespace steptp::cli
