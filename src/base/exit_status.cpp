// Exception classes to exit statuses (exit_status.hpp).
#include "base/exit_status.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/error.hpp"

namespace steptp::core {

bool is_input_error(const std::exception& e) {
  if (const auto* err = dynamic_cast<const Error*>(&e)) return err->kind() != ErrorKind::Internal;
  return dynamic_cast<const std::runtime_error*>(&e) || dynamic_cast<const std::invalid_argument*>(&e) ||
         dynamic_cast<const std::out_of_range*>(&e) || dynamic_cast<const nlohmann::json::exception*>(&e);
}

int exit_status_of(const std::exception& e) {
  if (const auto* err = dynamic_cast<const Error*>(&e)) return err->exit_status();
  return is_input_error(e) ? kExitBadInput : kExitInternal;
}

}  // namespace steptp::core
