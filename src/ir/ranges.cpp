// LEIR.md §7.2 exact range analysis: affine normal form, exact interval rules, sub-box enumeration.
#include "ir/ranges.hpp"

#include <algorithm>
#include <limits>

#include "ir/typing.hpp"

namespace steptp::ir {

using i128 = __int128;

LoopBox make_loop_box(const std::vector<const Loop*>& loops) {
  LoopBox box;
  box.reserve(loops.size());
  for (const Loop* l : loops) box.push_back({l->var, l->extent < 1 ? 1 : l->extent});
  return box;
}

const BoxAxis* find_axis(const LoopBox& box, std::string_view var) {
  for (auto it = box.rbegin(); it != box.rend(); ++it)
    if (it->var == var) return &*it;
  return nullptr;
}

std::int64_t AffineForm::coeff(std::string_view var) const {
  for (const auto& [v, c] : terms)
    if (v == var) return c;
  return 0;
}

namespace {

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();

std::int64_t saturate(i128 v) {
  if (v > kI64Max) return kI64Max;
  if (v < kI64Min) return kI64Min;
  return static_cast<std::int64_t>(v);
}

bool add_scaled(AffineForm& acc, const AffineForm& f, std::int64_t s) {
  std::int64_t t = 0;
  if (__builtin_mul_overflow(f.c0, s, &t) || __builtin_add_overflow(acc.c0, t, &acc.c0)) return false;
  for (const auto& term : f.terms) {
    if (__builtin_mul_overflow(term.second, s, &t)) return false;
    auto it = std::find_if(acc.terms.begin(), acc.terms.end(), [&](auto& p) { return p.first == term.first; });
    if (it == acc.terms.end()) acc.terms.emplace_back(term.first, t);
    else if (__builtin_add_overflow(it->second, t, &it->second)) return false;
  }
  std::erase_if(acc.terms, [](auto& p) { return p.second == 0; });
  return true;
}

std::int64_t floordiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
i128 floordiv128(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// ---- exact interval rules ----
struct Iv {
  i128 lo = 0, hi = 0;
  std::uint64_t vars = 0;  // bit i: mentions variable slot i
  bool dense = true;       // the value set is every integer in [lo, hi]
};
constexpr i128 kLimit = i128{1} << 62;

struct Slots {
  std::vector<std::string_view> names;
  std::vector<std::int64_t> extents;
  int find(std::string_view v) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == v) return static_cast<int>(i);
    return -1;
  }
};

bool affine_dense(const AffineForm& f, const Slots& s) {
  std::vector<std::pair<i128, i128>> t;  // |c|, n-1
  for (const auto& [v, c] : f.terms) {
    int k = s.find(v);
    std::int64_t n = k < 0 ? 1 : s.extents[k];
    if (n > 1) t.emplace_back(c < 0 ? -i128(c) : i128(c), n - 1);
  }
  std::sort(t.begin(), t.end());
  i128 reach = 0;
  for (auto [c, m] : t) {
    if (c > reach + 1) return false;
    reach += c * m;
  }
  return true;
}

// Exact interval of `e`, or nullopt when no exact rule applies (the caller then enumerates).
std::optional<Iv> interval(const Expr& e, const Slots& s, const LoopBox& box) {
  if (auto f = affine_form(e)) {
    Iv r;
    auto [lo, hi] = affine_range(*f, box);
    r.lo = lo;
    r.hi = hi;
    for (const auto& t : f->terms) {
      int k = s.find(t.first);
      if (k < 0 || k >= 64) return std::nullopt;
      r.vars |= std::uint64_t{1} << k;
    }
    r.dense = affine_dense(*f, s);
    return r;
  }
  auto bounded = [](const Iv& r) -> std::optional<Iv> {
    if (r.lo < -kLimit || r.hi > kLimit) return std::nullopt;
    return r;
  };
  switch (e.kind) {
    case ExprKind::Group:
      if (e.args.size() != 1) return std::nullopt;
      return interval(e.args[0], s, box);
    case ExprKind::Neg: {
      if (e.args.size() != 1) return std::nullopt;
      auto a = interval(e.args[0], s, box);
      if (!a) return a;
      return Iv{-a->hi, -a->lo, a->vars, a->dense};
    }
    case ExprKind::Binary: {
      if (e.args.size() != 2) return std::nullopt;
      auto a = interval(e.args[0], s, box);
      if (!a) return a;
      auto b = interval(e.args[1], s, box);
      if (!b || (a->vars & b->vars)) return std::nullopt;
      const std::uint64_t vars = a->vars | b->vars;
      const bool b_const = b->vars == 0 && b->lo == b->hi;
      switch (e.bop) {
        case BinOp::Add: return bounded(Iv{a->lo + b->lo, a->hi + b->hi, vars, a->dense && b->dense});
        case BinOp::Sub: return bounded(Iv{a->lo - b->hi, a->hi - b->lo, vars, a->dense && b->dense});
        case BinOp::Mul: {
          i128 c[4] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
          Iv r{*std::min_element(c, c + 4), *std::max_element(c, c + 4), vars, false};
          bool a_unit = a->vars == 0 && a->lo == a->hi && a->lo >= -1 && a->lo <= 1;
          bool b_unit = b_const && b->lo >= -1 && b->lo <= 1;
          r.dense = (a_unit && b->dense) || (b_unit && a->dense) || r.lo == r.hi;
          return bounded(r);
        }
        case BinOp::FloorDiv: {
          if (!b_const || b->lo == 0) return std::nullopt;
          i128 k = b->lo;
          if (k > 0) return Iv{floordiv128(a->lo, k), floordiv128(a->hi, k), vars, a->dense};
          return Iv{floordiv128(a->hi, k), floordiv128(a->lo, k), vars, a->dense};
        }
        case BinOp::Mod: {
          if (!b_const || b->lo <= 0) return std::nullopt;
          i128 k = b->lo;
          i128 q1 = floordiv128(a->lo, k), q2 = floordiv128(a->hi, k);
          if (q1 == q2) return Iv{a->lo - q1 * k, a->hi - q1 * k, vars, a->dense};
          if (a->dense) return Iv{0, k - 1, vars, a->hi - a->lo + 1 >= k};
          return std::nullopt;
        }
        default: return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

// ---- enumeration: the entry compiled to postfix code over variable slots ----
enum class Op : std::uint8_t { Lit, Var, Neg, Add, Sub, Mul, FloorDiv, Mod };
struct Instr {
  Op op;
  std::int64_t v;  // literal value or slot
};

bool compile(const Expr& e, const Slots& s, std::vector<Instr>& out) {
  switch (e.kind) {
    case ExprKind::IntLit: out.push_back({Op::Lit, e.ival}); return true;
    case ExprKind::Var: {
      int k = s.find(e.text);
      if (k < 0) return false;
      out.push_back({Op::Var, k});
      return true;
    }
    case ExprKind::Group: return e.args.size() == 1 && compile(e.args[0], s, out);
    case ExprKind::Neg:
      if (e.args.size() != 1 || !compile(e.args[0], s, out)) return false;
      out.push_back({Op::Neg, 0});
      return true;
    case ExprKind::Binary: {
      if (e.args.size() != 2 || !compile(e.args[0], s, out) || !compile(e.args[1], s, out)) return false;
      switch (e.bop) {
        case BinOp::Add: out.push_back({Op::Add, 0}); return true;
        case BinOp::Sub: out.push_back({Op::Sub, 0}); return true;
        case BinOp::Mul: out.push_back({Op::Mul, 0}); return true;
        case BinOp::FloorDiv: out.push_back({Op::FloorDiv, 0}); return true;
        case BinOp::Mod: out.push_back({Op::Mod, 0}); return true;
        default: return false;
      }
    }
    default: return false;
  }
}

// Wrapping i64 arithmetic (LEIR.md §8.2: integers are computed in i64 and wrap).
std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// A `//` or `%` by zero at the point `val` (§8.2: E303 at run time): the entry has no range (E217).
IndexRange div_by_zero(IndexRange r, const Slots& s, const std::vector<std::int64_t>& val) {
  r.status = RangeStatus::DivByZero;
  for (std::size_t i = 0; i < s.names.size(); ++i)
    r.zero_at += (i ? ", " : "") + std::string(s.names[i]) + "=" + std::to_string(val[i]);
  return r;
}

IndexRange enumerate(const std::vector<Instr>& code, const Slots& s, std::uint64_t points) {
  IndexRange r;
  r.points = points;
  const std::size_t nv = s.names.size();
  std::vector<std::int64_t> val(nv, 0);
  std::vector<std::int64_t> stack(code.size() + 1);
  bool first = true;
  for (;;) {
    std::size_t sp = 0;
    for (const Instr& c : code) {
      switch (c.op) {
        case Op::Lit: stack[sp++] = c.v; break;
        case Op::Var: stack[sp++] = val[static_cast<std::size_t>(c.v)]; break;
        case Op::Neg: stack[sp - 1] = wrap(0 - static_cast<std::uint64_t>(stack[sp - 1])); break;
        default: {
          std::int64_t b = stack[--sp], a = stack[sp - 1], x = 0;
          auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
          switch (c.op) {
            case Op::Add: x = wrap(ua + ub); break;
            case Op::Sub: x = wrap(ua - ub); break;
            case Op::Mul: x = wrap(ua * ub); break;
            case Op::FloorDiv:
              if (b == 0) return div_by_zero(r, s, val);
              x = (a == kI64Min && b == -1) ? kI64Min : floordiv(a, b);
              break;
            case Op::Mod:
              if (b == 0) return div_by_zero(r, s, val);
              if (b == -1) { x = 0; break; }
              x = a % b;
              if (x != 0 && ((x < 0) != (b < 0))) x += b;
              break;
            default: break;
          }
          stack[sp - 1] = x;
        }
      }
    }
    const std::int64_t v = stack[0];
    if (first) { r.lo = r.hi = v; first = false; }
    else { r.lo = std::min(r.lo, v); r.hi = std::max(r.hi, v); }
    std::size_t i = 0;
    for (; i < nv; ++i) {
      if (++val[i] < s.extents[i]) break;
      val[i] = 0;
    }
    if (i == nv) break;
  }
  r.status = RangeStatus::Exact;
  return r;
}

}  // namespace

std::optional<AffineForm> affine_form(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return AffineForm{e.ival, {}};
    case ExprKind::Var: return AffineForm{0, {{e.text, 1}}};
    case ExprKind::Group:
      if (e.args.size() != 1) return std::nullopt;
      return affine_form(e.args[0]);
    case ExprKind::Neg: {
      if (e.args.size() != 1) return std::nullopt;
      auto a = affine_form(e.args[0]);
      if (!a) return a;
      AffineForm r;
      if (!add_scaled(r, *a, -1)) return std::nullopt;
      return r;
    }
    case ExprKind::Binary: {
      if (e.args.size() != 2) return std::nullopt;
      if (e.bop != BinOp::Add && e.bop != BinOp::Sub && e.bop != BinOp::Mul) return std::nullopt;
      auto a = affine_form(e.args[0]);
      if (!a) return a;
      auto b = affine_form(e.args[1]);
      if (!b) return b;
      AffineForm r;
      if (e.bop == BinOp::Mul) {
        if (a->is_constant()) { if (!add_scaled(r, *b, a->c0)) return std::nullopt; }
        else if (b->is_constant()) { if (!add_scaled(r, *a, b->c0)) return std::nullopt; }
        else return std::nullopt;
        return r;
      }
      r = std::move(*a);
      if (!add_scaled(r, *b, e.bop == BinOp::Add ? 1 : -1)) return std::nullopt;
      return r;
    }
    default: return std::nullopt;
  }
}

std::pair<std::int64_t, std::int64_t> affine_range(const AffineForm& f, const LoopBox& box) {
  i128 lo = f.c0, hi = f.c0;
  for (const auto& [v, c] : f.terms) {
    const BoxAxis* ax = find_axis(box, v);
    const i128 span = i128(c) * ((ax ? ax->extent : 1) - 1);
    lo += std::min<i128>(0, span);
    hi += std::max<i128>(0, span);
  }
  return {saturate(lo), saturate(hi)};
}

IndexRange index_range(const Expr& entry, const LoopBox& box) {
  IndexRange r;
  // Classify: gathers, unbound variables, non-index nodes; collect the variables mentioned.
  Slots s;
  bool gather = false, unbound = false, bad = false;
  visit_expr(entry, [&](const Expr& x) {
    switch (x.kind) {
      case ExprKind::Ref: gather = true; break;
      case ExprKind::Var:
        if (s.find(x.text) < 0) {
          const BoxAxis* ax = find_axis(box, x.text);
          if (!ax) unbound = true;
          else { s.names.push_back(ax->var); s.extents.push_back(ax->extent); }
        }
        break;
      case ExprKind::IntLit:
      case ExprKind::Group:
      case ExprKind::Neg: break;
      case ExprKind::Binary:
        if (!is_index_binop(x.bop)) bad = true;
        break;
      default: bad = true;
    }
  });
  if (gather) { r.status = RangeStatus::Gather; return r; }
  if (bad) return r;
  if (unbound) { r.status = RangeStatus::Unbound; return r; }
  if (auto f = affine_form(entry)) {
    auto [lo, hi] = affine_range(*f, box);
    return IndexRange{RangeStatus::Exact, lo, hi, 0, {}};
  }
  std::uint64_t points = 1;
  for (std::int64_t n : s.extents) {
    if (__builtin_mul_overflow(points, static_cast<std::uint64_t>(n), &points)) points = UINT64_MAX;
  }
  r.points = points;
  if (points > kMaxRangePoints) { r.status = RangeStatus::TooLarge; return r; }
  if (s.names.size() <= 64) {
    if (auto iv = interval(entry, s, box))
      return IndexRange{RangeStatus::Exact, saturate(iv->lo), saturate(iv->hi), points, {}};
  }
  std::vector<Instr> code;
  if (!compile(entry, s, code)) return r;
  return enumerate(code, s, points);
}

}  // namespace steptp::ir
