// Loop-carried dependence tests (STRATEGIES.md §7.2 syntactic, §7.1 isl) and the parallel-loop invariant of
// LEIR.md §8.5 (a non-reducing P/V/B loop carries no dependence).
#pragma once
#include <cstdint>
#include <string>

#include "ir/ast.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/reduction.hpp"

namespace steptp::strategy::analysis {

/// §7.2: key x of nest `n` is parallel by inspection when (1) every write in the nest has x as a plain entry and
/// (2) every access in the nest to a buffer the nest writes uses exactly that buffer's (single) write subscript.
bool parallel_by_inspection(const ir::Nest& n, const std::string& x);

/// How the no-carried-dependence verdict was reached.
struct CarryVerdict {
  bool carries = true;
  std::string method;  // "syntactic" or "isl"
};

/// Does loop `loop` of the nest at `path` carry a dependence? The syntactic test first, then isl over the
/// statements of the enclosing top-level nest (reduction dependences count: a reduction loop carries one).
CarryVerdict loop_carries(const ir::Program& p, const NestPath& path, std::uint32_t loop);

/// Structural shortcut of §7.1: top-level nest `top` holds a single statement, which is a reduction whose init is
/// continuing or which uses every key in scope, and no other buffer is written. Then every dependence of the nest
/// is a tagged reduction dependence, so every loop permutation (and tiling) respects the ordinary ones.
/// `red` receives the reduction.
bool only_reduction_dependences(const ir::Program& p, std::uint32_t top, Reduction* red = nullptr);

/// LEIR.md §8.5 invariant for top-level nest `top`: every P, V or B loop with extent > 1 that is not reducing
/// (ir::is_reducing_loop) carries no dependence. `detail` names the first offending loop.
bool parallel_loops_ok(const ir::Program& p, std::uint32_t top, std::string* detail = nullptr);

}  // namespace steptp::strategy::analysis
