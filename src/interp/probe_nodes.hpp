// Internal to the interpreter: the coverage probes of the probed variant (RunOptions::coverage; compile.cpp inserts
// them when asked). Not a public API.
#pragma once
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "interp/nodes.hpp"

namespace steptp::interp::detail {

// ------------------------------------------------------------------------------------------------ coverage probes
/// Coverage probes (RunOptions::coverage, compiled only into the probed variant): every data-dependent expression
/// node is wrapped, and the run counts, per probe, how often its value fell into each of kProbeClasses classes
/// (counter probe_id * kProbeClasses + class). A float max/min also counts the order of its two operands.
inline constexpr int kProbeClasses = 16;
/// NaN, -inf, +inf, 0, then for negative (4-9) and positive (10-15) values the magnitude bands [0, 2^-10),
/// [2^-10, 2^-3), [2^-3, 1), [1, 2^3), [2^3, 2^10), [2^10, inf): a value moving towards a cancellation, an
/// underflow or an overflow reaches a new class every few octaves.
inline int float_class(double v) {
  if (std::isnan(v)) return 0;
  if (std::isinf(v)) return v < 0 ? 1 : 2;
  if (v == 0.0) return 3;
  const double m = std::fabs(v);
  const int band = m < 0x1.0p-10 ? 0 : m < 0x1.0p-3 ? 1 : m < 1.0 ? 2 : m < 8.0 ? 3 : m < 1024.0 ? 4 : 5;
  return (v < 0 ? 4 : 10) + band;
}
/// < -256, [-256, -9], [-8, -3], -2, -1, 0, 1, 2, 3, 4, [5, 8), [8, 16), [16, 64), [64, 256), [256, 2^16), >= 2^16.
inline int int_class(std::int64_t v) {
  if (v < -256) return 0;
  if (v < -8) return 1;
  if (v < -2) return 2;
  if (v <= 4) return static_cast<int>(v) + 5;
  return v < 8 ? 10 : v < 16 ? 11 : v < 64 ? 12 : v < 256 ? 13 : v < 65536 ? 14 : 15;
}
struct ProbeF final : FNode {
  FPtr a;
  std::uint32_t id;
  ProbeF(FPtr x, std::uint32_t k) : a(std::move(x)), id(k) {}
  double f(Ctx& c) const override {
    const double v = a->f(c);
    if (c.cov) ++c.cov[id + static_cast<std::uint32_t>(float_class(v))];
    return v;
  }
  // Batched: the lanes the scalar path evaluates (Batch::on) are counted, in lane order, as it counts them.
  void fb(Ctx& c, const Batch& b, double* o) const override {
    a->fb(c, b, o);
    if (c.cov)
      for (int j = 0; j < b.n; ++j)
        if (b.on(j)) ++c.cov[id + static_cast<std::uint32_t>(float_class(o[j]))];
  }
};
struct ProbeI final : INode {
  IPtr a;
  std::uint32_t id;
  ProbeI(IPtr x, std::uint32_t k) : a(std::move(x)), id(k) {}
  std::int64_t i(Ctx& c) const override {
    const std::int64_t v = a->i(c);
    if (c.cov) ++c.cov[id + static_cast<std::uint32_t>(int_class(v))];
    return v;
  }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    a->ib(c, b, o);
    if (c.cov)
      for (int j = 0; j < b.n; ++j)
        if (b.on(j)) ++c.cov[id + static_cast<std::uint32_t>(int_class(o[j]))];
  }
};
/// Counts class k of the probe at counter `id` and logs the operand pair the first two times the class is met.
inline void count_operands(Ctx& c, std::uint32_t id, std::uint32_t k, double x, double y) {
  if (!c.cov) return;
  if (++c.cov[id + k] <= 2 && c.cmplog) c.cmplog->emplace_back(x, y);
}
/// A float max or min (Op: fop::Max, fop::Min) that also counts the order of its operands: a < b, a == b, a > b,
/// unordered. The value is BinF's.
/// The order of two operands: a < b, a == b, a > b, unordered (a NaN).
inline std::uint32_t order_class(double x, double y) { return x < y ? 0u : x == y ? 1u : x > y ? 2u : 3u; }
template <class Op>
struct ProbeOrderF final : FNode {
  FPtr a, b;
  Prec p;
  std::uint32_t id;
  ProbeOrderF(FPtr x, FPtr y, Prec pr, std::uint32_t k) : a(std::move(x)), b(std::move(y)), p(pr), id(k) {}
  double f(Ctx& c) const override {
    const double x = a->f(c), y = b->f(c);
    count_operands(c, id, order_class(x, y), x, y);
    return value(x, y);
  }
  double value(double x, double y) const {
    if (p == Prec::P64) return Op::ap(x, y);
    return finish(Op::ap(static_cast<float>(x), static_cast<float>(y)), p);
  }
  void fb(Ctx& c, const Batch& bt, double* o) const override {
    a->fb(c, bt, o);
    auto t = ftemp(c);
    b->fb(c, bt, t.p);
    for (int j = 0; j < bt.n; ++j) {
      const double x = o[j], y = t.p[j];
      if (bt.on(j)) count_operands(c, id, order_class(x, y), x, y);
      o[j] = value(x, y);
    }
  }
};
/// A two-operand comparison that counts its outcome (classes 0 false, 1 true) and logs its operands (as doubles:
/// integers up to 2^53 exactly). The value is CmpF's or CmpI's.
template <ir::CmpOp Op>
struct ProbeCmpF final : INode {
  FPtr a, b;
  std::uint32_t id;
  ProbeCmpF(FPtr x, FPtr y, std::uint32_t k) : a(std::move(x)), b(std::move(y)), id(k) {}
  std::int64_t i(Ctx& c) const override {
    const double x = a->f(c), y = b->f(c);
    const bool r = cmp<Op>(x, y);
    count_operands(c, id, r ? 1u : 0u, x, y);
    return r;
  }
  void ib(Ctx& c, const Batch& bt, std::int64_t* o) const override {
    auto x = ftemp(c), y = ftemp(c);
    a->fb(c, bt, x.p);
    b->fb(c, bt, y.p);
    for (int j = 0; j < bt.n; ++j) {
      o[j] = cmp<Op>(x.p[j], y.p[j]);
      if (bt.on(j)) count_operands(c, id, o[j] ? 1u : 0u, x.p[j], y.p[j]);
    }
  }
};
template <ir::CmpOp Op>
struct ProbeCmpI final : INode {
  IPtr a, b;
  std::uint32_t id;
  ProbeCmpI(IPtr x, IPtr y, std::uint32_t k) : a(std::move(x)), b(std::move(y)), id(k) {}
  std::int64_t i(Ctx& c) const override {
    const std::int64_t x = a->i(c), y = b->i(c);
    const bool r = cmp<Op>(x, y);
    count_operands(c, id, r ? 1u : 0u, static_cast<double>(x), static_cast<double>(y));
    return r;
  }
  void ib(Ctx& c, const Batch& bt, std::int64_t* o) const override {
    auto y = itemp(c);
    a->ib(c, bt, o);
    b->ib(c, bt, y.p);
    for (int j = 0; j < bt.n; ++j) {
      const std::int64_t x = o[j];
      o[j] = cmp<Op>(x, y.p[j]);
      if (bt.on(j)) count_operands(c, id, o[j] ? 1u : 0u, static_cast<double>(x), static_cast<double>(y.p[j]));
    }
  }
};

}  // namespace steptp::interp::detail
