// Scope confinement (STRATEGIES.md §7.4; LEIR.md §6, E214/E307): may buffer X live in scope `s` or `l`?
// Conservative test: X is used in exactly one top-level nest, that nest's own header has a B loop, and every
// read of X only sees writes (memory-based flow, isl, §7.1) from the same iteration of that first B loop — and
// for `l` also of every B loop enclosing the read. Scope `g` is always allowed.
#pragma once
#include <string>

#include "ir/ast.hpp"
#include "ir/dtype.hpp"

namespace steptp::strategy::analysis {

bool confined(const ir::Program& p, const std::string& buffer, ir::Scope scope);

/// confined() when the caller knows that top-level nest `top` is the only one that reads or writes `buffer`
/// (e.g. from memory::buffer_sites' nest count): skips the search over every nest.
bool confined_in_nest(const ir::Program& p, const std::string& buffer, ir::Scope scope, std::uint32_t top);

/// confined() for every s/l intermediate accessed in top-level nest `top` (with the scope it carries there).
bool scopes_confined(const ir::Program& p, std::uint32_t top, std::string* detail = nullptr);

}  // namespace steptp::strategy::analysis
