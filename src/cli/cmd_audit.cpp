// `steptp audit DATASET_DIR`: re-check every record and chat line of a dataset; exit 1 on any failure.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "base/json_text.hpp"
#include "base/text.hpp"
#include "dataset/audit.hpp"
#include "dataset/remeasure.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

const CommandRegistrar reg("43-audit", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<dataset::AuditOptions>();
  auto* c = app.add_subcommand("audit", "Re-parse, re-validate, re-check equivalence and reasoning of a dataset");
  c->footer("Exit status: 0 passed; 1 any failure (FAIL lines, D006-D008 included); 2 not a dataset "
            "(D001-D004); 70 an internal error.");
  c->add_option("dir", a->dir, "dataset directory")->required();
  c->add_option("--sample", a->sample, "re-check equivalence on this many records only (0 = all)");
  c->add_option("--jobs,-j", a->jobs, "threads")->check(CLI::Range(1, 4096));
  auto remeasure = std::make_shared<std::int64_t>(0);
  auto remeasure_json = std::make_shared<std::string>();
  c->add_option("--remeasure", *remeasure,
                "also re-time this many sampled measured records and report how many keep their verdict "
                "(faster > 1.05, slower < 0.95, neutral)")
      ->check(CLI::Range(0, 100000000));
  c->add_option("--remeasure-json", *remeasure_json, "write the re-measurement report (per record) to this JSON file");
  return [a, remeasure, remeasure_json]() {
    const dataset::AuditReport r = dataset::run_audit(*a);  // not a dataset directory: D001-D004, exit 2
    for (const auto& p : r.problems) std::cout << "FAIL " << core::terminal_safe(p) << "\n";
    std::cout << fmt::format("audit {}: {} records ({} equivalence re-checks), {} chat lines, {} failures\n",
                             r.ok() ? "passed" : "FAILED", r.records, r.equivalence_checked, r.chat_lines, r.failures);
    if (*remeasure > 0) {
      const bool tty = isatty(2);
      const dataset::RemeasureReport rr =
          dataset::remeasure(a->dir, *remeasure, [tty](std::size_t done, std::size_t total) {
            if (tty)
              std::cerr << fmt::format("\rremeasure: {}/{} records", done, total) << (done == total ? "\n" : "")
                        << std::flush;
            else if (done % 25 == 0 || done == total)
              std::cerr << fmt::format("remeasure: {}/{} records\n", done, total);
          });
      std::cout << fmt::format("remeasure: {} of {} measured records re-timed, {} kept their verdict ({:.1f}%), {} failed\n",
                               rr.rows.size(), rr.measured_records, rr.kept, 100.0 * rr.kept_share(), rr.failed);
      std::cout << "  recorded -> now   faster  neutral   slower\n";
      for (const char* v : {"faster", "neutral", "slower"}) {
        auto get = [&](const char* w) {
          auto it = rr.counts.find(v);
          if (it == rr.counts.end()) return std::int64_t(0);
          auto jt = it->second.find(w);
          return jt == it->second.end() ? std::int64_t(0) : jt->second;
        };
        std::cout << fmt::format("  {:<15} {:>8} {:>8} {:>8}\n", v, get("faster"), get("neutral"), get("slower"));
      }
      if (!remeasure_json->empty()) ir::write_file_atomic(*remeasure_json, dataset::dump_py(rr.to_json()) + "\n");
    }
    return r.ok() ? 0 : 1;
  };
});

}  // namespace
}  // namespace steptp::cli
