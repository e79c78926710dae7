// What the identity-insertion strategies share (STRATEGIES.md §11 entries 37 exponential_split, 38
// multiplicative_split, 39 additive_split; §9.2: no GiNaC): the eligible access occurrences of a statement, the
// pivots of an access X, and the (occurrence, pivot) sites of entries 38 and 39.
//
// Statements: see site_statements (a rounding change must not reach a comparison or an integer result).
// Occurrences (entries 38/39 "Site"; §7.4 lazy-branch rule): Ref nodes of a statement's right-hand side that are
// not the statement's output buffer (so never an accumulator or a prefix read), not inside a lazy branch of
// if_then_else, not inside a condition (the first argument of if_then_else, a comparison, `&` or `|`), not inside a
// subscript, and of a float static type (LEIR.md §7.3). The float restriction keeps the rewrite type-neutral: an
// integer X with an inserted float pivot would promote the surrounding arithmetic to float (and `/` on integers is
// invalid, E213), so the statement would no longer compute the same operations.
//
// Pivots of X (entry 37 "Site", shared by 38 and 39 with their own identity):
//  - previous element: `if_then_else(k-1<0,<identity>,X_{...,k-1})`, where X's last entry k is a plain loop key
//    in scope that occurs in no other entry of X, and no entry is a gather. Then X_{...,k-1} is the element the same occurrence read at
//    iteration k-1 (all other keys equal), so it is in bounds and initialised. X must be a global buffer (an s/l
//    buffer may not be read across bound iterations, E307), and when the statement's top-level nest writes X, k
//    must be a serial loop (L/U): a parallel loop would read another iteration's write (E306).
//  - earlier-nest access: for each buffer D written by a top-level nest before the statement's nest and not
//    written by the statement's nest, global (s/l buffers stay in one nest, E214), the LHS subscript of each
//    statement of the last such nest that writes D ("not overwritten since": a writer in an earlier nest was
//    overwritten; program order, structurally distinct) whose entries are distinct plain keys, all in scope at
//    the site with an extent there no larger than at the writer (so the writer initialised every element read),
//    and a superset of the output's keys (the keys in scope that occur in the statement's LHS).
//  - every pivot has X's float dtype (not bool; a different float type would change the evaluation type of the
//    rewritten operation) and is finite-valued: no statement that writes its buffer contains `inf`.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/task.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/subexpr.hpp"
#include "strategies/analysis/typed.hpp"
#include "strategies/facts.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::algebraic {

/// The statements the three strategies may rewrite, in program order: those whose output is float-typed and whose
/// value never decides a comparison, a condition, a subscript or an integer/bool result, directly or through other
/// buffers (a closure over the writers of every buffer read there). Rounding changes are harmless to a float result
/// checked within tolerance, but flip `A>=D` in argmax or a float-to-integer conversion outright.
std::vector<analysis::StmtCtx> site_statements(const ir::Task& typed);

/// An eligible access occurrence X of a statement (see the file comment).
struct Occurrence {
  analysis::ExprPath path;     // SiteRef::expr form: 1 = RHS, then child indices
  const ir::Expr* ref = nullptr;
  bool in_exp = false;         // inside the argument of an exp (entry 39 "Refused pivots")
  bool in_ratio = false;       // in the numerator of a division whose divisor reads X's buffer (entry 39)
};

/// Eligible occurrences of a typed statement (Expr::ty filled in), in pre-order.
std::vector<Occurrence> occurrences(const ir::Stmt& typed);

/// Is the node at `path` of `s` outside lazy branches, conditions and subscripts? (exp sites of entry 37.)
bool evaluated_unconditionally(const ir::Stmt& s, const analysis::ExprPath& path);

enum class PivotKind { Previous, Earlier };

struct Pivot {
  PivotKind kind = PivotKind::Previous;
  std::string param;       // parameter value: "prev", or the access without superscripts ("D_{tx}")
  ir::Expr access;         // X_{...,k-1} or the earlier-nest access
  ir::Expr expr;           // what is inserted: if_then_else(k-1<0,<identity>,X_{...,k-1}) or the access
  std::string key;         // Previous: k
  std::uint32_t nest = 0;  // Earlier: the last top-level nest before the site that writes the buffer
  /// {kind ("previous element" | "earlier nest"), access, expr, key | nest} for facts.
  nlohmann::json json() const;
};

/// Pivots of access `x` (a Ref of statement `sc` of the typed task `typed`), in order: the previous element (with
/// `identity` as the literal for k=0), then earlier-nest accesses in program order of their writers.
std::vector<Pivot> pivots(const ir::Task& typed, const analysis::StmtCtx& sc, const ir::Expr& x, std::int64_t identity);

