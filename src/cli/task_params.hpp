// A task's stored weights on the CLI: the commands that run a task (run, equiv, lower --check, apply --verify) feed
// its `param` and `constant` buffers the values stored in its params sidecar (TASK.params.bin beside TASK.json,
// written by `import-onnx`; frontend/params_sidecar.hpp) instead of drawn ones, so a model's subgraph is checked
// with the model's real weights (issue #14). The sidecar is found automatically; `--params FILE` names another
// one and `--no-params` draws every buffer as LEIR.md §11 describes.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::cli {

struct TaskParams {
  std::string file;   // --params FILE ("" = the sidecar beside the task, if there is one)
  bool none = false;  // --no-params
  /// Adds --params and --no-params to `sub`.
  void add_options(CLI::App* sub);
  /// The values for `task` read from `task_path`: --params FILE, else frontend::params_sidecar_path(task_path) when
  /// that file exists, else none (null). Throws std::runtime_error naming the file when it is unreadable or
  /// corrupt, and std::invalid_argument ("FILE: params: NAME: ...") when a stored tensor does not fit the task
  /// (equiv::check_fixed_inputs). Warns on stderr when some param/constant buffers of the task have no stored
  /// value (they are drawn). Any non-output buffer may be given values, inputs included.
  std::shared_ptr<const interp::TensorMap> load(const std::string& task_path, const ir::Task& task) const;
};

}  // namespace steptp::cli
