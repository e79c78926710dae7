// Numerical conditioning of a program, for the rewrites that change rounding (class R, STRATEGIES.md §6) and must
// still pass the equivalence check on every draw of LEIR.md §11: which input buffers a value is computed from, and
// whether the program normalises by a root (a standard deviation or a norm), where a lost bit is amplified.
//
// The check draws every input buffer at its own scale (distribution S: |N| x 2^-10 up to |N| x 2^10) and puts
// elements on the programs' literals (K: a group whose values all equal a literal has a variance of 0, so
// `(X-mean)/sqrt(var+eps)` divides by sqrt(eps)). Two values computed from the same input buffers keep one scale
// under S; a value computed from other buffers may be 2^20 times larger or smaller. A normalisation by a root
// turns an absolute error of its inputs into an output error up to 1/sqrt(eps) (about 316 for eps = 1e-5) larger.
#pragma once
#include <set>
#include <string>

#include "ir/task.hpp"

namespace steptp::strategy::analysis {

/// The known non-output buffers that `buffer`'s value is computed from: itself when it is one (an input or a
/// parameter), and the closure over every statement writing a buffer of the buffers its right-hand side reads
/// (subscripts included). A buffer no statement writes and that is not known gives the empty set.
std::set<std::string> source_buffers(const ir::Task& t, const std::string& buffer);

/// Does the program divide by a root of data: a divisor (of `/`, or the base of a negative power) that contains a
/// `sqrt` of an expression reading a buffer, or reads a buffer whose value is computed with one (closure over
/// writers)? True for LayerNorm, GroupNorm, BatchNorm, InstanceNorm and RMSNorm as the catalogue writes them, and
/// for cosine similarity; false for a constant root such as GELU's `x/sqrt(2)`.
bool divides_by_root(const ir::Task& t);

/// Is the reduced operand `operand` a statistic of one input tensor: exactly one buffer is read with a subscript
/// that uses a key of `reduction_keys`, that buffer is a known non-output buffer, and every other buffer read is
/// indexed without them (a statistic computed earlier, broadcast over the group)? True for the sums of a
/// normalisation (LayerNorm's sum of x and of (x - mean)**2, RMSNorm's sum of squares); false for a matrix product
/// (two buffers read with the reduction key) and for a sum over an intermediate (GroupNorm after a Gemm).
bool statistic_of_one_input(const ir::Task& t, const ir::Expr& operand, const std::vector<std::string>& reduction_keys);

}  // namespace steptp::strategy::analysis
