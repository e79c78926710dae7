// What the power/log strategies (STRATEGIES.md §11 entries 29-32) share: the factors of a product node read from
// the AST (GiNaC evaluates on construction, §9.2, so `x**2*x**3` is already x^5 and `exp(A)*exp(A)` exp(2*A) once
// converted; site detection therefore looks at the AST factors), the power form `base^k` of a factor with a numeric
// exponent, a power written back by hand (so that GiNaC never re-evaluates it), the enclosing-operator test that
// makes a product or sum site maximal, and the `f>0` conditions of the log rules with their sign evidence.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <ginac/ginac.h>
#include <nlohmann/json.hpp>

#include "strategies/algebraic/bridge.hpp"
#include "strategies/algebraic/site.hpp"

namespace steptp::strategy::algebraic::logpow {

/// The node below any groups.
const ir::Expr& strip(const ir::Expr& e);

/// The first ancestor of `n` that is neither a group nor a unary minus (nullptr at the target root). A product or
/// sum site is maximal when this ancestor is not a product (resp. sum) node: `-(A*A)*D` is one product.
const ir::Expr* enclosing_operator(const TargetStmt& ts, const TargetNode& n);

/// One factor of a product node: the node (groups stripped) and whether it divides.
struct Factor {
  const ir::Expr* e = nullptr;
  bool inverse = false;
};
/// The factors of a product node, flattened through `*`, `/`, groups and unary minus (the minus signs are counted
/// in `negative`), in the AST's left-to-right order.
struct Flat {
  std::vector<Factor> factors;
  bool negative = false;
};
Flat flatten_product(const ir::Expr& e);

/// A product rebuilt in the AST: the numerator factors in order, then `/` the denominator factors (1 when the
/// numerator is empty; literal 1 factors are dropped), under a unary minus when `negative`.
ir::Expr build_product(const std::vector<ir::Expr>& num, const std::vector<ir::Expr>& den, bool negative);

/// `e` read as base^k with a numeric k: `x**k` (k a numeric literal), `sqrt(x)` (k = 1/2), anything else x^1.
struct PowerForm {
  const ir::Expr* base = nullptr;  // groups stripped
  GiNaC::numeric k = 1;
  bool literal = false;  // e is itself a power (x**k or sqrt(x)), not x^1
};
PowerForm power_form(const ir::Expr& e);
/// The numeric value of a literal exponent (through groups and unary minus), if it is one.
std::optional<GiNaC::numeric> literal_exponent(const ir::Expr& e);

/// base^k written by hand, k > 0: `x` (k = 1), `sqrt(x)` (k = 1/2), `x**k` (integer k). Throws NotRepresentable for
/// any other exponent (§9.1: such a candidate is not offered).
ir::Expr power_ast(const ir::Expr& base, const GiNaC::numeric& k);
/// The printed form of a numeric exponent (an integer, or the shortest decimal).
std::string print_number(const GiNaC::numeric& k);

/// Is `x` a function call exp(...)/log(...) in GiNaC?
bool is_exp(const GiNaC::ex& x);
bool is_log(const GiNaC::ex& x);
/// Is the AST node a call exp(...)?
bool is_exp_call(const ir::Expr& e);

/// `f>0` for each factor of a log rule (entries 31 and 32), with its sign evidence; `facts` (when non-null) gets
/// one {factor, multiplicity, sign, evidence} record per factor.
struct LogFactor {
  GiNaC::ex f;
  GiNaC::numeric k;
};
std::vector<Rewrite::Condition> positive_factors(Bridge& b, const std::vector<LogFactor>& fs,
                                                 const analysis::SignAnalysis& signs, nlohmann::json* facts);

}  // namespace steptp::strategy::algebraic::logpow
