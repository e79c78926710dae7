// Internal to the validator (src/ir/validate*.cpp, typing.cpp, ranges.cpp, scopes.cpp, init_rule.cpp): a list of
// pending diagnostics that still point at AST nodes. analyze() turns them into Diagnostics whose offsets refer to
// the canonical text (LEIR.md §12) once all checks ran. Not a public contract.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ast.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"
#include "ir/typing.hpp"
#include "ir/validate.hpp"

namespace steptp::ir::detail {

struct PendingDiag {
  Diagnostic diag;             // offset = the node's own (source) offset; path set for task-level diagnostics
  const void* node = nullptr;  // the Expr/Stmt/Loop/Nest the diagnostic points at (null: path-based)
};

class DiagSink {
 public:
  void at(const Expr& e, Code code, std::string msg) { push(&e, e.offset, code, std::move(msg)); }
  void at(const Stmt& s, Code code, std::string msg) { push(&s, s.offset, code, std::move(msg)); }
  void at(const Loop& l, Code code, std::string msg) { push(&l, l.offset, code, std::move(msg)); }
  void at(const Nest& n, Code code, std::string msg) { push(&n, n.offset, code, std::move(msg)); }
  /// A diagnostic about the task's known list (no text position).
  void at_path(std::string path, Code code, std::string msg) {
    PendingDiag p;
    p.diag.code = code_str(code);
    p.diag.message = std::move(msg);
    p.diag.path = std::move(path);
    items.push_back(std::move(p));
  }
  std::vector<PendingDiag> items;

 private:
  void push(const void* node, std::uint32_t off, Code code, std::string msg) {
    PendingDiag p;
    p.diag.code = code_str(code);
    p.diag.message = std::move(msg);
    p.diag.offset = off;
    p.node = node;
    items.push_back(std::move(p));
  }
};

/// A statement of the program with its context, in text (pre-)order.
struct StmtCtx {
  Stmt* stmt = nullptr;
  std::vector<const Loop*> loops;  // enclosing loops, outermost first
  std::size_t top = 0;             // top-level nest index
  bool well_formed = true;         // no malformed node (in-memory trees only); otherwise skipped by later passes
};

/// One occurrence of a buffer reference, in text order (LHS ref, LHS subscript gathers, then RHS).
struct Occurrence {
  const Expr* ref = nullptr;
  std::size_t stmt = 0;  // index into the StmtCtx list
  bool write = false;
  bool guarded = false;  // inside the 2nd/3rd argument of an if_then_else (§7.2)
  int buf = -1;          // index into ProgramFacts::bufs (set by check_buffers)
};

/// Per-buffer facts gathered by the buffer pass and completed by the range pass.
struct BufState {
  BufferInfo info;
  int known_index = -1;                 // index into Task::known, -1 for intermediates
  std::size_t rank = 0;
  const Expr* first = nullptr;          // first occurrence in the text (nullptr: known buffer never mentioned)
  const Expr* first_write = nullptr;
  std::size_t first_write_top = SIZE_MAX;
  bool read = false;
  bool rank_error = false;              // some occurrence had another rank: skip range checks
  std::vector<std::int64_t> write_hi;   // per dimension: max hi over writes (-1: none yet)
  bool write_ranges_known = true;       // false if some write entry had no static range
};

struct ProgramFacts {
  std::vector<StmtCtx> stmts;
  std::vector<Occurrence> occs;
  std::vector<BufState> bufs;
  std::vector<int> stmt_target;         // per statement: index into bufs of its target (-1: malformed)
  std::unordered_map<std::string, int> index;  // buffer name -> index into bufs
  int find(const std::string& name) const;
};

/// Collects statements (with well-formedness checks E002/E008 for in-memory trees) and occurrences.
ProgramFacts collect(Program& p, DiagSink& sink);
/// §5 scope rules: E006 (in-memory extents), E111-E114.
void check_scopes(const Program& p, DiagSink& sink);
/// §7.1 buffers and §7.4 warnings: E106, E110, E201-E205, E210 (never written), E214, W001, W002, W004, W005.
void check_buffers(const Task& t, ProgramFacts& f, DiagSink& sink);
/// §7.3/§7.4 typing of one statement: annotates Expr::ty; E211, E212, E213, E216.
void type_statement(Stmt& s, DType target, const RefDtypeFn& ref_dtype, DiagSink& sink);
/// §7.2 range checks and shape inference: E206-E210, E215; fills intermediate shapes.
void check_ranges(const Task& t, ProgramFacts& f, DiagSink& sink);

}  // namespace steptp::ir::detail
