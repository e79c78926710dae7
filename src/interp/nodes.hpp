// Internal to the interpreter: the compiled closure tree (expression nodes, statements, nests) and the run-time
// context. Built once per task and precision by compile.cpp; executed by interpreter.cpp. Not a public API.
//
// Values live in two domains: float nodes (FNode) return double, integer and bool nodes (INode) return int64
// (u64 values keep their bit pattern; bool is 0/1). Precision (`Prec`) says how a float node rounds its result:
// P64 keeps the double (f64 type, or any float type in the default untyped mode); P32 computes in single precision;
// P16/PB16 compute in single precision and round to f16/bf16 after the operation (LEIR.md §8.2).
#pragma once
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
};

/// Called when c.steps passes c.limit: E308 beyond the hard limit, otherwise reports progress and sets the next
/// checkpoint (defined in interpreter.cpp; off the hot path).
void step_limit_reached(Ctx& c);

/// Throws LeirError `code` with the current statement's offset, loop values and `what` (defined in
/// interpreter.cpp).
[[noreturn]] void raise(const Ctx& c, const char* code, const std::string& what);
/// "M[3,1]" for a flat element index of buffer `buf`.
std::string element_name(const Ctx& c, int buf, std::int64_t off);

struct FNode {
  virtual ~FNode() = default;
  virtual double f(Ctx& c) const = 0;
};
struct INode {
  virtual ~INode() = default;
  virtual std::int64_t i(Ctx& c) const = 0;
};
using FPtr = std::unique_ptr<FNode>;
using IPtr = std::unique_ptr<INode>;

