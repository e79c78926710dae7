// `steptp merge`: combine shard outputs into one dataset (DATASET.md §10), then filter + export.
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "dataset/generate.hpp"

namespace steptp::cli {
namespace {

struct MergeArgs {
  std::string out;
  std::vector<std::string> shards;
  bool require_same_env = false;
};

const CommandRegistrar reg("41-merge", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<MergeArgs>();
  auto* c = app.add_subcommand("merge", "Merge shard outputs (steptp generate --shard i/N) into one dataset");
  c->footer("Exit status: 0 merged; 2 a missing, incomplete or mismatched shard (D codes); 70 an internal "
            "error.");
  c->add_option("--out", a->out, "dataset directory (shards default to OUT/shards/shard-*)")->required();
  c->add_option("shards", a->shards, "shard directories");
  c->add_flag("--require-same-env", a->require_same_env, "fail when shards were measured on different machines");
  return [a]() {
    dataset::run_merge(a->out, a->shards, a->require_same_env, nullptr);  // D codes: exit 2 (fail_exception)
    std::cout << "merged into " << a->out << "\n";
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
