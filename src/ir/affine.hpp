// Affine normal form of index expressions (LEIR.md §7.2): c0 + sum ci*vi over loop keys, built from integer
// literals, keys, + - unary-, products by a constant and parentheses. Anything else is not affine. Shared by the
// strategies' analyses and the lowerings (buffer compaction, lower/compact.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/ast.hpp"

namespace steptp::ir {

/// c0 + sum coef[k]*k. Zero coefficients are erased.
struct Linear {
  std::map<std::string, std::int64_t> coef;
  std::int64_t c0 = 0;
  std::int64_t at(const std::string& k) const {
    auto it = coef.find(k);
    return it == coef.end() ? 0 : it->second;
  }
  bool is_const() const { return coef.empty(); }
};

/// Normal form of `e`, or nullopt if e is not affine (or a coefficient overflows i64).
std::optional<Linear> linear_form(const Expr& e);

}  // namespace steptp::ir
