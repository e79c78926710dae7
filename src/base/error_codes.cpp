// The code table of error_codes.def, its look-ups and its Markdown rendering.
#include "base/error_codes.hpp"

#include <array>

namespace steptp {
namespace {

constexpr CodeInfo kTable[] = {
#define STEPTP_ERROR_CODE(id, text, family, kind, meaning) \
  {Code::id, text, CodeFamily::family, ErrorKind::kind, meaning},
#include "base/error_codes.def"
#undef STEPTP_ERROR_CODE
};

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < std::size(kTable); ++i)
    if (static_cast<std::size_t>(kTable[i].id) != i) return false;
  return true;
}
static_assert(rows_in_enum_order());

}  // namespace

std::span<const CodeInfo> all_codes() { return kTable; }

const CodeInfo& info(Code c) { return kTable[static_cast<std::size_t>(c)]; }

std::string_view code_text(Code c) { return info(c).text; }

std::optional<Code> code_from_text(std::string_view text) {
  if (text.empty()) return std::nullopt;
  for (const auto& row : kTable)
    if (row.text == text) return row.id;
  return std::nullopt;
}

std::string_view code_family_name(CodeFamily f) {
  switch (f) {
    case CodeFamily::LeirSyntax: return "LEIR syntax";
    case CodeFamily::LeirTask: return "LEIR task";
    case CodeFamily::LeirFile: return "files";
    case CodeFamily::LeirValidate: return "LEIR validation";
    case CodeFamily::LeirWarning: return "LEIR warning";
    case CodeFamily::LeirRun: return "LEIR interpreter";
    case CodeFamily::LeirLower: return "LEIR lowering";
    case CodeFamily::LeirEquiv: return "LEIR equivalence";
    case CodeFamily::OnnxImport: return "ONNX import";
    case CodeFamily::Dataset: return "dataset";
    case CodeFamily::Strategy: return "strategy";
    case CodeFamily::Usage: return "usage";
    case CodeFamily::Uncoded: return "uncoded";
  }
  return "?";
}

std::string_view error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::User: return "user input";
    case ErrorKind::CheckFailed: return "check failed";
    case ErrorKind::Internal: return "internal";
    case ErrorKind::Warning: return "warning";
  }
  return "?";
}

std::string render_codes_markdown() {
  std::string s = "| code | family | kind | exit | meaning |\n|---|---|---|---|---|\n";
  for (const auto& row : kTable) {
    if (row.text.empty()) continue;
    s += "| " + std::string(row.text) + " | " + std::string(code_family_name(row.family)) + " | " +
         std::string(error_kind_name(row.kind)) + " | " + std::to_string(row.exit_status()) + " | " +
         std::string(row.meaning) + " |\n";
  }
  return s;
}

std::string render_exit_statuses_markdown() {
  struct Row {
    int status;
    std::string_view meaning;
  };
  static constexpr std::array kRows{
      Row{kExitOk, "success (warnings included)"},
      Row{kExitCheckFailed, "the check ran and failed: not canonical, invalid task, not equivalent, a runtime error, "
                            "a failed audit"},
      Row{kExitBadInput, "bad input: unreadable or invalid file, unknown name, bad option value, a usage error (U001)"},
      Row{kExitStopped, "`generate` stopped early (`--stop-after-units`)"},
      Row{kExitInternal, "internal error: a bug in steptp, not in the input (`steptp: internal error: ...`)"},
  };
  std::string s = "| status | meaning |\n|---|---|\n";
  for (const auto& r : kRows) s += "| " + std::to_string(r.status) + " | " + std::string(r.meaning) + " |\n";
  return s;
}

}  // namespace steptp
