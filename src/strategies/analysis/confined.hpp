// Scope confinement (STRATEGIES.md §7.4; LEIR.md §6, E214/E307): may buffer X live in scope `s` or `l`?
// Conservative test: X is used in exactly one top-level nest, that nest's own header has a B loop, and every
// read of X only sees writes (memory-based flow, isl, §7.1) from the same iteration of that first B loop — and
// for `l` also of every B loop enclosing the read. Scope `g` is always allowed.
#pragma once
#include <map>
#include <string>

#include "ir/ast.hpp"
#include "ir/dtype.hpp"

namespace steptp::strategy::analysis {

bool confined(const ir::Program& p, const std::string& buffer, ir::Scope scope);

/// The number of top-level nests of `p` that read or write each buffer (one walk over the program). confined()
/// is false for s and l whenever the count exceeds 1, so a caller asking about every buffer filters with this
/// first instead of letting each confined() call walk every nest.
std::map<std::string, int> top_nests_per_buffer(const ir::Program& p);

/// confined() for every s/l intermediate accessed in top-level nest `top` (with the scope it carries there).
bool scopes_confined(const ir::Program& p, std::uint32_t top, std::string* detail = nullptr);

}  // namespace steptp::strategy::analysis
