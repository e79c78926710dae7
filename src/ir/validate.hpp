// LEIR validator and static semantics (LEIR.md §7, §8.4, §8.5).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/diag.hpp"
#include "ir/task.hpp"

namespace steptp::ir {

/// A buffer of the program. Known buffers come first, in known order; then intermediates in order of first
/// occurrence in the text.
struct BufferInfo {
  std::string name;
  bool known = false;
  Role role = Role::Output;              // known buffers only
  DType dtype = DType::F32;              // effective dtype (§7.1)
  Scope scope = Scope::Global;           // intermediates: their scope; known: Global
  std::vector<std::int64_t> shape;       // known: declared; intermediate: inferred (§7.2)
  std::int64_t numel() const;
};

/// Result of analysis. `diags` holds all errors and warnings in text order.
struct Analysis {
  std::vector<BufferInfo> buffers;
  std::vector<Diagnostic> diags;
  bool ok() const;                                  // no errors (warnings allowed)
  const Diagnostic* first_error() const;
  const BufferInfo* find(std::string_view name) const;
};

/// Validates `t` and annotates its AST in place: every Expr::ty, every Stmt::init and Stmt::reduction_vars.
/// Never throws for program defects (they go to diags). Offsets and excerpts refer to the canonical text
/// print_program(t.program) (LEIR.md §12): for text parsed without whitespace these are the source offsets; for
/// in-memory or edited trees, and for sources with whitespace, the validator prints the program once (only when a
/// diagnostic points into it), re-parses it and maps each node to its canonical offset. Diagnostics are sorted by
/// offset; known-list diagnostics (W004, E210 "never written": offset 0, path "known[i]") come last.
/// Codes: E002/E008 (malformed in-memory trees), E006 (in-memory extents), E106, E110-E114, E201-E216, W001-W005.
/// Implementation: validate.cpp (driver), buffers.cpp (§7.1), scopes.cpp (§5), typing.cpp (§7.3-7.4),
/// range_checks.cpp + ranges.cpp (§7.2), init_rule.cpp (§8.4).
Analysis analyze(Task& t);

/// analyze() and throw LeirError with the first error, if any. Returns the analysis (warnings included).
Analysis validate_or_throw(Task& t);

/// §8.5: is loop `var` (of kind P, V or B, extent > 1) reducing, i.e. does some statement in `body_owner`'s body
/// (the nest whose header holds the loop, nested nests included) have an LHS subscript that does not mention it?
bool is_reducing_loop(const Nest& nest_holding_loop, const std::string& var);

/// Does expression `e` mention loop variable `var` anywhere (subscripts included)?
bool mentions_var(const Expr& e, std::string_view var);

}  // namespace steptp::ir
