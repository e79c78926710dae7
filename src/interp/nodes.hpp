// Internal to the interpreter: the compiled expression nodes of the closure tree and the run-time context
// (statements and nests: stmt_nodes.hpp). Built once per task and precision by compile.cpp; executed by
// interpreter.cpp, one iteration at a time or batched (batch.cpp). Not a public API.
//
// Values live in two domains: float nodes (FNode) return double, integer and bool nodes (INode) return int64
// (u64 values keep their bit pattern; bool is 0/1). Precision (`Prec`) says how a float node rounds its result:
// P64 keeps the double (f64 type, or any float type in the default untyped mode); P32 computes in single precision;
// P16/PB16 compute in single precision and round to f16/bf16 after the operation (LEIR.md §8.2).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/error_codes.hpp"
#include "interp/numeric.hpp"
#include "ir/ast.hpp"
#include "ir/dtype.hpp"

namespace steptp::interp {
struct RunOptions;
}

namespace steptp::interp::detail {

enum class Prec : std::uint8_t { P64, P32, P16, PB16 };

inline double finish(float r, Prec p) {
  if (p == Prec::P16) return steptp_num::round_f16(r);
  if (p == Prec::PB16) return steptp_num::round_bf16(r);
  return r;
}
/// Rounds a double once to precision p (used for conversions between types).
inline double round_to(double v, Prec p) {
  switch (p) {
    case Prec::P64: return v;
    case Prec::P32: return steptp_num::round_f32(v);
    case Prec::P16: return steptp_num::round_f16(v);
    case Prec::PB16: return steptp_num::round_bf16(v);
  }
  return v;
}

struct Checker;
struct StmtNode;
struct LoopDesc;

/// Batched (vectorised) execution of the innermost loops of a nest (batch.cpp): a node evaluates n consecutive
/// iterations ("lanes") of the `nvars` innermost loops at once, one virtual call per node and batch instead of per
/// iteration; lane j has loop variable slots[s] = vals[s][j] (with nvars == 1 the lanes are consecutive values).
/// Only statements whose iterations cannot see each other's writes run batched (StmtNode::batch); results, NaNs
/// and the order of every floating-point operation are those of the scalar path, and any error replays the batch
/// in scalar order so that the same error is raised at the same iteration.
/// `mask` (null: every lane) marks the lanes the scalar path would evaluate: lazy nodes (if_then_else, &, |,
/// comparison chains) narrow it for their operands, and only nodes that can fault (reads, integer division,
/// float-to-integer conversion, generic nodes) look at it; pure arithmetic computes every lane.
inline constexpr int kMaxCollapse = 4;
struct Batch {
  int n = 0;
  const std::int64_t* mask = nullptr;
  int nvars = 1;
  int slots[kMaxCollapse] = {};
  const std::int64_t* vals[kMaxCollapse] = {};
  std::int64_t lo[kMaxCollapse] = {}, hi[kMaxCollapse] = {};  // smallest and largest value of each over the lanes
  bool on(int j) const { return !mask || mask[j]; }
};
/// Iterations per batch (a batch's temporaries stay in L1: 1 KiB each).
inline constexpr int kBatch = 128;

/// Compile-time description of a buffer (known buffers first, in known order, then intermediates).
struct BufDesc {
  std::string name;
  ir::DType dtype = ir::DType::F32;
  ir::Scope scope = ir::Scope::Global;
  bool known = false;
  bool read_only = false;  // input, constant or param
  bool output = false;
  std::vector<std::int64_t> shape, strides;
  std::int64_t numel = 1;
  bool is_float = true;
};

/// Per-run storage of one buffer. Float buffers use `f`, integer/bool buffers `i`. `init` is the per-element
/// initialised map (1 = written); null for inputs, constants and params (always initialised).
struct BufState {
  double* f = nullptr;
  std::int64_t* i = nullptr;
  std::uint8_t* init = nullptr;
  std::int64_t numel = 0;
};

/// Run-time context: loop variable slots, buffers, step counter, current statement (for error messages).
struct Ctx {
  std::int64_t* vars = nullptr;
  BufState* bufs = nullptr;
  std::uint64_t steps = 0;
  std::uint64_t limit = ~std::uint64_t{0};       // next step count at which step_limit_reached() runs
  std::uint64_t hard_limit = ~std::uint64_t{0};  // RunOptions::max_steps (E308 beyond it)
  const RunOptions* opt = nullptr;               // progress callback and interval
  const StmtNode* cur = nullptr;
  std::int64_t cur_elem = -1;                    // flat index of the element the current statement computes
  Checker* chk = nullptr;                        // checked mode only
  const std::vector<BufDesc>* desc = nullptr;    // for messages
  const std::string* src = nullptr;              // canonical program text, for excerpts
  // batched execution (batch.cpp): temporaries of kBatch values in stack order, and the flag a batched read
  // raises when an element is out of range or uninitialised (the batch is then replayed in scalar order)
  double* fscratch = nullptr;
  double* fscratch_end = nullptr;
  std::int64_t* iscratch = nullptr;
  std::int64_t* iscratch_end = nullptr;
  bool batch_fail = false;
  bool batching = true;  // RunOptions::batched
  std::uint32_t* cov = nullptr;  // coverage counters of a probed variant (RunOptions::coverage), else null
  std::vector<std::pair<double, double>>* cmplog = nullptr;  // its comparison operands (Coverage::operands)
  std::uint64_t batched_steps = 0;  // statement executions that ran in batches
};

/// A batch temporary of kBatch values from the run's scratch stack; released in reverse order. Throws
/// std::length_error when the stack is exhausted (the statement then replays in scalar order).
template <class T>
struct BatchTemp {
  T*& top;
  T* p;
  int blocks;
  BatchTemp(T*& t, T* end, int count = 1) : top(t), p(t), blocks(count) {
    if (end - t < kBatch * count) throw std::length_error("batch scratch exhausted");
    top += kBatch * count;
  }
  ~BatchTemp() { top -= kBatch * blocks; }
  BatchTemp(const BatchTemp&) = delete;
  BatchTemp& operator=(const BatchTemp&) = delete;
};
inline BatchTemp<double> ftemp(Ctx& c) { return BatchTemp<double>(c.fscratch, c.fscratch_end); }
inline BatchTemp<std::int64_t> itemp(Ctx& c) { return BatchTemp<std::int64_t>(c.iscratch, c.iscratch_end); }
/// Sets the batch's loop variables to lane j's values.
inline void set_lane(Ctx& c, const Batch& b, int j) {
  for (int s = 0; s < b.nvars; ++s) c.vars[b.slots[s]] = b.vals[s][j];
}

/// Called when c.steps passes c.limit: E308 beyond the hard limit, otherwise reports progress and sets the next
/// checkpoint (defined in interpreter.cpp; off the hot path).
void step_limit_reached(Ctx& c);

/// Throws LeirError `code` with the current statement's offset, loop values and `what` (defined in
/// interpreter.cpp).
[[noreturn]] void raise(const Ctx& c, Code code, const std::string& what);
/// "M[3,1]" for a flat element index of buffer `buf`.
std::string element_name(const Ctx& c, int buf, std::int64_t off);

struct FNode {
  virtual ~FNode() = default;
  virtual double f(Ctx& c) const = 0;
  /// out[j] = the value at lane j. Default: f once per active lane (exactly the scalar evaluation, lazy nodes
  /// included). Leaves the batch's loop variables unspecified.
  virtual void fb(Ctx& c, const Batch& b, double* out) const {
    for (int j = 0; j < b.n; ++j) {
      set_lane(c, b, j);
      out[j] = b.on(j) ? f(c) : 0.0;
    }
  }
};
struct INode {
  virtual ~INode() = default;
  virtual std::int64_t i(Ctx& c) const = 0;
  /// Smallest and largest value over the batch's lanes, for nodes that are pure, cannot fault and can be bounded
  /// cheaply (constants, loop variables, affine forms); false otherwise. Lets comparisons decide a whole batch.
  virtual bool range(Ctx&, const Batch&, std::int64_t&, std::int64_t&) const { return false; }
  /// Batch form of i, as FNode::fb.
  virtual void ib(Ctx& c, const Batch& b, std::int64_t* out) const {
    for (int j = 0; j < b.n; ++j) {
      set_lane(c, b, j);
      out[j] = b.on(j) ? i(c) : 0;
    }
  }
};
using FPtr = std::unique_ptr<FNode>;
using IPtr = std::unique_ptr<INode>;

// ------------------------------------------------------------------------------------------------ constants
struct ConstF final : FNode {
  double v;
  explicit ConstF(double x) : v(x) {}
  double f(Ctx&) const override { return v; }
  void fb(Ctx&, const Batch& b, double* o) const override { std::fill_n(o, b.n, v); }
};
struct ConstI final : INode {
  std::int64_t v;
  explicit ConstI(std::int64_t x) : v(x) {}
  std::int64_t i(Ctx&) const override { return v; }
  void ib(Ctx&, const Batch& b, std::int64_t* o) const override { std::fill_n(o, b.n, v); }
  bool range(Ctx&, const Batch&, std::int64_t& lo, std::int64_t& hi) const override {
    lo = hi = v;
    return true;
  }
};
struct VarI final : INode {
  int slot;
  explicit VarI(int s) : slot(s) {}
  std::int64_t i(Ctx& c) const override { return c.vars[slot]; }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    for (int s = 0; s < b.nvars; ++s)
      if (b.slots[s] == slot) {
        std::copy_n(b.vals[s], b.n, o);
        return;
      }
    std::fill_n(o, b.n, c.vars[slot]);
  }
  bool range(Ctx& c, const Batch& b, std::int64_t& lo, std::int64_t& hi) const override {
    lo = hi = c.vars[slot];
    for (int s = 0; s < b.nvars; ++s)
      if (b.slots[s] == slot) lo = b.lo[s], hi = b.hi[s];
    return true;
  }
};

