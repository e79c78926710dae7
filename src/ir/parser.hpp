// LEIR lexer + recursive-descent parser (LEIR.md §3-§4).
#pragma once
#include <string_view>

#include "ir/ast.hpp"
#include "base/diag.hpp"
#include "ir/limits.hpp"

namespace steptp::ir {


/// Parses a LEIR program. Whitespace (space, tab, CR, LF) between tokens is ignored. Throws LeirError with codes
/// E001-E015 (lexical/syntax, size and depth limits), the 1-based offset of the offending token and a caret excerpt.
/// The parser itself recurses at most kMaxNestingDepth levels.
Program parse_program(std::string_view text);

/// Parses a single expression (used by tests and tools). Throws LeirError.
Expr parse_expr(std::string_view text);

}  // namespace steptp::ir
