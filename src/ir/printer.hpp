// Canonical LEIR printer (LEIR.md §9) and task hash.
#pragma once
#include <cstdint>
#include <string>

#include "ir/ast.hpp"
#include "ir/task.hpp"

namespace steptp::ir {

/// Canonical text of a program: no whitespace; literals keep their source spelling; synthesized trees get only
/// the parentheses precedence requires. print_program(parse_program(t)) == t for whitespace-free t.
std::string print_program(const Program& p);
std::string print_nest(const Nest& n);
std::string print_stmt(const Stmt& s);   // "lhs=rhs;"
std::string print_expr(const Expr& e);
std::string print_loop(const Loop& l);   // "L^{8}_{a=0}"
/// Subscript entries joined by ',' (no braces); "" for 0-d.
std::string print_subscript(const Expr& ref);

/// Python repr of a double (LEIR.md §9 rule for synthesized float literals): 1e-05, 0.0001, 1.0, 1e+16.
std::string python_float_repr(double v);

/// Stable 64-bit FNV-1a hash of the task's identity: the canonical LEIR text plus the known signature
/// (name, role, dtype, shape of each known buffer, in order). Independent of workload/suite labels.
std::uint64_t task_hash(const Task& t);
/// task_hash as 16 lowercase hex digits.
std::string task_hash_hex(const Task& t);

}  // namespace steptp::ir