/// An i64 expression affine in loop variables, c + Σ k_j·v_j, in wrapping (mod 2^64) arithmetic: exactly the value
/// the tree of i64 +, -, * and negation nodes it replaces computes, in one node.
struct AffI final : INode {
  std::uint64_t c = 0;
  std::vector<std::pair<int, std::uint64_t>> terms;  // (slot, coefficient)
  std::int64_t i(Ctx& x) const override {
    std::uint64_t o = c;
    for (const auto& [s, k] : terms) o += k * static_cast<std::uint64_t>(x.vars[s]);
    return static_cast<std::int64_t>(o);
  }
  void ib(Ctx& x, const Batch& b, std::int64_t* out) const override {
    std::uint64_t base = c;  // loop variables outside the batch are current; the batch's vary by lane
    for (const auto& [s, k] : terms) {
      int v = 0;
      while (v < b.nvars && b.slots[v] != s) ++v;
      if (v == b.nvars) base += k * static_cast<std::uint64_t>(x.vars[s]);
    }
    std::fill_n(out, b.n, static_cast<std::int64_t>(base));
    for (const auto& [s, k] : terms)
      for (int v = 0; v < b.nvars; ++v)
        if (b.slots[v] == s)
          for (int j = 0; j < b.n; ++j)
            out[j] = static_cast<std::int64_t>(static_cast<std::uint64_t>(out[j]) +
                                               k * static_cast<std::uint64_t>(b.vals[v][j]));
  }
  /// Exact bounds in 128-bit arithmetic; false when they leave the i64 range (the wrapped values would not be
  /// ordered like the exact ones).
  bool range(Ctx& x, const Batch& b, std::int64_t& lo, std::int64_t& hi) const override {
    __int128 l = static_cast<std::int64_t>(c), h = l;
    for (const auto& [s, ku] : terms) {
      const __int128 k = static_cast<std::int64_t>(ku);
      __int128 vl = x.vars[s], vh = vl;
      for (int v = 0; v < b.nvars; ++v)
        if (b.slots[v] == s) vl = b.lo[v], vh = b.hi[v];
      const __int128 p = k * vl, q = k * vh;
      l += p < q ? p : q;
      h += p < q ? q : p;
    }
    if (l < INT64_MIN || h > INT64_MAX) return false;
    lo = static_cast<std::int64_t>(l);
    hi = static_cast<std::int64_t>(h);
    return true;
  }
};

