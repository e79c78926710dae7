// Eager selects of the C++ and CUDA lowerings (LEIR.md §10.2, "Statements"). `if_then_else(c, a, b)` is emitted as
// `leir::select<T>(c, a, b)`, a function whose arguments are all evaluated, when evaluating both arms can never
// fault: every read in `a` and `b` has exact subscript ranges inside its buffer over the statement's loop box (no
// gather, no guarded read that may fall outside, e.g. a convolution's padding) and no arm divides integers with `/`.
// Otherwise it stays the lazy `c ? a : b`.
//
// Why: GCC vectorises an eager select as a blend of two unconditional loads. A bool element is read in the
// condition of an eager select as its byte (`leir::load_bool`): GCC vectorises no loop that loads a C++ bool, so an
// attention mask's select stayed a scalar loop with a branch per element. It is read as a byte nowhere else: a
// lazy `?:` on a byte condition whose arm reads memory is vectorised with masked loads, which GCC 12.2 gets wrong
// when the mask is broadcast over outer loops (wrong values in 192 of 512 lanes of a [2,4,8,8] masked copy).
#pragma once
#include <set>

#include "lower/common.hpp"

namespace steptp::lower {

struct EagerSelects {
  std::set<const ir::Expr*> selects;     // if_then_else calls to emit eagerly (addresses into the Prepared task)
  std::set<const ir::Expr*> byte_reads;  // bool reads in the conditions of those selects
};

/// The eager selects of `p`'s program.
EagerSelects find_eager_selects(const Prepared& p);

}  // namespace steptp::lower
