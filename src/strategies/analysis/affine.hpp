// The affine normal form lives in ir/affine.hpp (the lowerings use it too); the strategies' analyses name it here.
#pragma once
#include <string_view>

#include "ir/affine.hpp"

namespace steptp::strategy::analysis {

using ir::Linear;
using ir::linear_form;

/// Is `e` a bare loop key (a plain entry)?
inline bool is_plain_key(const ir::Expr& e, std::string_view k) {
  return e.kind == ir::ExprKind::Var && e.text == k;
}

}  // namespace steptp::strategy::analysis