// ------------------------------------------------------------------------------------------------ float ops
namespace fop {
struct Add { template <class T> static T ap(T a, T b) { return a + b; } };
struct Sub { template <class T> static T ap(T a, T b) { return a - b; } };
struct Mul { template <class T> static T ap(T a, T b) { return a * b; } };
struct Div { template <class T> static T ap(T a, T b) { return a / b; } };
struct FDiv { template <class T> static T ap(T a, T b) { return steptp_num::floor_div(a, b); } };
struct FMod { template <class T> static T ap(T a, T b) { return steptp_num::floor_mod(a, b); } };
struct Pow { template <class T> static T ap(T a, T b) { return std::pow(a, b); } };
struct Square { template <class T> static T ap(T a) { return a * a; } };  // x**2 (ir::is_square)
struct Max { template <class T> static T ap(T a, T b) { return steptp_num::nan_max(a, b); } };
struct Min { template <class T> static T ap(T a, T b) { return steptp_num::nan_min(a, b); } };
struct Neg { template <class T> static T ap(T a) { return -a; } };
struct Abs { template <class T> static T ap(T a) { return std::fabs(a); } };
struct Exp { template <class T> static T ap(T a) { return std::exp(a); } };
struct Log { template <class T> static T ap(T a) { return std::log(a); } };
struct Sqrt { template <class T> static T ap(T a) { return std::sqrt(a); } };
struct Erf { template <class T> static T ap(T a) { return std::erf(a); } };
}  // namespace fop

