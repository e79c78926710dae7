// `steptp export`: re-run filtering + export (S10–S11) from OUT/archive/all.jsonl (DATASET.md §1).
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command.hpp"
#include "dataset/config.hpp"
#include "dataset/export.hpp"

namespace steptp::cli {
namespace {

struct ExportArgs {
  std::string out, config;
  std::optional<std::uint64_t> filter_seed;
};

const CommandRegistrar reg("42-export", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<ExportArgs>();
  auto* c = app.add_subcommand("export", "Re-run filtering and export from OUT/archive/all.jsonl");
  c->add_option("--out", a->out, "dataset directory")->required();
  c->add_option("--config", a->config, "configuration file whose filter section replaces the stored one");
  c->add_option("--filter-seed", a->filter_seed, "seed of the S10 streams");
  return [a]() {
    try {
      auto in = dataset::load_export_input(a->out);
      if (!a->config.empty()) {
        dataset::GenConfig g;
        dataset::load_config_file(a->config, g, in.filter);
      }
      if (a->filter_seed) in.filter.filter_seed = *a->filter_seed;
      dataset::export_dataset(a->out, std::move(in));
    } catch (const std::exception& e) {
      return fail(e.what());
    }
    std::cout << "exported " << a->out << "\n";
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
