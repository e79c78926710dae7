// `steptp workloads list` and `steptp workloads emit NAME [...]`: the built-in workload suite (DATASET.md §2.1-§2.3).
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "frontend/workloads.hpp"
#include "base/diag.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct WlOpts {
  std::string name;
  std::vector<std::string> sets;
  bool small = false;
  int sample = 0;
  std::uint64_t seed = 0;
  std::string dtype = "f32";
  std::string out;
};

int run_list() {
  struct Row { std::string name, suite, family, params, dtypes; };
  std::vector<Row> rows;
  std::size_t w[4] = {4, 5, 6, 6};
  for (const auto& wk : frontend::workloads()) {
    Row r{wk.name, wk.suite, wk.family, "", ""};
    for (const auto& p : wk.params) {
      if (!r.params.empty()) r.params += " ";
      r.params += p.name + "=" + std::to_string(p.def) + "[" + std::to_string(p.lo) + ".." + std::to_string(p.hi) + "]";
    }
    for (auto d : wk.dtypes) r.dtypes += (r.dtypes.empty() ? "" : ",") + std::string(ir::dtype_name(d));
    w[0] = std::max(w[0], r.name.size());
    w[1] = std::max(w[1], r.suite.size());
    w[2] = std::max(w[2], r.family.size());
    w[3] = std::max(w[3], r.dtypes.size());
    rows.push_back(std::move(r));
  }
  auto pad = [](const std::string& s, std::size_t n) { return s + std::string(n - s.size() + 2, ' '); };
  std::cout << pad("NAME", w[0]) << pad("SUITE", w[1]) << pad("FAMILY", w[2]) << pad("DTYPES", w[3]) << "PARAMS\n";
  for (const auto& r : rows)
    std::cout << pad(r.name, w[0]) << pad(r.suite, w[1]) << pad(r.family, w[2]) << pad(r.dtypes, w[3]) << r.params
              << "\n";
  std::cout << rows.size() << " workloads\n";
  return 0;
}

int run_emit(const WlOpts& o) {
  const frontend::Workload* wk = nullptr;
  try {
    wk = &frontend::find_workload_or_throw(o.name);
  } catch (const ir::LeirError& e) {
    return fail(e.diag().headline());
  }
  auto dt = ir::parse_dtype(o.dtype);
  if (!dt) return usage_error("workloads emit", "unknown dtype '" + o.dtype + "'");
  frontend::Params given = o.small ? frontend::small_params(*wk) : frontend::Params{};
  for (const auto& s : o.sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) return usage_error("workloads emit", "--set expects k=v, got '" + s + "'");
    std::int64_t v = 0;
    try {
      std::size_t used = 0;
      v = std::stoll(s.substr(eq + 1), &used);
      if (used != s.size() - eq - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      return usage_error("workloads emit", "--set " + s + ": value is not an integer");
    }
    given[s.substr(0, eq)] = v;
  }
  std::vector<frontend::Params> sets;
  if (o.sample > 0) {
    if (!o.sets.empty() || o.small)
      return usage_error("workloads emit", "--sample cannot be combined with --set or --small");
    sets = frontend::sample_params(*wk, o.sample, o.seed);
  } else {
    sets.push_back(given);
  }
  std::string text;
  try {
    for (const auto& p : sets) text += ir::task_to_json(frontend::emit(*wk, p, *dt)) + "\n";
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  } catch (const ir::LeirError& e) {
    return fail(std::string("emitted program does not parse: ") + e.what());
  }
  if (o.out.empty()) {
    std::cout << text;
  } else {
    ir::write_file_atomic(o.out, text);  // E115, E116: exit 2 (fail_exception)
  }
  return 0;
}

CommandRegistrar reg("30-workloads", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<WlOpts>();
  auto mode = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("workloads", "The built-in KernelBench-style workload suite");
  sub->require_subcommand(1);
  auto* list = sub->add_subcommand("list", "List workloads: name, suite, family, dtypes, params default[lo..hi]");
  list->callback([mode] { *mode = "list"; });
  auto* em = sub->add_subcommand("emit", "Emit tasks of one workload as JSONL");
  em->footer("Exit status: 0 emitted; 2 an unknown workload, dtype or parameter, or an -o path that is a link, "
             "FIFO or device (E115); 70 an internal error.");
  em->add_option("name", o->name, "Workload name")->required();
  em->add_option("--set", o->sets, "Parameter k=v (repeatable)");
  em->add_flag("--small", o->small, "Start from the small shapes instead of the defaults");
  em->add_option("--sample", o->sample, "Emit N seeded random parameter draws (N >= 1)")->check(CLI::Range(1, 1000000));
  em->add_option("--seed", o->seed, "Seed for --sample");
  em->add_option("--dtype", o->dtype, "Element dtype (f32, f64, f16, bf16)");
  em->add_option("-o,--output", o->out, "Write JSONL here (atomically; an existing link, FIFO or device is "
                  "never replaced: E115) instead of stdout");
  em->callback([mode] { *mode = "emit"; });
  return [o, mode] { return *mode == "list" ? run_list() : run_emit(*o); };
});

}  // namespace
}  // namespace steptp::cli