template <class Op>
struct BinF final : FNode {
  FPtr a, b;
  Prec p;
  BinF(FPtr x, FPtr y, Prec pr) : a(std::move(x)), b(std::move(y)), p(pr) {}
  double f(Ctx& c) const override {
    double x = a->f(c), y = b->f(c);
    if (p == Prec::P64) return Op::ap(x, y);
    return finish(Op::ap(static_cast<float>(x), static_cast<float>(y)), p);
  }
  void fb(Ctx& c, const Batch& bt, double* o) const override {
    a->fb(c, bt, o);
    auto t = ftemp(c);
    b->fb(c, bt, t.p);
    if (p == Prec::P64) {
      for (int j = 0; j < bt.n; ++j) o[j] = Op::ap(o[j], t.p[j]);
    } else {
      for (int j = 0; j < bt.n; ++j) o[j] = finish(Op::ap(static_cast<float>(o[j]), static_cast<float>(t.p[j])), p);
    }
  }
};
/// Float operators a fold (StmtNode::batch == Fold) can run as a sequential loop.
enum class FoldOp : std::uint8_t { Add, Sub, Mul, Div, Max, Min, Other };
/// Untyped fast path (P64 only, no precision branch). The base exposes the operands to the batch planner.
struct BinF64Base : FNode {
  FPtr a, b;
  FoldOp op = FoldOp::Other;
};
template <class Op>
struct BinF64 final : BinF64Base {
  BinF64(FPtr x, FPtr y) {
    a = std::move(x);
    b = std::move(y);
    if constexpr (std::is_same_v<Op, fop::Add>) op = FoldOp::Add;
    else if constexpr (std::is_same_v<Op, fop::Sub>) op = FoldOp::Sub;
    else if constexpr (std::is_same_v<Op, fop::Mul>) op = FoldOp::Mul;
    else if constexpr (std::is_same_v<Op, fop::Div>) op = FoldOp::Div;
    else if constexpr (std::is_same_v<Op, fop::Max>) op = FoldOp::Max;
    else if constexpr (std::is_same_v<Op, fop::Min>) op = FoldOp::Min;
  }
  double f(Ctx& c) const override { return Op::ap(a->f(c), b->f(c)); }
  void fb(Ctx& c, const Batch& bt, double* o) const override {
    a->fb(c, bt, o);
    auto t = ftemp(c);
    b->fb(c, bt, t.p);
    for (int j = 0; j < bt.n; ++j) o[j] = Op::ap(o[j], t.p[j]);
  }
};
template <class Op>
struct UnF final : FNode {
  FPtr a;
  Prec p;
  UnF(FPtr x, Prec pr) : a(std::move(x)), p(pr) {}
  double f(Ctx& c) const override {
    double x = a->f(c);
    if (p == Prec::P64) return Op::ap(x);
    return finish(Op::ap(static_cast<float>(x)), p);
  }
  void fb(Ctx& c, const Batch& bt, double* o) const override {
    a->fb(c, bt, o);
    if (p == Prec::P64) {
      for (int j = 0; j < bt.n; ++j) o[j] = Op::ap(o[j]);
    } else {
      for (int j = 0; j < bt.n; ++j) o[j] = finish(Op::ap(static_cast<float>(o[j])), p);
    }
  }
};

