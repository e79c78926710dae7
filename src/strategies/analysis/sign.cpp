// Sign analysis (STRATEGIES.md §9.4). See sign.hpp for the lattice and the rules.
#include "strategies/analysis/sign.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "ir/printer.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/typed.hpp"

namespace steptp::strategy::analysis {
namespace {

/// Applies a binary sign rule element-wise over the two sets: f(x, y) for x in a, y in b, each x,y one of -1, 0, 1,
/// f returns a set.
template <class F>
Sign lift(Sign a, Sign b, F f) {
  Sign out = Sign::bottom();
  for (int x = -1; x <= 1; ++x) {
    if (!(a.bits & (1 << (x + 1)))) continue;
    for (int y = -1; y <= 1; ++y)
      if (b.bits & (1 << (y + 1))) out = sign_join(out, f(x, y));
  }
  return out;
}

Sign of_int(int x) { return {static_cast<std::uint8_t>(1 << (x + 1))}; }

Sign of_value(double v) {
  if (v > 0) return Sign::positive();
  if (v < 0) return Sign::negative();
  if (v == 0) return Sign::zero();
  return Sign::unknown();
}

/// Element-wise max (or min) of two sign sets.
Sign sign_extreme(Sign a, Sign b, bool is_max) {
  return lift(a, b, [&](int x, int y) { return of_int(is_max ? std::max(x, y) : std::min(x, y)); });
}

/// A numeric literal exponent: its value, when the node is one (through groups and a unary minus).
std::optional<double> literal_value(const ir::Expr& e) {
  if (e.kind == ir::ExprKind::Group) return literal_value(e.args[0]);
  if (e.kind == ir::ExprKind::IntLit) return static_cast<double>(e.ival);
  if (e.kind == ir::ExprKind::FloatLit) return e.fval;
  if (e.kind == ir::ExprKind::Neg) {
    auto v = literal_value(e.args[0]);
    if (v) return -*v;
  }
  return std::nullopt;
}

Sign sign_pow(Sign base, const ir::Expr& exponent, Sign exp_sign) {
  if (base.bits == 0) return base;
  auto n = literal_value(exponent);
  if (n && *n == 0) return Sign::positive();
  if (n && std::floor(*n) == *n) {
    const bool even = std::fmod(std::fabs(*n), 2.0) == 0;
    // x**2k: the same value squared, not two independent ones (an unknown x gives non-negative, not unknown).
    Sign s = base;
    if (even) {
      s = Sign::bottom();
      if (base.bits & (Sign::kNeg | Sign::kPos)) s = sign_join(s, Sign::positive());
      if (base.bits & Sign::kZero) s = sign_join(s, Sign::zero());
    }
    if (*n < 0) s = sign_div(Sign::positive(), s);  // x^-n = 1/x^n: the same sign over finite values
    return s;
  }
  // A non-integer or symbolic exponent: finite results need a non-negative base; a positive base stays positive.
  if (base.is_positive()) return Sign::positive();
  (void)exp_sign;
  return n ? Sign::nonnegative() : Sign::unknown();
}

std::string cut(std::string s) {
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace

std::string_view Sign::name() const {
  switch (bits) {
    case 0: return "none";
    case kPos: return "positive";
    case kZero | kPos: return "non-negative";
    case kNeg | kPos: return "non-zero";
    case kNeg: return "negative";
    case kNeg | kZero: return "non-positive";
    case kZero: return "zero";
    default: return "unknown";
  }
}

Sign sign_join(Sign a, Sign b) { return {static_cast<std::uint8_t>(a.bits | b.bits)}; }

Sign sign_neg(Sign a) {
  std::uint8_t b = a.bits & Sign::kZero;
  if (a.bits & Sign::kNeg) b |= Sign::kPos;
  if (a.bits & Sign::kPos) b |= Sign::kNeg;
  return {b};
}

Sign sign_add(Sign a, Sign b) {
  return lift(a, b, [](int x, int y) {
    if (x == 0) return of_int(y);
    if (y == 0 || x == y) return of_int(x);
    return Sign::unknown();  // opposite signs
  });
}

Sign sign_mul(Sign a, Sign b) { return lift(a, b, [](int x, int y) { return of_int(x * y); }); }

Sign sign_div(Sign a, Sign b) {
  Sign d{static_cast<std::uint8_t>(b.bits & ~Sign::kZero)};
  if (b.bits != 0 && d.bits == 0) return Sign::unknown();  // a divisor that is always zero: no finite value
  return sign_mul(a, d);
}

namespace {

using Env = std::map<std::string, Sign, std::less<>>;

Sign eval(const ir::Expr& e, const Env& env) {
  using K = ir::ExprKind;
  switch (e.kind) {
    case K::IntLit: return of_value(static_cast<double>(e.ival));
    case K::FloatLit: return of_value(e.fval);
    case K::Inf: return Sign::positive();
    case K::Var: return Sign::nonnegative();  // loop keys start at 0
    case K::Ref: {
      auto it = env.find(e.text);
      return it == env.end() ? Sign::unknown() : it->second;
    }
    case K::Group: return eval(e.args[0], env);
    case K::Neg: return sign_neg(eval(e.args[0], env));
    case K::Compare: return Sign::nonnegative();  // 0 or 1
    case K::Binary: {
      const Sign a = eval(e.args[0], env), b = eval(e.args[1], env);
      switch (e.bop) {
        case ir::BinOp::Or:
        case ir::BinOp::And: return Sign::nonnegative();
        case ir::BinOp::Add: return sign_add(a, b);
        case ir::BinOp::Sub: return sign_add(a, sign_neg(b));
        case ir::BinOp::Mul: return sign_mul(a, b);
        case ir::BinOp::Div: return sign_div(a, b);
        case ir::BinOp::FloorDiv:
          if (a.bits == 0 || b.bits == 0) return Sign::bottom();
          return a.is_nonnegative() && b.is_positive() ? Sign::nonnegative() : Sign::unknown();
        case ir::BinOp::Mod:
          if (a.bits == 0 || b.bits == 0) return Sign::bottom();
          return b.is_positive() ? Sign::nonnegative() : Sign::unknown();
        case ir::BinOp::Pow: return sign_pow(a, e.args[1], b);
      }
      return Sign::unknown();
    }
    case K::Call: {
      std::vector<Sign> s;
      for (const auto& a : e.args) s.push_back(eval(a, env));
      switch (e.fn) {
        case ir::Func::Exp: return s[0].bits ? Sign::positive() : s[0];
        case ir::Func::Log: return s[0].bits ? Sign::unknown() : s[0];
        case ir::Func::Sqrt: return s[0].bits == 0 ? s[0] : s[0].is_positive() ? Sign::positive() : Sign::nonnegative();
        case ir::Func::Abs: return s[0].bits == 0 ? s[0] : s[0].is_nonzero() ? Sign::positive() : Sign::nonnegative();
        case ir::Func::Erf: return s[0];  // erf is odd and increasing: sign(erf(x)) = sign(x)
        case ir::Func::Max: return sign_extreme(s[0], s[1], true);
        case ir::Func::Min: return sign_extreme(s[0], s[1], false);
        case ir::Func::IfThenElse: return sign_join(s[1], s[2]);
      }
      return Sign::unknown();
    }
  }
  return Sign::unknown();
}

/// One application of a reduction step `acc op e` on sign sets.
Sign step(ReduceOp op, Sign acc, Sign e) {
  switch (op) {
    case ReduceOp::Add: return sign_add(acc, e);
    case ReduceOp::Sub: return sign_add(acc, sign_neg(e));
    case ReduceOp::Mul: return sign_mul(acc, e);
    case ReduceOp::Max: return sign_extreme(acc, e, true);
    case ReduceOp::Min: return sign_extreme(acc, e, false);
  }
  return Sign::unknown();
}

Sign identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add:
    case ReduceOp::Sub: return Sign::zero();
    case ReduceOp::Mul: return Sign::positive();
    case ReduceOp::Max: return Sign::negative();  // -inf
    case ReduceOp::Min: return Sign::positive();  // +inf
  }
  return Sign::unknown();
}

}  // namespace

SignAnalysis::SignAnalysis(const ir::Task& t) {
  for (const auto& k : t.known) {
    if (k.role == ir::Role::Output) continue;
    if (k.range == ir::ValueRange::Positive) {
      buf_[k.name] = Sign::positive();
      why_[k.name] = k.name + " is declared positive";
    } else if (k.range == ir::ValueRange::NonNegative) {
      buf_[k.name] = Sign::nonnegative();
      why_[k.name] = k.name + " is declared non-negative";
    } else {
      buf_[k.name] = Sign::unknown();
      why_[k.name] = k.name + " is an input with no declared range";
    }
  }
  const auto& p = t.program;
  const auto stmts = collect_stmts(p);
  struct W {
    const StmtCtx* sc;
    std::optional<Reduction> red;
  };
  std::vector<W> writes;
  for (const auto& sc : stmts) {
    // A known input the program writes (not valid LEIR, but be safe): its declared range no longer describes it.
    if (buf_.erase(sc.stmt->lhs.text)) why_.erase(sc.stmt->lhs.text);
    writes.push_back({&sc, match_reduction(p, sc)});
  }
  Env cur = buf_;
  for (const auto& w : writes)
    if (!buf_.count(w.sc->stmt->lhs.text)) cur[w.sc->stmt->lhs.text] = Sign::bottom();
  bool changed = true;
  for (int round = 0; round < 8 && changed; ++round) {
    changed = false;
    Env next = cur;
    for (auto& [name, s] : next)
      if (!buf_.count(name)) s = Sign::bottom();
    for (const auto& w : writes) {
      const std::string& x = w.sc->stmt->lhs.text;
      if (buf_.count(x)) continue;  // declared inputs keep their range
      Sign contrib;
      if (w.red) {
        const Sign e = eval(*w.red->operand, cur);
        Sign acc = step(w.red->op, w.red->implicit_init ? identity(w.red->op) : cur[x], e);
        for (int i = 0; i < 4; ++i) acc = sign_join(acc, step(w.red->op, acc, e));
        contrib = acc;
      } else {
        contrib = eval(w.sc->stmt->rhs, cur);
      }
      next[x] = sign_join(next[x], contrib);
    }
    if (next != cur) changed = true;
    cur = std::move(next);
  }
  if (changed)  // not settled after 8 rounds: widen every written buffer
    for (const auto& w : writes) cur[w.sc->stmt->lhs.text] = Sign::unknown();
  for (const auto& w : writes) {
    const std::string& x = w.sc->stmt->lhs.text;
    if (buf_.count(x)) continue;
    std::string& why = why_[x];
    const std::string form = w.red ? std::string(reduce_op_text(w.red->op)) + "-reduction of " +
                                         cut(ir::print_expr(*w.red->operand)) +
                                         (w.red->implicit_init ? " from its identity" : "")
                                   : "= " + cut(ir::print_expr(w.sc->stmt->rhs));
    why += why.empty() ? x + " is " + std::string(cur[x].name()) + ": written as " + form : "; " + form;
  }
  for (auto& [name, s] : cur) buf_[name] = s;
}

Sign SignAnalysis::buffer(std::string_view name) const {
  auto it = buf_.find(name);
  return it == buf_.end() ? Sign::unknown() : it->second;
}

Sign SignAnalysis::expr(const ir::Expr& e) const {
  Sign s = eval(e, buf_);
  return s.bits ? s : Sign::unknown();
}

std::string SignAnalysis::evidence(const ir::Expr& e) const {
  const ir::Expr* n = &e;
  while (n->kind == ir::ExprKind::Group) n = &n->args[0];
  const std::string sign(expr(*n).name());
  if (n->kind == ir::ExprKind::Ref) {
    auto it = why_.find(n->text);
    if (it != why_.end()) return it->second;
    return n->text + " is " + sign;
  }
  if (n->kind == ir::ExprKind::IntLit || n->kind == ir::ExprKind::FloatLit)
    return ir::print_expr(*n) + " is a " + sign + " literal";
  if (n->kind == ir::ExprKind::Call && n->fn == ir::Func::Exp) return "exp(...) is positive";
  std::string s = cut(ir::print_expr(*n)) + " is " + sign + " by sign analysis";
  std::vector<std::string> refs;
  std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Ref) {
      auto it = why_.find(x.text);
      if (it != why_.end() && std::find(refs.begin(), refs.end(), it->second) == refs.end()) refs.push_back(it->second);
      return;
    }
    for (const auto& a : x.args) walk(a);
  };
  walk(*n);
  for (const auto& r : refs) s += "; " + r;
  return s;
}

std::shared_ptr<const SignAnalysis> task_signs(const ir::Task& t) {
  std::string key = task_memo_key(t);
  thread_local std::string last_key;
  thread_local std::shared_ptr<const SignAnalysis> last;
  if (last && key == last_key) return last;
  last = std::make_shared<SignAnalysis>(typed_task(t)->task);
  last_key = std::move(key);
  return last;
}

}  // namespace steptp::strategy::analysis
