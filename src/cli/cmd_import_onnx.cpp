// `steptp import-onnx MODEL.onnx|DIR [-o TASK.json]`, `steptp import-onnx DIR --check` and
// `steptp import-onnx MODEL.onnx|DIR --partition -o OUTDIR` (src/frontend/onnx_import.hpp, onnx_check.hpp,
// partition.hpp). Exit codes: 0 ok / match, 1 mismatch, 2 bad input.
#include <chrono>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "base/json_text.hpp"
#include "base/text.hpp"
#include "frontend/onnx_check.hpp"
#include "frontend/onnx_import.hpp"
#include "frontend/params_sidecar.hpp"
#include "frontend/partition.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct ImportOpts {
  std::string model;
  std::string out;
  bool check = false;
  bool typed = false;
  bool partition = false;
};

/// --partition: OUTDIR/<model>__<k>.json + .params.bin per distinct task, OUTDIR/tasks.json (the index), one
/// summary line per task on stdout and the totals (with the import + partition time) on stderr.
int run_partition(const ImportOpts& o, const std::string& model_path) {
  namespace fs = std::filesystem;
  if (o.out.empty())
    return usage_error("import-onnx", "--partition needs -o OUTDIR (the directory for the task files)");
  const auto t0 = std::chrono::steady_clock::now();
  frontend::OnnxImport imp = frontend::import_onnx(model_path);
  frontend::Partition part = frontend::partition_import(imp, imp.task.workload);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) return fail(fmt::format("cannot create {}: {}", o.out, ec.message()));
  core::ojson index = core::ojson::array();
  for (const auto& t : part.tasks) {
    const std::string file = t.task.workload + ".json";
    const std::string path = (fs::path(o.out) / file).string();
    frontend::write_params_sidecar(frontend::params_sidecar_path(path), t.params);  // sidecar first, as above
    ir::write_file_atomic(path, ir::task_to_json(t.task) + "\n");
    std::string first_nodes = fmt::format("{}", fmt::join(t.occurrences.front(), " "));
    std::cout << fmt::format("{}  {}  weight {}  {} statements  {}\n", t.task.workload, t.family, t.weight,
                             t.statements, first_nodes);
    index.push_back({{"name", t.task.workload}, {"file", file}, {"family", t.family}, {"anchor", t.anchor},
                     {"weight", t.weight}, {"statements", t.statements},
                     {"provenance", {{"model", part.model}, {"nodes", t.occurrences}}}});
  }
  core::ojson doc = {{"model", part.model},
                     {"source", model_path},
                     {"nests", imp.task.program.nests.size()},
                     {"groups", part.groups},
                     {"tasks", index}};
  ir::write_file_atomic((fs::path(o.out) / "tasks.json").string(), core::dump_pretty(doc) + "\n");
  auto n = [](std::size_t k, const char* one, const char* many) { return fmt::format("{} {}", k, k == 1 ? one : many); };
  std::cerr << fmt::format("{}: {} -> {} -> {} in {} (import + partition {:.2f} s)\n", core::terminal_safe(part.model),
                           n(imp.task.program.nests.size(), "nest", "nests"), n(part.groups, "fused group", "fused groups"),
                           n(part.tasks.size(), "distinct task", "distinct tasks"), core::terminal_safe(o.out), secs);
  return 0;
}

int run_import(const ImportOpts& o) {
  namespace fs = std::filesystem;
  try {
    if (o.check) {
      std::string dir = fs::is_directory(o.model) ? o.model : fs::path(o.model).parent_path().string();
      interp::RunOptions ro;
      ro.typed = o.typed;
      frontend::OnnxCheckResult r = frontend::check_onnx_dir(dir, ro);
      std::cout << fmt::format("{}: {} ({} elements, {} mismatches; max abs err {:.3g}, max rel err {:.3g})\n", dir,
                               r.match ? (r.rounding_allowance ? "match (rounding allowance, LEIR.md §11 step 4b)"
                                                               : "match")
                                       : "MISMATCH",
                               r.elements, r.mismatches, r.max_abs_err, r.max_rel_err);
      if (!r.match) std::cout << "  worst: " << r.worst << "\n";
      return r.match ? 0 : 1;
    }
    std::string model = fs::is_directory(o.model) ? (fs::path(o.model) / "model.onnx").string() : o.model;
    if (o.partition) return run_partition(o, model);
    frontend::OnnxImport imp = frontend::import_onnx(model);
    std::string json = ir::task_to_json(imp.task) + "\n";
    if (o.out.empty()) {
      std::cout << json;
      if (!imp.params.empty())
        std::cerr << fmt::format("note: the model's weights ({} tensors) are written only with -o (beside the task, "
                                 "TASK.params.bin); without them, run/equiv/lower draw the weights\n",
                                 imp.params.size());
      return 0;
    }
    // Sidecar first: a task file never exists without its weights.
    frontend::write_params_sidecar(frontend::params_sidecar_path(o.out), imp.params);
    ir::write_file_atomic(o.out, json);
    std::cerr << fmt::format("wrote {} ({} nests, {} known buffers) and {} ({} tensors)\n", o.out,
                             imp.task.program.nests.size(), imp.task.known.size(),
                             frontend::params_sidecar_path(o.out), imp.params.size());
    return 0;
  } catch (const ir::LeirError& e) {
    return fail(e.diag().headline());
  }
}

CommandRegistrar reg("40-import-onnx", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<ImportOpts>();
  auto* sub = app.add_subcommand("import-onnx", "Import an ONNX model as a LEIR task (+ TASK.params.bin weights)");
  sub->footer("Exit status: 0 imported (--check: outputs match); 1 --check: outputs differ; 2 bad input (E107, "
              "E108, E6xx, E115); 70 an internal error.");
  sub->add_option("model", o->model, "MODEL.onnx, or a directory holding model.onnx")->required();
  sub->add_option("-o,--output", o->out,
                  "Write TASK.json and TASK.params.bin (atomically); default: JSON to stdout. With --partition: the "
                  "output directory (required)");
  auto* check = sub->add_flag(
      "--check", o->check,
      "Run the imported task on DIR/test_data_set_0 inputs and compare with output_*.pb (exit 1 on mismatch)");
  sub->add_flag("--typed", o->typed, "With --check: interpret in each statement's static type (LEIR.md §8.2)")
      ->needs(check);
  auto* part = sub->add_flag("--partition", o->partition,
                             "Split the model into fused subgraph tasks (anchor op + fused elementwise ops), "
                             "deduplicated with a weight: OUTDIR/<model>__<k>.json (+ .params.bin), OUTDIR/tasks.json");
  part->excludes(check);
  return [o] { return run_import(*o); };
});

}  // namespace
}  // namespace steptp::cli