// ------------------------------------------------------------------------------------------------ integer ops
/// Integer arithmetic in i64 (two's complement, no UB), then wrapped to `bits` (LEIR.md §8.2). `uns`: u64 semantics
/// for division, modulo, max and min.
struct IntType {
  int bits = 64;
  bool sgn = true;
  bool boolean = false;  // bool: wrap means "≠ 0"
  std::int64_t wrap(std::int64_t v) const {
    if (boolean) return v != 0;
    return bits >= 64 ? v : steptp_num::wrap_int(v, bits, sgn);
  }
  bool u64() const { return bits >= 64 && !sgn; }
};
inline std::int64_t wadd(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t wsub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t wmul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

enum class IOp : std::uint8_t { Add, Sub, Mul, FDiv, FMod, Max, Min };
template <IOp Op>
struct BinI final : INode {
  IPtr a, b;
  IntType t;
  BinI(IPtr x, IPtr y, IntType tt) : a(std::move(x)), b(std::move(y)), t(tt) {}
  std::int64_t i(Ctx& c) const override {
    std::int64_t x = a->i(c), y = b->i(c), r = 0;
    if constexpr (Op == IOp::FDiv || Op == IOp::FMod) {
      if (y == 0) raise(c, Code::E303, Op == IOp::FDiv ? "integer division by zero" : "integer modulo by zero");
      r = divide(x, y);
    } else {
      r = apply(x, y);
    }
    return t.wrap(r);
  }
  /// FDiv, FMod before wrapping (y != 0).
  std::int64_t divide(std::int64_t x, std::int64_t y) const {
    if (t.u64()) {
      auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
      return static_cast<std::int64_t>(Op == IOp::FDiv ? steptp_num::floor_div_u(ux, uy)
                                                       : steptp_num::floor_mod_u(ux, uy));
    }
    return Op == IOp::FDiv ? steptp_num::floor_div(x, y) : steptp_num::floor_mod(x, y);
  }
  /// Add, Sub, Mul, Max, Min before wrapping (no error case).
  std::int64_t apply(std::int64_t x, std::int64_t y) const {
    if constexpr (Op == IOp::Add) return wadd(x, y);
    else if constexpr (Op == IOp::Sub) return wsub(x, y);
    else if constexpr (Op == IOp::Mul) return wmul(x, y);
    else if constexpr (Op == IOp::Max)
      return t.u64() ? (static_cast<std::uint64_t>(x) < static_cast<std::uint64_t>(y) ? y : x) : (x < y ? y : x);
    else return t.u64() ? (static_cast<std::uint64_t>(y) < static_cast<std::uint64_t>(x) ? y : x) : (y < x ? y : x);
  }
  void ib(Ctx& c, const Batch& bt, std::int64_t* o) const override {
    if constexpr (Op == IOp::FDiv || Op == IOp::FMod) {
      a->ib(c, bt, o);
      auto tmp = itemp(c);
      b->ib(c, bt, tmp.p);
      for (int j = 0; j < bt.n; ++j) {
        if (!bt.on(j)) continue;
        if (tmp.p[j] == 0) c.batch_fail = true;  // E303 in the scalar replay
        else o[j] = t.wrap(divide(o[j], tmp.p[j]));
      }
    } else {
      a->ib(c, bt, o);
      auto tmp = itemp(c);
      b->ib(c, bt, tmp.p);
      for (int j = 0; j < bt.n; ++j) o[j] = t.wrap(apply(o[j], tmp.p[j]));
    }
  }
};
struct NegI final : INode {
  IPtr a;
  IntType t;
  NegI(IPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override { return t.wrap(wsub(0, a->i(c))); }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    a->ib(c, b, o);
    for (int j = 0; j < b.n; ++j) o[j] = t.wrap(wsub(0, o[j]));
  }
};
struct AbsI final : INode {
  IPtr a;
  IntType t;
  AbsI(IPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override {
    std::int64_t v = a->i(c);
    if (t.u64() || v >= 0) return v;
    return t.wrap(wsub(0, v));
  }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    a->ib(c, b, o);
    for (int j = 0; j < b.n; ++j)
      if (!t.u64() && o[j] < 0) o[j] = t.wrap(wsub(0, o[j]));
  }
};

// ------------------------------------------------------------------------------------------------ conversions
/// int (of type `from`) -> float of precision p (§8.3: round to nearest even).
struct I2F final : FNode {
  IPtr a;
  bool from_u64;
  Prec p;
  I2F(IPtr x, bool u, Prec pr) : a(std::move(x)), from_u64(u), p(pr) {}
  double f(Ctx& c) const override { return convert(a->i(c)); }
  void fb(Ctx& c, const Batch& b, double* o) const override {
    auto t = itemp(c);
    a->ib(c, b, t.p);
    for (int j = 0; j < b.n; ++j) o[j] = convert(t.p[j]);
  }
  double convert(std::int64_t v) const {
    if (p == Prec::P32) return from_u64 ? static_cast<float>(static_cast<std::uint64_t>(v)) : static_cast<float>(v);
    double d = from_u64 ? static_cast<double>(static_cast<std::uint64_t>(v)) : static_cast<double>(v);
    if (p == Prec::P64) return d;
    // |v| > 2^24 overflows f16 and keeps 8 bits in bf16; double holds the exact value below 2^53
    return round_to(d, p);
  }
};
/// float -> narrower float (typed mode only).
struct F2F final : FNode {
  FPtr a;
  Prec p;
  F2F(FPtr x, Prec pr) : a(std::move(x)), p(pr) {}
  double f(Ctx& c) const override { return round_to(a->f(c), p); }
  void fb(Ctx& c, const Batch& b, double* o) const override {
    a->fb(c, b, o);
    for (int j = 0; j < b.n; ++j) o[j] = round_to(o[j], p);
  }
};
/// float -> integer (§8.3, E304).
struct F2I final : INode {
  FPtr a;
  IntType t;
  F2I(FPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override {
    double v = a->f(c);
    std::int64_t r = 0;
    if (!steptp_num::float_to_int(v, t.bits, t.sgn, &r))
      raise(c, Code::E304, "invalid float-to-integer conversion of " + std::to_string(v));
    return r;
  }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override;
};
/// int -> narrower int (wrap).
struct I2I final : INode {
  IPtr a;
  IntType t;
  I2I(IPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override { return t.wrap(a->i(c)); }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    a->ib(c, b, o);
    for (int j = 0; j < b.n; ++j) o[j] = t.wrap(o[j]);
  }
};
/// Truth value (≠ 0; NaN is true) of a float or int node, as 0/1.
struct TruthF final : INode {
  FPtr a;
  explicit TruthF(FPtr x) : a(std::move(x)) {}
  std::int64_t i(Ctx& c) const override { return a->f(c) != 0.0; }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    auto t = ftemp(c);
    a->fb(c, b, t.p);
    for (int j = 0; j < b.n; ++j) o[j] = t.p[j] != 0.0;
  }
};
struct TruthI final : INode {
  IPtr a;
  explicit TruthI(IPtr x) : a(std::move(x)) {}
  std::int64_t i(Ctx& c) const override { return a->i(c) != 0; }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    a->ib(c, b, o);
    for (int j = 0; j < b.n; ++j) o[j] = o[j] != 0;
  }
};

