#include "cli/task_params.hpp"

#include <filesystem>
#include <stdexcept>

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
  interp::check_fixed_inputs(task, *values);
  return values;
}

}  // namespace steptp::cli
