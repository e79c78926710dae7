// Affine normal form of index expressions (LEIR.md §7.2): c0 + sum ci*vi over loop keys, built from integer
// literals, keys, + - unary-, products by a constant and parentheses. Anything else is not affine.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {

struct Linear {
  std::map<std::string, std::int64_t> coef;  // zero coefficients are erased
  std::int64_t c0 = 0;
  std::int64_t at(const std::string& k) const {
    auto it = coef.find(k);
    return it == coef.end() ? 0 : it->second;
  }
  bool is_const() const { return coef.empty(); }
};

/// Normal form of `e`, or nullopt if e is not affine (or a coefficient overflows i64).
std::optional<Linear> linear_form(const ir::Expr& e);

/// Is `e` a bare loop key (a plain entry)?
inline bool is_plain_key(const ir::Expr& e, std::string_view k) {
  return e.kind == ir::ExprKind::Var && e.text == k;
}

}  // namespace steptp::strategy::analysis
