// Exception classes to exit statuses (exit_status.hpp).
#include "core/exit_status.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace steptp::core {

bool is_input_error(const std::exception& e) {
  return dynamic_cast<const std::runtime_error*>(&e) || dynamic_cast<const std::invalid_argument*>(&e) ||
         dynamic_cast<const std::out_of_range*>(&e) || dynamic_cast<const nlohmann::json::exception*>(&e);
}

}  // namespace steptp::core
