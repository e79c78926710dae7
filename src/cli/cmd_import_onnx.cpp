// `steptp import-onnx MODEL.onnx|DIR [-o TASK.json]` and `steptp import-onnx DIR --check`
// (src/frontend/onnx_import.hpp, onnx_check.hpp). Exit codes: 0 ok / match, 1 mismatch, 2 bad input.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "frontend/onnx_check.hpp"
#include "frontend/onnx_import.hpp"
#include "frontend/params_sidecar.hpp"
#include "ir/diag.hpp"
#include "ir/task.hpp"

namespace steptp::cli {
namespace {

struct ImportOpts {
  std::string model;
  std::string out;
  bool check = false;
  bool typed = false;
};

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
    frontend::OnnxImport imp = frontend::import_onnx(model);
    std::string json = ir::task_to_json(imp.task) + "\n";
    if (o.out.empty()) {
      std::cout << json;
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
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

CommandRegistrar reg("40-import-onnx", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<ImportOpts>();
  auto* sub = app.add_subcommand("import-onnx", "Import an ONNX model as a LEIR task (+ TASK.params.bin weights)");
  sub->add_option("model", o->model, "MODEL.onnx, or a directory holding model.onnx")->required();
  sub->add_option("-o,--output", o->out, "Write TASK.json and TASK.params.bin (atomically); default: JSON to stdout");
  sub->add_flag("--check", o->check,
                "Run the imported task on DIR/test_data_set_0 inputs and compare with output_*.pb (exit 1 on mismatch)");
  sub->add_flag("--typed", o->typed, "With --check: interpret in each statement's static type (LEIR.md §8.2)");
  return [o] { return run_import(*o); };
});

}  // namespace
}  // namespace steptp::cli
