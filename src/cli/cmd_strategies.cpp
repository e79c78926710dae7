// `steptp strategies list`: the registered strategies in canonical order (STRATEGIES.md §3, §5), one per line:
//   <index>\t<name>\t<family>\t<classes>\t<description>   (classes: STRATEGIES.md §6, e.g. E or E/R)
#include <iostream>

#include "cli/command.hpp"
#include "strategies/registry.hpp"

namespace steptp::cli {
namespace {

CommandRegistrar reg("40-strategies", [](CLI::App& app) -> RunFn {
  auto* sub = app.add_subcommand("strategies", "List the rewrite strategies (canonical order)");
  auto* list = sub->add_subcommand("list", "One line per strategy: index, name, family, exactness classes (E, R, D, P; E/R = E unless it reassociates), description");
  sub->require_subcommand(1);
  (void)list;
  return [] {
    for (const auto& s : strategy::registry())
      std::cout << s.index << "\t" << s.name << "\t" << strategy::family_name(s.family) << "\t"
                << strategy::exactness_classes(s.index) << "\t" << s.description
                << "\n";
    return 0;
  };
});

}  // namespace
}  // namespace steptp::cli
