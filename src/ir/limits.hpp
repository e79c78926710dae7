// Input limits of LEIR (LEIR.md §12, E014 and E015): how large and how deep a program may be. The parser enforces
// both before any recursive pass runs; the validator re-checks the depth of programs built in memory (strategy
// results, generated programs), with an iterative walk, before its own recursive passes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/error_codes.hpp"
#include "ir/ast.hpp"

namespace steptp::ir {

/// Largest LEIR text the parser accepts (bytes); larger input is refused with E014 before it is lexed.
inline constexpr std::size_t kMaxProgramBytes = std::size_t{1} << 20;

/// Deepest syntax tree the parser accepts (E015): on any path from a top-level nest to a leaf, each loop header,
/// each statement and each expression node (operator, comparison chain, call, subscripted reference, group,
/// unary minus) counts one level. A left-associative chain `a+b+c` is a spine of one node per operator. The
/// reference corpus and the built-in workloads stay below 30. Every recursive pass (printer, typing, validator,
/// interpreter compile, lowerings, strategies) may rely on this bound for parsed programs.
inline constexpr int kMaxNestingDepth = 256;

/// True for the codes of refused input (E014 size, E015 depth, E107 task size): the input was not examined.
bool is_input_limit_error(Code code);
/// The same for a diagnostic's code text (false for a text that is no code).
bool is_input_limit_error(std::string_view code);

/// Height of the syntax tree of `p` as kMaxNestingDepth counts it (0 for an empty program). Iterative: safe on
/// trees of any depth. `deepest_offset`, when given, receives the source offset of the deepest leaf's statement
/// (0 for nodes built in memory).
int syntax_height(const Program& p, std::uint32_t* deepest_offset = nullptr);

/// Statement executions of one run of `p` (the interpreter's steps): over all statements, the product of the
/// extents of their enclosing loops. Exact, since LEIR loops are rectangular and every statement runs in every
/// iteration (if_then_else selects values, not statements). Saturates at UINT64_MAX.
std::uint64_t statement_executions(const Program& p);

}  // namespace steptp::ir
