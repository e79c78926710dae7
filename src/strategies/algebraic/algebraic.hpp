// The algebraic family (STRATEGIES.md §11 entries 23-34 and 37-39): enumerate/apply pairs registered in
// registry.cpp. Entries 23-34 go through GiNaC (§9; bridge.hpp converts AST <-> GiNaC in one place); 37-39 are
// AST rewrites (§9.2: identity insertion never goes through GiNaC). One file per strategy, named after it.
#pragma once
#include <vector>

#include "strategies/registry.hpp"

namespace steptp::strategy::algebraic {

/// Entry 23: factor a polynomial sub-expression (factorization.cpp).
std::vector<Site> enumerate_factorization(const ir::Task& t);
Applied apply_factorization(const ir::Task& t, const Candidate& c);
/// Entry 24: multiply out a product of sums or a small power of a sum (expand_factorization.cpp).
std::vector<Site> enumerate_expand_factorization(const ir::Task& t);
Applied apply_expand_factorization(const ir::Task& t, const Candidate& c);
/// Entry 25: cancel a common polynomial factor of a quotient (cancellation.cpp).
std::vector<Site> enumerate_cancellation(const ir::Task& t);
Applied apply_cancellation(const ir::Task& t, const Candidate& c);
/// Entry 26: multiply numerator and denominator by a non-zero factor (expand_cancellation.cpp).
std::vector<Site> enumerate_expand_cancellation(const ir::Task& t);
Applied apply_expand_cancellation(const ir::Task& t, const Candidate& c);
/// Entry 27: partial fractions in one variable (apart.cpp).
std::vector<Site> enumerate_apart(const ir::Task& t);
Applied apply_apart(const ir::Task& t, const Candidate& c);
/// Entry 28: combine fractions over the least common denominator (together.cpp).
std::vector<Site> enumerate_together(const ir::Task& t);
Applied apply_together(const ir::Task& t, const Candidate& c);
/// Entry 29: merge powers and exponentials that share a base (powsimp.cpp).
std::vector<Site> enumerate_powsimp(const ir::Task& t);
Applied apply_powsimp(const ir::Task& t, const Candidate& c);
/// Entry 30: split a power or exponential into simpler powers (expand_powsimp.cpp).
std::vector<Site> enumerate_expand_powsimp(const ir::Task& t);
Applied apply_expand_powsimp(const ir::Task& t, const Candidate& c);
/// Entry 31: log of a product or power into a sum of logs (expand_log.cpp).
std::vector<Site> enumerate_expand_log(const ir::Task& t);
Applied apply_expand_log(const ir::Task& t, const Candidate& c);
/// Entry 32: a sum of integer multiples of logs into one log (logsimp.cpp).
std::vector<Site> enumerate_logsimp(const ir::Task& t);
Applied apply_logsimp(const ir::Task& t, const Candidate& c);
/// Entry 33: group the terms of a sum by powers of one atom (collect.cpp).
std::vector<Site> enumerate_collect(const ir::Task& t);
Applied apply_collect(const ir::Task& t, const Candidate& c);
/// Entry 34: distribute one factor over a sum (expand_collect.cpp).
std::vector<Site> enumerate_expand_collect(const ir::Task& t);
Applied apply_expand_collect(const ir::Task& t, const Candidate& c);
/// Entry 37: split exp(X-R) around a pivot (exponential_split.cpp).
std::vector<Site> enumerate_exponential_split(const ir::Task& t);
Applied apply_exponential_split(const ir::Task& t, const Candidate& c);
/// Entry 38: X -> (X/Y)*Y for a pivot Y (multiplicative_split.cpp).
std::vector<Site> enumerate_multiplicative_split(const ir::Task& t);
Applied apply_multiplicative_split(const ir::Task& t, const Candidate& c);
/// Entry 39: X -> (X+Y)-Y for a pivot Y (additive_split.cpp).
std::vector<Site> enumerate_additive_split(const ir::Task& t);
Applied apply_additive_split(const ir::Task& t, const Candidate& c);

}  // namespace steptp::strategy::algebraic
