// `steptp audit DATASET_DIR`: re-check every record and chat line of a dataset; exit 1 on any failure.
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "dataset/audit.hpp"

namespace steptp::cli {
namespace {

const CommandRegistrar reg("43-audit", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<dataset::AuditOptions>();
  auto* c = app.add_subcommand("audit", "Re-parse, re-validate, re-check equivalence and reasoning of a dataset");
  c->add_option("dir", a->dir, "dataset directory")->required();
  c->add_option("--sample", a->sample, "re-check equivalence on this many records only (0 = all)");
  c->add_option("--jobs,-j", a->jobs, "threads")->check(CLI::PositiveNumber);
  return [a]() {
    dataset::AuditReport r;
    try {
      r = dataset::run_audit(*a);
    } catch (const std::invalid_argument& e) {  // not a dataset directory: bad input
      return fail(e.what());
    }
    for (const auto& p : r.problems) std::cout << "FAIL " << p << "\n";
    std::cout << fmt::format("audit {}: {} records ({} equivalence re-checks), {} chat lines, {} failures\n",
                             r.ok() ? "passed" : "FAILED", r.records, r.equivalence_checked, r.chat_lines, r.failures);
    return r.ok() ? 0 : 1;
  };
});

}  // namespace
}  // namespace steptp::cli
