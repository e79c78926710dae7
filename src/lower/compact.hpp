// Compaction of s/l intermediates in the C lowering (LEIR.md §10.2; TVM's CompactBufferAllocation).
//
// An `s`/`l` intermediate is a per-iteration array declared in the body of its top-level nest's first B header
// (before the nest when it has none). Its LEIR shape is the written extent over the whole nest, so the cache of
// `D_{tx,d*64+a}` under `B^{512}_{tx}` was a 512x512 array allocated once per tx iteration, although one iteration
// touches one row. The plan maps every subscript entry of such a buffer to the part that varies within one
// declaration:
//   * loop variables of the headers up to and including the first B header are fixed for the declaration's
//     lifetime and dropped (when every access has the same coefficient on them);
//   * a later header variable h of kind L or U is dropped from entry j when every access has the same coefficient
//     on it and |coef(h)| exceeds the span of the rest of the entry over all accesses. Distinct iterations of h then
//     touch disjoint elements, so (in a valid program no element is read before it is written, E301) every read
//     sees a write of its own h iteration, and the iterations can share storage. Variables are tried by decreasing
//     |coef|. P, V and B variables are never dropped: their iterations may run at once;
//   * the rest is shifted to start at 0 and divided by the gcd of its coefficients and offsets.
// The LEIR program is not rewritten (dropping a variable from a subscript would change which loops reduce and where
// accumulators are initialised, §8.4-8.5); only the emitted index arithmetic and the declared size change. A buffer
// with a non-affine entry (a gather, //, %) in any access keeps its LEIR layout.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ast.hpp"
#include "lower/common.hpp"

namespace steptp::lower {

/// How one subscript entry of a compacted buffer is emitted: (entry - dropped terms - lo) / g.
struct CompactDim {
  std::set<std::string> dropped;  // loop variables removed from the entry
  std::int64_t lo = 0;            // smallest value of the rest over all accesses
  std::int64_t g = 1;             // gcd of the rest's coefficients and offsets (>= 1)
};

/// The storage of one compacted buffer: its emitted shape (elements per dimension) and the entry maps.
struct CompactBuffer {
  std::vector<std::int64_t> shape;
  std::vector<CompactDim> dims;
  std::int64_t numel() const;
};

/// Compaction plan of the s/l intermediates of a prepared (validated) task, by buffer name. Only buffers whose
/// compacted size is smaller than their LEIR shape appear.
std::map<std::string, CompactBuffer> plan_compaction(const Prepared& p);

/// The affine entry `e` of a compacted buffer mapped by `d`, as int64_t arithmetic on the C loop variables
/// (`v_a`); `e` must be the entry the plan was made from (affine, dropped coefficients as planned).
std::string compact_entry_c(const ir::Expr& e, const CompactDim& d);

}  // namespace steptp::lower
