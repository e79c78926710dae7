// The AST <-> GiNaC bridge of the algebraic family (STRATEGIES.md §9.1), in one place.
//
// Conversion (AST -> GiNaC): GiNaC objects are built from AST nodes, never from text. Each distinct access (buffer
// plus subscript, structurally) becomes one `realsymbol` (B1: `A_{tx,c}` and `A_{a,c}` differ); a loop key used as
// a value becomes a `realsymbol`; a decimal literal becomes an exact rational (`1e-05` -> 1/100000) and the literal
// table keeps its spelling; `+ - * /`, `exp`, `log`, `abs`, `sqrt` (as x^(1/2)) and `**` with a numeric exponent
// map to GiNaC natives; `max`, `min`, `if_then_else`, `erf`, comparisons, `inf`, `//`, `%`, `&`, `|` and
// non-numeric powers become opaque symbols, one per structurally distinct sub-tree, restored unchanged.
//
// Back-conversion (GiNaC -> AST) ignores GiNaC's operand order (it follows symbol serial numbers, so it depends on
// what the process did before) and imposes the §9.1 order: in sums, positive terms before negative ones, the
// constant last in each group; in products, the numeric coefficient first; all other operands by their
// first-occurrence key (the sorted positions, in the statement's pre-order, of the atoms they contain; a prefix
// sorts first), ties broken by the printed LEIR. A sum factor of a product is written with its first term (in that
// order, constant last) positive, the sign moved to the coefficient, so `-(D-A)*(A+D)` and `(A-D)*(A+D)` print
// alike whatever sign GiNaC's serial-number order chose. `x^(1/2)` prints as
// `sqrt(x)`, negative integer powers as divisions; any other non-integer exponent throws NotRepresentable (the
// candidate is not offered). A literal whose value is unchanged keeps its spelling; a new constant prints as an
// integer, or as the shortest decimal that round-trips in the statement's dtype.
//
// GiNaC is not thread-safe: every use runs under the algebraic family's lock (strategies/strategy_lock.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <ginac/ginac.h>

#include "ir/ast.hpp"

namespace steptp::strategy::algebraic {

/// A GiNaC result the back-converter cannot write in LEIR (a fractional exponent other than +-1/2, a function
/// LEIR lacks). The strategy offers no candidate.
class NotRepresentable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One statement's atoms and the two conversions.
class Bridge {
 public:
  /// Numbers the atoms of `stmt` (LHS, then RHS) by first occurrence in pre-order. `dtype` is the statement's
  /// evaluation type, used to print new constants.
  explicit Bridge(const ir::Stmt& stmt, ir::DType dtype = ir::DType::F32);

  /// The GiNaC form of `e` (a node of the statement given to the constructor, or any node built from its atoms).
  GiNaC::ex to_ex(const ir::Expr& e);
  /// The AST of `x` in the §9.1 order. Throws NotRepresentable.
  ir::Expr to_ast(const GiNaC::ex& x) const;

  /// A lone sum that GiNaC defines only up to a unit (a gcd, a factor), negated if needed so that its first term
  /// (§9.1 order, constant last) is positive; anything else unchanged. (Sums inside products are normalised by
  /// to_ast itself.) Makes the choice independent of GiNaC's symbol serial numbers.
  GiNaC::ex canonical_signs(const GiNaC::ex& x) const;

  /// Every atom symbol seen so far, in first-occurrence order.
  GiNaC::lst symbols() const;
  /// The atoms of `x` (symbols), in first-occurrence order.
  std::vector<GiNaC::ex> atoms_of(const GiNaC::ex& x) const;
  /// Is `x` an atom symbol of this bridge? The AST it stands for, printed.
  bool is_atom(const GiNaC::ex& x) const;
  std::string atom_text(const GiNaC::ex& sym) const;
  /// True when the atom is an opaque node (max, min, if_then_else, ...), not an access or a loop key.
  bool is_opaque(const GiNaC::ex& sym) const;
  /// Is `x` a polynomial in the atoms (sums, products, non-negative integer powers of atoms and numbers only)?
  bool is_polynomial(const GiNaC::ex& x) const;
  /// The first-occurrence key of `x` (sorted atom positions).
  std::vector<std::uint32_t> key_of(const GiNaC::ex& x) const;
  /// Sorts operands by first-occurrence key, ties by printed LEIR (§9.1).
  void sort_by_key(std::vector<GiNaC::ex>& v) const;
  /// Printed LEIR of to_ast(x) (NotRepresentable propagates).
  std::string print(const GiNaC::ex& x) const;

 private:
  struct Atom {
    ir::Expr node;
    GiNaC::realsymbol sym;
    std::uint32_t pos = 0;  // first-occurrence position in the statement's pre-order
    bool opaque = false;
  };
  std::vector<Atom> atoms_;                    // in first-occurrence order
  std::map<std::string, std::size_t> by_text_;  // printed node -> atoms_ index
  std::map<std::string, std::uint32_t> pos_;    // printed node -> pre-order position (whole statement)
  std::map<std::string, std::string> literal_spelling_;  // exact rational (GiNaC print) -> original spelling
  ir::DType dtype_;

  std::size_t atom(const ir::Expr& node, bool opaque);
  const Atom* find(const GiNaC::ex& sym) const;
  ir::Expr number(const GiNaC::numeric& n) const;
  ir::Expr sum(const GiNaC::ex& x) const;
  ir::Expr product(const GiNaC::ex& x) const;
  ir::Expr power(const GiNaC::ex& base, const GiNaC::numeric& n) const;
  bool first_term_negative(const GiNaC::ex& sum) const;
};

/// Does `e` give GiNaC, as a real number, a value of a wrapping integer type (unsigned, or signed narrower than 64
/// bits: LEIR.md §8.2 wraps it to the type's width): an access of such a buffer, or an opaque node (max,
/// if_then_else, a wrapping integer sum, ...) of such a type, outside subscripts and opaque interiors? LEIR
/// evaluates an operation between two integers in integer arithmetic, so a rewrite that regroups such a value can
/// create wrapping arithmetic the original did not have: `(C-(2.0+1.0))*G` with G a u32 is float arithmetic, its
/// expansion `C*G-3*G` computes `3*G` in u32 and wraps (differential fuzzer, seed 100707). A node for which this
/// holds is no site of the algebraic family (site.cpp). i64 values (loop keys, i64 buffers) and bools stay
/// algebraic, as in the conversion: an i64 wraps only at |values| >= 2^63.
bool reads_wrapping_integer(const ir::Expr& e);

/// The exact rational of a decimal literal's spelling ("1e-05" -> 1/100000, "0.5" -> 1/2, "3" -> 3).
GiNaC::numeric exact_rational(const std::string& spelling);

/// Shortest decimal that round-trips `v` in `dtype` (f32: as a float; otherwise as a double), Python-style.
std::string shortest_decimal(double v, ir::DType dtype);

}  // namespace steptp::strategy::algebraic