// ------------------------------------------------------------------------------------------------ logic
/// Short-circuit & and | over truth values (operands already 0/1).
struct AndI final : INode {
  IPtr a, b;
  AndI(IPtr x, IPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return a->i(c) ? b->i(c) : 0; }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override;
};
struct OrI final : INode {
  IPtr a, b;
  OrI(IPtr x, IPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return a->i(c) ? 1 : b->i(c); }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override;
};
/// Lazy if_then_else with a truth-valued condition.
struct SelF final : FNode {
  IPtr cnd;
  FPtr a, b;
  SelF(IPtr k, FPtr x, FPtr y) : cnd(std::move(k)), a(std::move(x)), b(std::move(y)) {}
  double f(Ctx& c) const override { return cnd->i(c) ? a->f(c) : b->f(c); }
  void fb(Ctx& c, const Batch& b, double* o) const override;
};
struct SelI final : INode {
  IPtr cnd, a, b;
  SelI(IPtr k, IPtr x, IPtr y) : cnd(std::move(k)), a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return cnd->i(c) ? a->i(c) : b->i(c); }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override;
};

/// One operand of a comparison chain, evaluated once, in its own domain.
struct CmpOperand {
  FPtr f;
  IPtr i;
  ir::DType ty = ir::DType::I64;
};
/// How a pair of a chain is compared: as floats of precision p (operands converted), as i64, or as u64.
struct CmpPair {
  enum Kind : std::uint8_t { Float, Signed, Unsigned } kind = Signed;
  Prec p = Prec::P64;
  ir::CmpOp op = ir::CmpOp::Lt;
};
/// Comparison chain a op0 b op1 c ...: each operand evaluated at most once, short-circuit left to right.
struct CmpChain final : INode {
  std::vector<CmpOperand> ops;
  std::vector<CmpPair> pairs;
  std::int64_t i(Ctx& c) const override;
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override;
  /// Pair k holds for left operand (ld | li) and right operand (rd | ri) (the domain of each operand's node).
  bool holds(std::size_t k, double ld, std::int64_t li, double rd, std::int64_t ri) const;
  double as_double(std::size_t k, double d, std::int64_t i, Prec p) const;
};
/// Whether `a op b` holds on every lane (1), on none (0), or it depends on the lane (-1), from the operands' ranges.
inline int decide_over_ranges(ir::CmpOp op, std::int64_t al, std::int64_t ah, std::int64_t bl, std::int64_t bh) {
  switch (op) {
    case ir::CmpOp::Lt: return ah < bl ? 1 : al >= bh ? 0 : -1;
    case ir::CmpOp::Le: return ah <= bl ? 1 : al > bh ? 0 : -1;
    case ir::CmpOp::Gt: return al > bh ? 1 : ah <= bl ? 0 : -1;
    case ir::CmpOp::Ge: return al >= bh ? 1 : ah < bl ? 0 : -1;
    case ir::CmpOp::Eq: return al == ah && bl == bh && al == bl ? 1 : ah < bl || bh < al ? 0 : -1;
    case ir::CmpOp::Ne: return al == ah && bl == bh && al == bl ? 0 : ah < bl || bh < al ? 1 : -1;
  }
  return -1;
}
/// Fast two-operand float / integer comparisons.
template <ir::CmpOp Op, class T>
inline bool cmp(T a, T b) {
  if constexpr (Op == ir::CmpOp::Lt) return a < b;
  else if constexpr (Op == ir::CmpOp::Le) return a <= b;
  else if constexpr (Op == ir::CmpOp::Gt) return a > b;
  else if constexpr (Op == ir::CmpOp::Ge) return a >= b;
  else if constexpr (Op == ir::CmpOp::Eq) return a == b;
  else return a != b;
}
template <ir::CmpOp Op>
struct CmpF final : INode {
  FPtr a, b;
  CmpF(FPtr x, FPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return cmp<Op>(a->f(c), b->f(c)); }
  void ib(Ctx& c, const Batch& bt, std::int64_t* o) const override {
    auto x = ftemp(c), y = ftemp(c);
    a->fb(c, bt, x.p);
    b->fb(c, bt, y.p);
    for (int j = 0; j < bt.n; ++j) o[j] = cmp<Op>(x.p[j], y.p[j]);
  }
};
template <ir::CmpOp Op>
struct CmpI final : INode {
  IPtr a, b;
  CmpI(IPtr x, IPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return cmp<Op>(a->i(c), b->i(c)); }
  void ib(Ctx& c, const Batch& bt, std::int64_t* o) const override {
    std::int64_t al, ah, bl, bh;
    if (a->range(c, bt, al, ah) && b->range(c, bt, bl, bh)) {
      const int d = decide_over_ranges(Op, al, ah, bl, bh);
      if (d >= 0) {
        std::fill_n(o, bt.n, d);
        return;
      }
    }
    auto y = itemp(c);
    a->ib(c, bt, o);
    b->ib(c, bt, y.p);
    for (int j = 0; j < bt.n; ++j) o[j] = cmp<Op>(o[j], y.p[j]);
  }
};

