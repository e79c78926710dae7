// The text of the shared numeric-helper header (interp/numeric.hpp, also used by the interpreter), embedded at build time so that every generated
// translation unit carries its own copy and compiles without steptp's source tree (LEIR.md §10.2).
#pragma once
#include <string_view>

namespace steptp::lower {

/// Verbatim text of src/interp/numeric.hpp as of this build.
std::string_view numeric_header_text();

}  // namespace steptp::lower
