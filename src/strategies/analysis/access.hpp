// Buffer accesses of statements and nests (STRATEGIES.md §1 "Access", "Lazy branch").
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {

struct Access {
  const ir::Expr* ref = nullptr;  // the Ref node (name ref->text, subscript ref->args)
  bool write = false;             // the statement's LHS
  bool lazy = false;              // inside the 2nd or 3rd argument of an if_then_else (at any depth)
  bool gather = false;            // inside a subscript entry of another reference
  const std::string& buffer() const { return ref->text; }
};

/// Accesses of one statement: the write first, then reads in pre-order (LHS subscript gathers, then the RHS).
std::vector<Access> stmt_accesses(const ir::Stmt& s);

/// Buffers read / written anywhere in a nest (nested nests included).
struct NestBuffers {
  std::set<std::string> read, written;
};
NestBuffers nest_buffers(const ir::Nest& n);

/// Is every entry of `ref` a plain key, the keys distinct and exactly the loop keys of `header`? Such an access
/// touches one element per header iteration and each element in one iteration only (the exact same-iteration
/// shortcuts of operator_fusion and confined()).
bool full_header_subscript(const ir::Expr& ref, const std::vector<ir::Loop>& header);

/// Does any subscript entry of `ref` contain a buffer reference (a gather)?
bool has_gather(const ir::Expr& ref);

/// May two references to one buffer touch a common element? `a` is evaluated over the loops `la`, `b` over `lb`
/// (outermost first). False only when some subscript entry has exact static ranges (LEIR.md §7.2,
/// ir::index_range) over the two loop boxes that are disjoint, e.g. `F_{a,0}` and `F_{a,tx+1}` with tx in
/// [0, 1000): a sound, cheap test that lets strategies skip an isl question. Gathers and unbounded entries count
/// as "may overlap".
bool refs_may_overlap(const ir::Expr& a, const std::vector<const ir::Loop*>& la, const ir::Expr& b,
                      const std::vector<const ir::Loop*>& lb);

}  // namespace steptp::strategy::analysis
