#include "ir/affine.hpp"

namespace steptp::ir {
namespace {
bool add_into(Linear& a, const Linear& b, std::int64_t sign) {
  for (const auto& [k, v] : b.coef) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(v, sign, &r) || __builtin_add_overflow(a.coef[k], r, &a.coef[k])) return false;
    if (a.coef[k] == 0) a.coef.erase(k);
  }
  std::int64_t r = 0;
  return !__builtin_mul_overflow(b.c0, sign, &r) && !__builtin_add_overflow(a.c0, r, &a.c0);
}
bool scale(Linear& a, std::int64_t s) {
  if (s == 0) {
    a = Linear{};
    return true;
  }
  for (auto& [k, v] : a.coef)
    if (__builtin_mul_overflow(v, s, &v)) return false;
  return !__builtin_mul_overflow(a.c0, s, &a.c0);
}
}  // namespace

std::optional<Linear> linear_form(const Expr& e) {
  using K = ExprKind;
  switch (e.kind) {
    case K::IntLit: {
      Linear l;
      l.c0 = e.ival;
      return l;
    }
    case K::Var: {
      Linear l;
      l.coef[e.text] = 1;
      return l;
    }
    case K::Group:
      return linear_form(e.args[0]);
    case K::Neg: {
      auto a = linear_form(e.args[0]);
      if (!a || !scale(*a, -1)) return std::nullopt;
      return a;
    }
    case K::Binary: {
      if (e.bop != BinOp::Add && e.bop != BinOp::Sub && e.bop != BinOp::Mul) return std::nullopt;
      auto a = linear_form(e.args[0]);
      if (!a) return std::nullopt;
      auto b = linear_form(e.args[1]);
      if (!b) return std::nullopt;
      if (e.bop == BinOp::Mul) {
        if (a->is_const()) {
          if (!scale(*b, a->c0)) return std::nullopt;
          return b;
        }
        if (b->is_const()) {
          if (!scale(*a, b->c0)) return std::nullopt;
          return a;
        }
        return std::nullopt;
      }
      if (!add_into(*a, *b, e.bop == BinOp::Add ? 1 : -1)) return std::nullopt;
      return a;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace steptp::ir
