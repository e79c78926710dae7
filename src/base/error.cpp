#include "base/error.hpp"

namespace steptp {

Error::Error(Code id, std::string message, Location where, const std::string& what)
    : std::runtime_error(what.empty() ? message : what),
      id_(id),
      message_(std::move(message)),
      where_(std::move(where)) {}

Code code_or(std::string_view text, Code fallback) { return code_from_text(text).value_or(fallback); }

}  // namespace steptp
