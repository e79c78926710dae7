// `steptp export`: re-run filtering + export (S10–S11) from OUT/archive/all.jsonl (DATASET.md §1). Every error is one
// line with a D code (src/step/dataset_dir.hpp: D001-D004, D009 tampered file, D010 write error, D011 --config),
// exit 2.
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command.hpp"
#include "step/config.hpp"
#include "step/dataset_dir.hpp"
#include "dataset/export.hpp"
#include "base/diag.hpp"

namespace steptp::cli {
namespace {

struct ExportArgs {
  std::string out, config;
  std::optional<std::uint64_t> filter_seed;
};

/// `filter` with the --config file's filter options (options it does not set take their defaults); any fault of the
/// file is D011 at it (dataset::load_config_file).
dataset::FilterConfig with_config_file(const std::string& path, dataset::FilterConfig filter) {
  dataset::GenConfig g;
  dataset::load_config_file(path, g, filter);
  return filter;
}

const CommandRegistrar reg("42-export", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<ExportArgs>();
  auto* c = app.add_subcommand("export", "Re-run filtering and export from OUT/archive/all.jsonl");
  c->footer("Exit status: 0 exported; 2 bad input, one line with a D code: D001 not a dataset directory, D002 a "
            "missing file, D003 a manifest, line or stats.json that steptp did not write, D004 unmerged shards, D009 a "
            "file differs from its SHA-256 in the manifest, D010 a file cannot be written, D011 a bad --config file; 70 an "
            "internal error.");
  c->add_option("--out", a->out, "dataset directory")->required();
  c->add_option("--config", a->config, "configuration file whose filter section replaces the stored one");
  c->add_option("--filter-seed", a->filter_seed, "seed of the S10 streams");
  return [a]() {
    auto in = dataset::load_export_input(a->out);  // D codes: exit 2 (fail_exception)
    if (!a->config.empty()) in.filter = with_config_file(a->config, in.filter);
    if (a->filter_seed) in.filter.filter_seed = *a->filter_seed;
    dataset::export_dataset(a->out, std::move(in));
    std::cout << "exported " << a->out << "\n";
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