// ------------------------------------------------------------------------------------------------ addressing
/// Affine flat offset c + Σ k[j]·vars[slot[j]] (strides folded in at compile time).
struct Affine {
  static constexpr int kMax = 12;
  std::int64_t c = 0;
  int n = 0;
  int slot[kMax] = {};
  std::int64_t k[kMax] = {};
};
template <int NT>
inline std::int64_t eval_affine(const Affine& a, const std::int64_t* vars) {
  std::int64_t o = a.c;
  if constexpr (NT >= 0) {
    for (int j = 0; j < NT; ++j) o += a.k[j] * vars[a.slot[j]];
  } else {
    for (int j = 0; j < a.n; ++j) o += a.k[j] * vars[a.slot[j]];
  }
  return o;
}

/// Static information about one buffer read or write, used by the generic paths and checked mode.
struct RefInfo {
  int buf = 0;
  bool is_float = true;
  bool check_init = false;           // buffer may hold uninitialised elements
  std::vector<std::int64_t> shape;   // for bounds checks
  std::vector<std::int64_t> strides;
  std::vector<IPtr> entries;         // generic path: one node per subscript entry
  std::vector<bool> check_dim;       // E302 check per entry (gathers, guarded reads)
  std::vector<Affine> entry_aff;     // each entry's affine form, when every entry has one (batched reads)
  Affine flat_aff;                   // then also the flat offset's (strides folded in)
  std::uint32_t offset = 0;
  int scope_check = -1;              // checked mode: index into the checker's scoped-read table, -1 none
};

/// Computes the flat offset of a generic reference, bounds-checking the flagged entries (E302).
std::int64_t generic_offset(const RefInfo& r, Ctx& c);
/// Checked-mode hooks (checker.cpp).
void checked_read(Ctx& c, const RefInfo& r, std::int64_t off);

[[noreturn]] void raise_uninit(const Ctx& c, int buf, std::int64_t off);
[[noreturn]] void raise_oob(const Ctx& c, int buf, std::int64_t off);

