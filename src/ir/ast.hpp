// LEIR abstract syntax tree (LEIR.md §4). Value semantics: copying a Program deep-copies it, so strategies can
// copy a task and edit the copy. Nodes carry their 1-based source offset (0 when built in memory) and a few
// annotations that the validator fills in (static types, initialisers); annotations are never printed.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.hpp"

namespace steptp::ir {

enum class ExprKind : std::uint8_t {
  IntLit,    // integer literal: ival, text = source spelling (empty: print ival)
  FloatLit,  // float literal: fval, text = source spelling (empty: print Python repr of fval)
  Inf,       // keyword `inf`
  Var,       // loop variable used as a value or index: name
  Ref,       // buffer reference: name, dtype, scope, args = subscript entries (empty for 0-d)
  Call,      // fn(args...)
  Neg,       // unary minus: args[0]
  Binary,    // args[0] bop args[1]
  Compare,   // comparison chain: args[0] cmps[0] args[1] cmps[1] args[2] ...; a<b<c means a<b & b<c
  Group,     // explicit parentheses from the source: (args[0])
};

enum class BinOp : std::uint8_t { Or, And, Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
enum class CmpOp : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
enum class Func : std::uint8_t { Exp, Log, Sqrt, Abs, Erf, Max, Min, IfThenElse };

std::string_view binop_text(BinOp op);   // "|" "&" "+" "-" "*" "/" "//" "%" "**"
std::string_view cmpop_text(CmpOp op);   // "<" "<=" ">" ">=" "==" "!="
std::string_view func_name(Func f);      // "exp" ... "if_then_else"
int func_arity(Func f);                  // 1, 2 or 3

/// Precedence used by the printer and parser, loosest first: | (1), & (2), comparisons (3), + - (4),
/// * / // % (5), unary - (6), ** (7). Atoms are 8.
int binop_precedence(BinOp op);

/// An expression node. `args` holds the children (operands, call arguments or subscript entries).
struct Expr {
  ExprKind kind = ExprKind::IntLit;
  BinOp bop = BinOp::Add;       // Binary
  Func fn = Func::Exp;          // Call
  DType dtype = DType::F32;     // Ref: superscript dtype as written
  Scope scope = Scope::Global;  // Ref: superscript scope as written
  std::int64_t ival = 0;        // IntLit
  double fval = 0.0;            // FloatLit
  std::string text;             // Var/Ref: the name; IntLit/FloatLit: source spelling ("" if synthesized)
  std::vector<CmpOp> cmps;      // Compare: args.size() == cmps.size() + 1
  std::vector<Expr> args;
  std::uint32_t offset = 0;     // 1-based offset of the node's first token in the source; 0 if synthesized

  // ---- annotations set by the validator (ir/validate.hpp); not part of equality or printing ----
  DType ty = DType::Invalid;    // static type after weak-constant resolution (§7.3)

