#include "cli/task_params.hpp"
#include "base/text.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "equiv/inputs.hpp"
#include "frontend/params_sidecar.hpp"

namespace steptp::cli {

void TaskParams::add_options(CLI::App* sub) {
  auto* p = sub->add_option("--params", file,
                            "values of the task's param/constant buffers (default: TASK.params.bin beside the task, "
                            "when present)");
  sub->add_flag("--no-params", none, "draw every non-output buffer, ignoring stored weights")->excludes(p);
}

std::shared_ptr<const interp::TensorMap> TaskParams::load(const std::string& task_path, const ir::Task& task) const {
  if (none) return nullptr;
  std::string path = file;
  if (path.empty()) {
    path = frontend::params_sidecar_path(task_path);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return nullptr;
  }
  auto values = std::make_shared<interp::TensorMap>(frontend::read_params_sidecar(path));
  try {
    equiv::check_fixed_inputs(task, *values);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  std::size_t missing = 0;
  for (const auto& k : task.known)
    if ((k.role == ir::Role::Param || k.role == ir::Role::Constant) && !values->count(k.name)) ++missing;
  if (missing)
    std::cerr << "steptp: warning: " << core::terminal_safe(path) << " has no values for " << missing
              << " param/constant buffer(s) of the task; they are drawn\n";
  return values;
}

}  // namespace steptp::cli