// ------------------------------------------------------------------------------------------------ constants
struct ConstF final : FNode {
  double v;
  explicit ConstF(double x) : v(x) {}
  double f(Ctx&) const override { return v; }
};
struct ConstI final : INode {
  std::int64_t v;
  explicit ConstI(std::int64_t x) : v(x) {}
  std::int64_t i(Ctx&) const override { return v; }
};
struct VarI final : INode {
  int slot;
  explicit VarI(int s) : slot(s) {}
  std::int64_t i(Ctx& c) const override { return c.vars[slot]; }
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
};
/// Untyped fast path (P64 only, no precision branch).
template <class Op>
struct BinF64 final : FNode {
  FPtr a, b;
  BinF64(FPtr x, FPtr y) : a(std::move(x)), b(std::move(y)) {}
  double f(Ctx& c) const override { return Op::ap(a->f(c), b->f(c)); }
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
    if constexpr (Op == IOp::Add) r = wadd(x, y);
    else if constexpr (Op == IOp::Sub) r = wsub(x, y);
    else if constexpr (Op == IOp::Mul) r = wmul(x, y);
    else if constexpr (Op == IOp::FDiv || Op == IOp::FMod) {
      if (y == 0) raise(c, "E303", Op == IOp::FDiv ? "integer division by zero" : "integer modulo by zero");
      if (t.u64()) {
        auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
        r = static_cast<std::int64_t>(Op == IOp::FDiv ? steptp_num::floor_div_u(ux, uy)
                                                      : steptp_num::floor_mod_u(ux, uy));
      } else {
        r = Op == IOp::FDiv ? steptp_num::floor_div(x, y) : steptp_num::floor_mod(x, y);
      }
    } else if constexpr (Op == IOp::Max) {
      r = t.u64() ? (static_cast<std::uint64_t>(x) < static_cast<std::uint64_t>(y) ? y : x) : (x < y ? y : x);
    } else {
      r = t.u64() ? (static_cast<std::uint64_t>(y) < static_cast<std::uint64_t>(x) ? y : x) : (y < x ? y : x);
    }
    return t.wrap(r);
  }
};
struct NegI final : INode {
  IPtr a;
  IntType t;
  NegI(IPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override { return t.wrap(wsub(0, a->i(c))); }
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
};

// ------------------------------------------------------------------------------------------------ conversions
/// int (of type `from`) -> float of precision p (§8.3: round to nearest even).
struct I2F final : FNode {
  IPtr a;
  bool from_u64;
  Prec p;
  I2F(IPtr x, bool u, Prec pr) : a(std::move(x)), from_u64(u), p(pr) {}
  double f(Ctx& c) const override {
    std::int64_t v = a->i(c);
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
};
/// float -> integer (§8.3, E304).
struct F2I final : INode {
  FPtr a;
  IntType t;
  F2I(FPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override {
    double v = a->f(c);
    std::int64_t r = 0;
    if (!steptp_num::float_to_int(v, t.bits, t.sgn, &r)) raise(c, "E304", "invalid float-to-integer conversion of " +
                                                                           std::to_string(v));
    return r;
  }
};
/// int -> narrower int (wrap).
struct I2I final : INode {
  IPtr a;
  IntType t;
  I2I(IPtr x, IntType tt) : a(std::move(x)), t(tt) {}
  std::int64_t i(Ctx& c) const override { return t.wrap(a->i(c)); }
};
/// Truth value (≠ 0; NaN is true) of a float or int node, as 0/1.
struct TruthF final : INode {
  FPtr a;
  explicit TruthF(FPtr x) : a(std::move(x)) {}
  std::int64_t i(Ctx& c) const override { return a->f(c) != 0.0; }
};
struct TruthI final : INode {
  IPtr a;
  explicit TruthI(IPtr x) : a(std::move(x)) {}
  std::int64_t i(Ctx& c) const override { return a->i(c) != 0; }
};

// ------------------------------------------------------------------------------------------------ logic
/// Short-circuit & and | over truth values (operands already 0/1).
struct AndI final : INode {
  IPtr a, b;
  AndI(IPtr x, IPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return a->i(c) ? b->i(c) : 0; }
};
struct OrI final : INode {
  IPtr a, b;
  OrI(IPtr x, IPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return a->i(c) ? 1 : b->i(c); }
};
/// Lazy if_then_else with a truth-valued condition.
struct SelF final : FNode {
  IPtr cnd;
  FPtr a, b;
  SelF(IPtr k, FPtr x, FPtr y) : cnd(std::move(k)), a(std::move(x)), b(std::move(y)) {}
  double f(Ctx& c) const override { return cnd->i(c) ? a->f(c) : b->f(c); }
};
struct SelI final : INode {
  IPtr cnd, a, b;
  SelI(IPtr k, IPtr x, IPtr y) : cnd(std::move(k)), a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return cnd->i(c) ? a->i(c) : b->i(c); }
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
};
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
};
template <ir::CmpOp Op>
struct CmpI final : INode {
  IPtr a, b;
  CmpI(IPtr x, IPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t i(Ctx& c) const override { return cmp<Op>(a->i(c), b->i(c)); }
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
template <int NT, bool InitCheck>
struct RefAffF final : FNode {
  Affine a;
  int buf;
  RefAffF(const Affine& x, int b) : a(x), buf(b) {}
  double f(Ctx& c) const override { return c.bufs[buf].f[affine_read_offset<NT, InitCheck>(a, buf, c)]; }
};
template <int NT, bool InitCheck>
struct RefAffI final : INode {
  Affine a;
  int buf;
  RefAffI(const Affine& x, int b) : a(x), buf(b) {}
  std::int64_t i(Ctx& c) const override { return c.bufs[buf].i[affine_read_offset<NT, InitCheck>(a, buf, c)]; }
};
/// Generic read (gathers, guarded reads, non-affine entries, checked mode).
struct RefGenF final : FNode {
  RefInfo r;
  double f(Ctx& c) const override;
};
struct RefGenI final : INode {
  RefInfo r;
  std::int64_t i(Ctx& c) const override;
};

// ------------------------------------------------------------------------------------------------ statements
struct ItemNode {
  virtual ~ItemNode() = default;
  virtual void exec(Ctx& c) const = 0;
};

/// A statement X[s] = e (LEIR.md §8.1 step 4). The base holds everything error messages and checked mode need.
struct StmtNode : ItemNode {
  int buf = 0;
  bool is_float = true;
  bool track_init = true;                  // target has an initialised map (always, targets are never inputs)
  bool has_init = false;                   // §8.4 initialiser
  std::vector<int> red_slots;              // reduction variables' slots
  double init_f = 0;                       // identity converted to T
  std::int64_t init_i = 0;
  FPtr rf;                                 // rhs converted to T (float targets)
  IPtr ri;                                 // rhs converted to T (integer/bool targets)
  Affine lhs_aff;                          // affine target address (when lhs_affine)
  bool lhs_affine = true;
  RefInfo lhs;                             // generic target address
  // diagnostics
  std::uint32_t offset = 0;
  std::string text;                        // canonical statement text
  std::vector<std::pair<std::string, int>> loop_vars;  // enclosing loops (name, slot), outermost first
  std::vector<int> b_axes;                 // checked mode: hardware axes (0..5) of enclosing B loops

  bool init_fires(const Ctx& c) const {
    for (int s : red_slots)
      if (c.vars[s] != 0) return false;
    return true;
  }
  void step(Ctx& c) const {
    c.cur = this;
    c.cur_elem = -1;
    if (++c.steps > c.limit) step_limit_reached(c);
  }
  /// Generic store path (used by the generic and checked statement variants).
  void exec_generic(Ctx& c) const;
};

/// Fast statement: affine target with NT terms, float or integer target.
template <int NT, bool Float>
struct StmtAff final : StmtNode {
  void exec(Ctx& c) const override {
    step(c);
    std::int64_t o = eval_affine<NT>(lhs_aff, c.vars);
    BufState& s = c.bufs[buf];
    if (static_cast<std::uint64_t>(o) >= static_cast<std::uint64_t>(s.numel)) raise_oob(c, buf, o);
    c.cur_elem = o;
    if constexpr (Float) {
      if (has_init && init_fires(c)) {
        s.f[o] = init_f;
        s.init[o] = 1;
      }
      s.f[o] = rf->f(c);
    } else {
      if (has_init && init_fires(c)) {
        s.i[o] = init_i;
        s.init[o] = 1;
      }
      s.i[o] = ri->i(c);
    }
    s.init[o] = 1;
  }
};
struct StmtGen final : StmtNode {
  void exec(Ctx& c) const override { exec_generic(c); }
};

/// One loop header of a compiled nest.
struct LoopDesc {
  int slot = 0;
  std::int64_t extent = 1;
  bool track_conflicts = false;  // checked mode: non-reducing P/V/B loop of extent > 1 (E306)
  int b_axis = -1;               // checked mode: hardware axis 0..5 of a B loop, else -1
};

struct NestNode final : ItemNode {
  std::vector<LoopDesc> loops;
  std::vector<std::unique_ptr<ItemNode>> body;
  void exec(Ctx& c) const override {
    if (c.chk) run_checked(c, 0);
    else run(c, 0);
  }
  void run(Ctx& c, std::size_t lv) const {
    if (lv == loops.size()) {
      for (const auto& it : body) it->exec(c);
      return;
    }
    const LoopDesc& L = loops[lv];
    std::int64_t& v = c.vars[L.slot];
    if (lv + 1 == loops.size() && body.size() == 1) {
      const ItemNode* it = body[0].get();
      for (v = 0; v < L.extent; ++v) it->exec(c);
    } else {
      for (v = 0; v < L.extent; ++v) run(c, lv + 1);
    }
  }
  void run_checked(Ctx& c, std::size_t lv) const;  // checker.cpp
};

}  // namespace steptp::interp::detail