// ---- magnitudes (numeric safety of the inserted identities) ----
//
// The identities hold in real arithmetic, but each one evaluates intermediate values the original never computes:
// exp(X-N) and exp(N-R) can overflow to inf (then inf*0 = NaN) where exp(X-R) is finite; X/Y overflows or Y
// underflows to 0 (then 0*inf) when Y is tiny; (X+Y)-Y loses X when |Y| dwarfs it. §6 does not make overflow a
// domain condition, but §2 rule 2 requires every candidate to pass the equivalence check (LEIR.md §11, run in f64
// on draws of magnitude at most 2^6, or a program literal under distribution K). So the strategies offer a pivot
// only when static magnitude bounds rule these failures out, assuming every known input element has magnitude at
// most β = max(2^6, largest literal of the program)·(1+2^-5) and, when non-zero, at least 1e-20:
//   entry 37: N is R, or an earlier-nest N with hi(X)+hi(N) <= b and hi(N)+hi(R) <= b in the exp node's type (exp
//   is finite and normal on [-708, 709] in f64: b = 700; [-87, 88] in f32 and bf16: b = 87; f16: b = 9), since
//   typed runs compute the factors in that type; never the previous element (exponential_split.cpp);
//   entry 38: hi(Y) <= M, lo(Y) >= m and hi(X)/lo(Y) <= M, with M and m X's type's largest finite and smallest
//   normal values (f64: 1e290 and 1e-290), since typed runs compute X/Y in that type;
//   entry 39: hi(Y) <= 2^9 for an f64 X, 2^7 for f32, 2 for f16 and 2^-2 for bf16: typed runs compute X+Y in X's
//   type (f16 and bf16 rounded after every operation), so (X+Y)-Y loses up to half an ulp of X+Y there, and that
//   stays within the type's absolute tolerance (LEIR.md §11; at most 6e-14, 2^-17, 2^-10, 2^-10). The check's
//   skewed draws scale each input buffer apart, outside this model, so entry 39 also requires an earlier-nest Y
//   computed from X's own input buffers, and offers nothing in a program that divides by a root (normalisations
//   amplify the absolute error; analysis/conditioning.hpp).
// This excludes, for example, splitting exp(S-M) of an attention score matrix S (a sum of products).

/// Bounds on |v| for every value v an expression of the task may take: hi an upper bound (inf: unbounded, or the
/// value may be infinite or NaN: a quotient, `//` or `%` by a divisor, or a negative power of a base, that sign
/// analysis does not prove non-zero; a log of an argument not proven positive; a sqrt of one not proven
/// non-negative), lo a lower bound over the non-zero values (0: may be arbitrarily close to 0).
struct Magnitude {
  double hi = 0, lo = 0;
};

/// The magnitude bounds of `e` (an expression of `t`'s program, or one built from its accesses). Buffers are
/// bounded over all their writers in one program-order pass (reductions scaled by their trip counts; a statement
/// that reads its own output otherwise is unbounded). Memoised per thread on the task.
Magnitude magnitude(const ir::Task& t, const ir::Expr& e);

// ---- entries 38 and 39: sites are statements, parameters (occurrence, pivot) ----

/// Decides whether a pivot is offered for an occurrence (entry 38: Y != 0 proven or the Guard policy). Called with
/// the original task.
using PivotFilter = std::function<bool(const ir::Task& t, const Occurrence& occ, const Pivot& p)>;

/// One (occurrence, pivot) choice of a statement.
struct OperandChoice {
  std::shared_ptr<const analysis::TypedTask> typed;  // keeps the nodes below alive
  analysis::StmtCtx sc;                              // in typed->task
  Occurrence occ;
  Pivot pivot;
  std::int64_t occurrence_index = 0;      // the `occurrence` parameter: index among the eligible occurrences
};

/// The per-statement sites of entries 38/39: every statement with at least one offered pair; parameters
/// `(occurrence, pivot)` by pre-order, then pivot order. A pivot structurally equal to X is never offered.
std::vector<Site> operand_sites(const ir::Task& t, std::int64_t identity, const PivotFilter& offer);

/// Re-checks candidate `c` of entry 38/39 (S001/S002 when it is not a current candidate) and returns its choice.
OperandChoice operand_choice(const StrategyInfo& info, const ir::Task& t, const Candidate& c, std::int64_t identity,
                             const PivotFilter& offer);

/// Facts shared by the three strategies: site nest and statement, `statement`, and `pivot`.
void pivot_facts(Facts& f, const ir::Task& t, const Candidate& c, const ir::Stmt& s, const Pivot& p);

/// Replaces the node at `path` of the statement at (`nest`, `item`) of `t`'s copy by `to`; returns the copy.
ir::Task replace_in_copy(const ir::Task& t, const analysis::NestPath& nest, std::uint32_t item,
                         const analysis::ExprPath& path, const ir::Expr& to);

/// The access without superscripts, e.g. "D_{tx,a}" (parameter values).
std::string compact_access(const ir::Expr& ref);

}  // namespace steptp::strategy::algebraic
