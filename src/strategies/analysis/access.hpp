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

}  // namespace steptp::strategy::analysis
