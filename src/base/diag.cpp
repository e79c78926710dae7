#include "base/diag.hpp"

#include <fmt/format.h>

namespace steptp::ir {

std::string Diagnostic::headline() const {
  if (!path.empty()) return fmt::format("LEIR-{} at {}: {}", code, path, message);
  return fmt::format("LEIR-{} at {}: {}", code, offset, message);
}

bool Diagnostic::is_warning() const {
  const auto c = code_from_text(code);
  return c && info(*c).kind == ErrorKind::Warning;
}

std::string Diagnostic::full() const { return excerpt.empty() ? headline() : headline() + "\n" + excerpt; }

std::string make_excerpt(std::string_view text, std::uint32_t offset) {
  if (offset == 0 || text.empty()) return {};
  std::size_t pos = std::min<std::size_t>(offset - 1, text.size());
  std::size_t lo = pos > 40 ? pos - 40 : 0;
  std::size_t hi = std::min(text.size(), pos + 41);
  std::string line = "  ";
  std::size_t caret = 2 + (pos - lo);
  if (lo > 0) { line += "..."; caret += 3; }
  for (std::size_t i = lo; i < hi; ++i) {
    char c = text[i];
    line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  if (hi < text.size()) line += "...";
  return line + "\n" + std::string(caret, ' ') + "^";
}

Diagnostic make_diag(Code c, std::string message, std::uint32_t offset, std::string path) {
  return Diagnostic{code_str(c), std::move(message), offset, std::move(path), {}};
}

LeirError::LeirError(Diagnostic d)
    : Error(code_or(d.code), d.message, Location{d.offset, d.path}, d.full()), diag_(std::move(d)) {}

LeirError::LeirError(Code c, std::string message, std::uint32_t offset, std::string path)
    : LeirError(make_diag(c, std::move(message), offset, std::move(path))) {}

LeirError::LeirError(std::string code, std::string message, std::uint32_t offset, std::string path)
    : LeirError(Diagnostic{std::move(code), std::move(message), offset, std::move(path), {}}) {}

}  // namespace steptp::ir
