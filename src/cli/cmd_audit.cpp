// `steptp audit DATASET_DIR`: re-check every record and chat line of a dataset; exit 1 on any failure.
#include <filesystem>
#include <iostream>
#include <memory>

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
    // A path that is not a dataset is bad input (exit 2), not a failed audit (exit 1).
    std::error_code ec;
    if (!std::filesystem::is_directory(a->dir, ec)) return fail(a->dir + ": not a directory");
    if (!std::filesystem::exists(std::filesystem::path(a->dir) / "manifest.json", ec)) {
      if (std::filesystem::is_directory(std::filesystem::path(a->dir) / "shards", ec))
        return fail(a->dir + ": no manifest.json; this holds shards: run `steptp merge --out " + a->dir + "` first");
      return fail(a->dir + ": no manifest.json; not a dataset written by `steptp generate`");
    }
    auto r = dataset::run_audit(*a);
    for (const auto& p : r.problems) std::cout << "FAIL " << p << "\n";
    std::cout << fmt::format("audit {}: {} records ({} equivalence re-checks), {} chat lines, {} failures\n",
                             r.ok() ? "passed" : "FAILED", r.records, r.equivalence_checked, r.chat_lines, r.failures);
    return r.ok() ? 0 : 1;
  };
});

}  // namespace
}  // namespace steptp::cli
