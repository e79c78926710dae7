// Initialiser hoisting of the C lowering (LEIR.md §10.2, "Initialisers"): an accumulator's initialiser
// `if (r1 == 0 && ...) X[i] = identity;` runs in the innermost loop, on every iteration, and keeps the compiler from
// holding a register block's accumulators in registers across the reduction. Where it is safe, the initialiser is
// emitted instead as its own loop nest just before the outermost reduction loop of its statement, over the spatial
// loops between that loop and the statement:
//
//   for c: for d: for a: { if (c == 0) E[d,a] = 0; E[d,a] += ... }
//   =>  for d: for a: E[d,a] = 0;   for c: for d: for a: E[d,a] += ...
//
// Both forms give every element its identity once, before its first update, when (the rule, checked per
// statement S writing X with reduction variables R):
//  1. every loop on the path from the outermost R loop down to S is in R or its variable occurs in S's LHS;
//  2. S's LHS is an injective function of those non-R loops: each entry affine, each such variable in at most one
//     entry, and within an entry the coefficients mixed-radix (sorted by magnitude, each at least one more than
//     the span of the smaller ones), so no element is initialised twice;
//  3. inside the outermost R loop, X occurs only in S, and only with the LHS's own subscript;
//  4. an `s`/`l` X is declared (inside its nest's first B loop) before that R loop, i.e. the R loop is nested in
//     that B loop or the nest has none.
// Otherwise the initialiser stays where it is.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "lower/common.hpp"

namespace steptp::lower {

/// One hoisted initialiser: its statement and the spatial loops of its init nest, outermost first.
struct HoistedInit {
  const ir::Stmt* stmt = nullptr;
  std::vector<const ir::Loop*> loops;
};

struct InitHoisting {
  /// The init nests to emit just before each loop (by address, into the Prepared task), in statement order.
  std::map<const ir::Loop*, std::vector<HoistedInit>> before;
  /// Statements whose initialiser is emitted by an init nest (and not inline).
  std::set<const ir::Stmt*> hoisted;
};

/// The hoisting plan of every top-level nest of `p` (rules above).
InitHoisting plan_init_hoisting(const Prepared& p);

}  // namespace steptp::lower
