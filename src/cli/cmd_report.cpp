// `steptp report DIR... -o report.html`: one self-contained HTML page for dataset, eval and search directories.
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/command.hpp"
#include "ir/task.hpp"
#include "report/report.hpp"

namespace steptp::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> dirs;
  std::string out = "report.html";
};

const CommandRegistrar reg("47-report", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<ReportOptions>();
  auto* c = app.add_subcommand(
      "report", "Write one self-contained HTML page (plots by gnuplot, sortable tables, no network) for dataset, eval "
                "and/or search directories, side by side");
  c->footer("Exit status: 0 written; 2 a directory of no known kind (D005), unreadable input, gnuplot "
            "missing, E115 -o path; 70 an internal error.");
  c->add_option("dirs", o->dirs, "dataset, eval or search directories (kind detected from manifest.json/summary.json)")
      ->required();
  c->add_option("-o,--output", o->out, "the HTML file to write (atomically; an existing link, FIFO or device is never "
                "replaced: E115)")->capture_default_str();
  return [o]() {
    // A directory of no known kind, unreadable input, gnuplot missing, E115: exit 2 (fail_exception).
    const std::string html = report::render_report(o->dirs);
    ir::write_file_atomic(o->out, html);
    std::cout << "report: " << o->out << "\n";
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