/// Offset of a fast affine read with NT terms (-1: generic count): flat-range safety check, and (InitCheck) the
/// initialised-map test (E301).
template <int NT, bool InitCheck>
inline std::int64_t affine_read_offset(const Affine& a, int buf, const Ctx& c) {
  const std::int64_t o = eval_affine<NT>(a, c.vars);
  const BufState& s = c.bufs[buf];
  if (static_cast<std::uint64_t>(o) >= static_cast<std::uint64_t>(s.numel)) raise_oob(c, buf, o);
  if constexpr (InitCheck) {
    if (!s.init[o]) raise_uninit(c, buf, o);
  }
  return o;
}
/// Coefficient of loop slot `slot` in an affine offset.
inline std::int64_t affine_coefficient(const Affine& a, int slot) {
  std::int64_t k = 0;
  for (int j = 0; j < a.n; ++j)
    if (a.slot[j] == slot) k += a.k[j];
  return k;
}
/// Flat offsets of an affine form at every lane of a batch.
inline void lane_offsets(const Affine& a, Ctx& c, const Batch& b, std::int64_t* off) {
  set_lane(c, b, 0);
  std::fill_n(off, b.n, eval_affine<-1>(a, c.vars));
  for (int s = 0; s < b.nvars; ++s) {
    const std::int64_t k = affine_coefficient(a, b.slots[s]), v0 = b.vals[s][0];
    if (k == 0) continue;
    for (int j = 0; j < b.n; ++j) off[j] += k * (b.vals[s][j] - v0);
  }
}
/// Smallest and largest value of an affine form over the lanes of a batch (from the loop variables' ranges).
inline std::pair<std::int64_t, std::int64_t> affine_range(const Affine& a, Ctx& c, const Batch& b) {
  set_lane(c, b, 0);
  std::int64_t lo = eval_affine<-1>(a, c.vars), hi = lo;
  for (int s = 0; s < b.nvars; ++s) {
    const std::int64_t k = affine_coefficient(a, b.slots[s]), v0 = b.vals[s][0];
    const std::int64_t x = k * (b.lo[s] - v0), y = k * (b.hi[s] - v0);
    lo += std::min(x, y);
    hi += std::max(x, y);
  }
  return {lo, hi};
}
/// Batched affine read: out[j] = data[offset of lane j]. A range or initialisation fault sets c.batch_fail (the
/// caller replays the batch in scalar order, which raises E302 / E301 at the right iteration) and yields zeros.
template <int NT, bool InitCheck, class T>
inline void affine_read_batch(const Affine& a, int buf, Ctx& c, const Batch& b, const T* data, T* out) {
  const BufState& s = c.bufs[buf];
  const auto numel = static_cast<std::uint64_t>(s.numel);
  if (b.nvars > 1) {
    auto off = itemp(c);
    lane_offsets(a, c, b, off.p);
    for (int j = 0; j < b.n; ++j) {
      const std::int64_t o = off.p[j];
      out[j] = T{};
      if (!b.on(j)) continue;
      if (static_cast<std::uint64_t>(o) >= numel || (InitCheck && !s.init[o])) c.batch_fail = true;
      else out[j] = data[o];
    }
    return;
  }
  c.vars[b.slots[0]] = b.vals[0][0];  // one variable: consecutive values, offsets o0 + j*k
  const std::int64_t o0 = eval_affine<NT>(a, c.vars), k = affine_coefficient(a, b.slots[0]);
  if (!b.mask && static_cast<std::uint64_t>(o0) < numel && static_cast<std::uint64_t>(o0 + (b.n - 1) * k) < numel) {
    for (int j = 0; j < b.n; ++j) out[j] = data[o0 + j * k];
    if constexpr (InitCheck) {
      for (int j = 0; j < b.n; ++j)
        if (!s.init[o0 + j * k]) c.batch_fail = true;
    }
    return;
  }
  for (int j = 0; j < b.n; ++j) {
    const std::int64_t o = o0 + j * k;
    out[j] = T{};
    if (!b.on(j)) continue;
    if (static_cast<std::uint64_t>(o) >= numel || (InitCheck && !s.init[o])) c.batch_fail = true;
    else out[j] = data[o];
  }
}
template <int NT, bool InitCheck>
struct RefAffF final : FNode {
  Affine a;
  int buf;
  RefAffF(const Affine& x, int b) : a(x), buf(b) {}
  double f(Ctx& c) const override { return c.bufs[buf].f[affine_read_offset<NT, InitCheck>(a, buf, c)]; }
  void fb(Ctx& c, const Batch& b, double* o) const override {
    affine_read_batch<NT, InitCheck>(a, buf, c, b, c.bufs[buf].f, o);
  }
};
template <int NT, bool InitCheck>
struct RefAffI final : INode {
  Affine a;
  int buf;
  RefAffI(const Affine& x, int b) : a(x), buf(b) {}
  std::int64_t i(Ctx& c) const override { return c.bufs[buf].i[affine_read_offset<NT, InitCheck>(a, buf, c)]; }
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override {
    affine_read_batch<NT, InitCheck>(a, buf, c, b, c.bufs[buf].i, o);
  }
};
/// Generic read (gathers, guarded reads, non-affine entries, checked mode).
struct RefGenF final : FNode {
  RefInfo r;
  double f(Ctx& c) const override;
  void fb(Ctx& c, const Batch& b, double* o) const override;
};
struct RefGenI final : INode {
  RefInfo r;
  std::int64_t i(Ctx& c) const override;
  void ib(Ctx& c, const Batch& b, std::int64_t* o) const override;
};

}  // namespace steptp::interp::detail