  bool is_ref() const { return kind == ExprKind::Ref; }
  bool is_ref(std::string_view name) const { return kind == ExprKind::Ref && text == name; }
  std::size_t rank() const { return args.size(); }  // Ref only
};

/// Structural equality: same kinds, operators, names, dtypes/scopes, literal values and spellings, children.
/// Ignores offsets and annotations.
bool operator==(const Expr& a, const Expr& b);

/// Is `e` a power whose exponent, parentheses aside, is the literal 2 (`2` or `2.0`)? Such a power is evaluated as
/// the exact square x*x (one correctly rounded product) by the interpreter and every lowering, not by pow(x, 2):
/// glibc's pow is not correctly rounded (pow(x, 2.0) differs from x*x in the last bit for ~0.02% of doubles, powf
/// for subnormal results), numpy and PyTorch square directly, and x*x vectorises without a libm call.
bool is_square(const Expr& e);

// ---- builders (offset 0, no spelling: the printer uses canonical forms) ----
Expr make_int(std::int64_t v);
Expr make_float(double v);
Expr make_inf();
Expr make_var(std::string name);
Expr make_ref(std::string name, DType dtype, Scope scope, std::vector<Expr> subscript);
Expr make_call(Func f, std::vector<Expr> args);
Expr make_neg(Expr a);
Expr make_binary(BinOp op, Expr a, Expr b);
Expr make_compare(CmpOp op, Expr a, Expr b);
Expr make_group(Expr a);

enum class LoopKind : std::uint8_t { L, P, V, U, B };
char loop_kind_char(LoopKind k);

/// One loop header `K^{extent}_{var=0}`.
struct Loop {
  LoopKind kind = LoopKind::L;
  std::int64_t extent = 1;  // in [1, 2^31)
  std::string var;
  std::uint32_t offset = 0;
  bool operator==(const Loop& o) const { return kind == o.kind && extent == o.extent && var == o.var; }
};

/// Accumulator initialiser identity (LEIR.md §8.4). NegInf/PosInf mean the type's min/max for integers.
enum class InitKind : std::uint8_t { None, Zero, One, NegInf, PosInf };

/// A statement `lhs = rhs;` where lhs is a Ref.
struct Stmt {
  Expr lhs;
  Expr rhs;
  std::uint32_t offset = 0;
  // ---- annotations set by the validator ----
  InitKind init = InitKind::None;
  std::vector<std::string> reduction_vars;  // loop vars in the statement but not in lhs subscript (header order)
  bool operator==(const Stmt& o) const { return lhs == o.lhs && rhs == o.rhs; }
};

struct Item;

/// A nest: headers (outermost first) and a body of items. `tail` marks a nest that was written in tail form
/// `H1[s1;]H2[s2;];` — it is the last item of its parent's body and prints after the parent's `]`.
struct Nest {
  std::vector<Loop> loops;
  std::vector<Item> body;
  bool tail = false;
  std::uint32_t offset = 0;
  bool operator==(const Nest& o) const;
};

/// A body item: a statement or a nested nest.
struct Item {
  std::variant<Stmt, Nest> v;
  bool is_stmt() const { return v.index() == 0; }
  bool is_nest() const { return v.index() == 1; }
  Stmt& stmt() { return std::get<Stmt>(v); }
  const Stmt& stmt() const { return std::get<Stmt>(v); }
  Nest& nest() { return std::get<Nest>(v); }
  const Nest& nest() const { return std::get<Nest>(v); }
  bool operator==(const Item& o) const { return v == o.v; }
};

/// A program: top-level nests in execution order.
struct Program {
  std::vector<Nest> nests;
  bool operator==(const Program& o) const { return nests == o.nests; }
};

// ---- traversal helpers ----

/// Calls f(stmt, loops) for every statement in text (pre-)order, with the full list of enclosing loops
/// (outermost first, nested nests included) and the top-level nest index.
template <class F>
void for_each_stmt(const Program& p, F&& f);
template <class F>
void for_each_stmt_mut(Program& p, F&& f);

/// Calls f(expr) for every node of `e` in pre-order (node before children, children left to right).
template <class F>
void visit_expr(const Expr& e, F&& f) {
  f(e);
  for (const auto& c : e.args) visit_expr(c, f);
}
template <class F>
void visit_expr_mut(Expr& e, F&& f) {
  f(e);
  for (auto& c : e.args) visit_expr_mut(c, f);
}

namespace detail {
template <class N, class F>
void walk_nest(N& n, std::vector<const Loop*>& loops, std::size_t top, F& f) {
  for (const auto& l : n.loops) loops.push_back(&l);
  for (auto& it : n.body) {
    if (it.is_stmt()) f(it.stmt(), loops, top);
    else walk_nest(it.nest(), loops, top, f);
  }
  loops.resize(loops.size() - n.loops.size());
}
}  // namespace detail

template <class F>
void for_each_stmt(const Program& p, F&& f) {
  std::vector<const Loop*> loops;
  for (std::size_t i = 0; i < p.nests.size(); ++i) detail::walk_nest(p.nests[i], loops, i, f);
}
template <class F>
void for_each_stmt_mut(Program& p, F&& f) {
  std::vector<const Loop*> loops;
  for (std::size_t i = 0; i < p.nests.size(); ++i) detail::walk_nest(p.nests[i], loops, i, f);
}

}  // namespace steptp::ir
