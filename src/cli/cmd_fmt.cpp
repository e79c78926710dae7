// `steptp fmt FILE.jsonl [--check]`: canonical JSONL (LEIR.md §2, §9).
#include <iostream>

#include "cli/command.hpp"
#include "base/text.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct FmtOpts {
  std::string file;
  bool check = false;
  std::string out;
};

int run_fmt(const FmtOpts& o) {
  std::string all;
  all = ir::read_file(o.file);
  std::string result;
  int changed = 0, bad = 0;
  std::size_t line = 0, pos = 0;
  while (pos < all.size()) {
    std::size_t nl = all.find('\n', pos);
    if (nl == std::string::npos) nl = all.size();
    ++line;
    std::string_view l(all.data() + pos, nl - pos);
    pos = nl + 1;
    if (l.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      ir::Task t = ir::parse_task(l);
      std::string canon = ir::task_to_json(t);
      if (canon != l) {
        ++changed;
        if (o.check)
          std::cout << core::terminal_safe(o.file + ":" + std::to_string(line) + ": " + t.workload) << ": not canonical\n";
      }
      result += canon;
      result += '\n';
    } catch (const ir::LeirError& e) {
      ++bad;
      std::cerr << core::terminal_safe(o.file + ":" + std::to_string(line) + ": " + e.diag().full()) << "\n";
    }
  }
  if (bad) return 2;
  if (o.check) {
    if (changed) {
      std::cout << changed << " task(s) would change\n";
      return 1;
    }
    std::cout << "all " << line << " line(s) canonical\n";
    return 0;
  }
  if (!o.out.empty()) {
    ir::write_file_atomic(o.out, result);
  } else {
    std::cout << result;
  }
  return 0;
}

CommandRegistrar reg("10-fmt", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<FmtOpts>();
  auto* sub = app.add_subcommand("fmt", "Print tasks in canonical form (whitespace dropped, Python json.dumps layout)");
  sub->footer("Exit status: 0 printed / all canonical; 1 --check: some task would change; 2 a line that does "
              "not parse or an unreadable file (E1xx, E107, E115); 70 an internal error.");
  sub->add_option("file", o->file, "Tasks as JSONL (one task per line)")->required();
  sub->add_flag("--check", o->check, "Print nothing but the tasks whose text would change; exit 1 if any");
  sub->add_option("-o,--output", o->out, "Write the canonical JSONL here (atomically; an existing link, FIFO or device is "
                  "never replaced: E115) instead of stdout");
  return [o] { return run_fmt(*o); };
});

}  // namespace
}  // namespace steptp::cli
