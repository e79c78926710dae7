// Random generator of valid LEIR tasks: see program_gen.hpp. Validity by construction rests on four invariants:
//  * every write covers its buffer's box exactly once per nest (loop variables as plain entries, or `n-1-v`), so
//    inferred shapes equal the planned ones and no element is read uninitialised;
//  * every unguarded read entry is built by fit_index() with a range inside the read buffer's extent, gathers go
//    through known integer index buffers whose values make_inputs() keeps in range, and guarded reads sit under the
//    `1<=v` condition that makes them in range;
//  * a statement never reads the buffer it writes except its own accumulator at the write subscript (and the
//    same-iteration temporary of its nest), so non-reducing P, V and B loops have no cross-iteration conflicts;
//  * divisors are never zero (`e%7+1`, positive literals, `abs(e)+1.0`), log/sqrt arguments are non-negative,
//    exp only sees a leaf or `0.0-abs(e)`, and float values reach integer targets only clamped.
#include "fuzz/program_gen.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/rng.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::fuzz {
namespace {

using namespace ir;

constexpr std::array<std::string_view, 20> kBufNames{"A", "C", "D", "E", "F", "G", "H", "I", "J", "K",
                                                     "M", "N", "O", "Q", "R", "S", "W", "X", "Y", "Z"};
constexpr std::array<std::string_view, 19> kVarNames{"a", "c", "d", "f", "g", "h", "i", "j", "k", "l",
                                                     "m", "n", "o", "p", "q", "r", "s", "u", "w"};
constexpr std::array<std::string_view, 6> kAxes{"tx", "ty", "tz", "bx", "by", "bz"};
constexpr std::array<DType, 4> kFloatTypes{DType::F32, DType::F64, DType::F16, DType::BF16};
constexpr std::array<DType, 8> kIntTypes{DType::I8, DType::I16, DType::I32, DType::I64,
                                         DType::U8, DType::U16, DType::U32, DType::U64};

enum class Kind { Float, Int, Bool };
Kind kind_of(DType t) { return is_float(t) ? Kind::Float : t == DType::Bool ? Kind::Bool : Kind::Int; }

struct Buf {
  std::string name;
  DType dtype = DType::F32;
  Scope scope = Scope::Global;
  std::vector<std::int64_t> shape;
  bool known = false;
  Role role = Role::Input;
  bool index = false;  // a known integer buffer used for gathers
};

struct Var {
  std::string name;
  std::int64_t extent = 1;
};

Expr bin(BinOp op, Expr a, Expr b) { return make_binary(op, std::move(a), std::move(b)); }
Expr call1(Func f, Expr a) { return make_call(f, {std::move(a)}); }
Expr call2(Func f, Expr a, Expr b) { return make_call(f, {std::move(a), std::move(b)}); }

class Gen {
 public:
  Gen(std::uint64_t seed, const GenOptions& o) : r_(seed), o_(o) {}

  Task run(std::uint64_t seed) {
    ft_ = r_.chance(0.55) ? DType::F32 : kFloatTypes[r_.below(kFloatTypes.size())];
    it_ = kIntTypes[r_.below(kIntTypes.size())];
    make_inputs();
    const int steps = 1 + int(r_.below(std::uint64_t(std::max(1, o_.max_steps))));
    for (int s = 0; s < steps; ++s) step(s == steps - 1);
    Task t;
    t.workload = "fuzz_" + std::to_string(seed);
    t.suite = "fuzz";
    for (Role role : {Role::Input, Role::Constant, Role::Param})
      for (const auto& b : bufs_)
        if (b.known && b.role == role) t.known.push_back({b.name, b.role, b.dtype, b.shape});
    for (const auto& b : bufs_)
      if (b.known && b.role == Role::Output) t.known.push_back({b.name, b.role, b.dtype, b.shape});
    t.program = std::move(prog_);
    to_parsed_form(t.program);
    return t;
  }

 private:
  core::Rng r_;
  GenOptions o_;
  DType ft_ = DType::F32, it_ = DType::I32;
  std::vector<Buf> bufs_;
  std::vector<std::size_t> readable_;  // indices of bufs_ readable by later nests (known inputs, written g buffers)
  std::size_t next_name_ = 0;
  std::set<std::string> read_;  // buffers read somewhere so far
  Program prog_;
  // per top-level nest
  std::size_t next_var_ = 0;
  std::set<std::string> axes_;
  // per statement
  std::vector<Var> vars_;

  std::int64_t ext() { return 1 + std::int64_t(r_.below(std::uint64_t(o_.max_extent))); }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[r_.below(v.size())]; }

  std::string fresh_buf() {
    if (next_name_ < kBufNames.size()) return std::string(kBufNames[next_name_++]);
    // Bijective base 20 continues with two letters: Aa, Ac, ... (LEIR.md §5.1).
    const std::size_t k = next_name_++ - kBufNames.size();
    std::string n(kBufNames[k / kBufNames.size()]);
    n += char(std::tolower(kBufNames[k % kBufNames.size()][0]));
    return n;
  }
  std::vector<std::int64_t> shape(int rank) {
    std::vector<std::int64_t> s;
    for (int i = 0; i < rank; ++i) s.push_back(ext());
    return s;
  }
  int rank() { return int(r_.below(std::uint64_t(o_.max_rank + 1))); }

  std::size_t add_buf(Buf b) {
    bufs_.push_back(std::move(b));
    return bufs_.size() - 1;
  }

  void make_inputs() {
    auto role = [&] { return r_.chance(0.7) ? Role::Input : r_.chance(0.5) ? Role::Constant : Role::Param; };
    const int nf = 1 + int(r_.below(3));
    for (int i = 0; i < nf; ++i) {
      const DType t = r_.chance(0.7) ? ft_ : kFloatTypes[r_.below(kFloatTypes.size())];
      readable_.push_back(add_buf({fresh_buf(), t, Scope::Global, shape(std::max(rank(), i == 0 ? 1 : 0)), true, role()}));
    }
    if (r_.chance(0.5))
      readable_.push_back(add_buf({fresh_buf(), r_.chance(0.6) ? it_ : kIntTypes[r_.below(8)], Scope::Global,
                                   shape(rank()), true, role()}));
    if (r_.chance(0.3)) readable_.push_back(add_buf({fresh_buf(), DType::Bool, Scope::Global, shape(rank()), true, role()}));
    if (r_.chance(0.4)) {
      Buf b{fresh_buf(), kIntTypes[r_.below(8)], Scope::Global, shape(1 + int(r_.below(2))), true, role()};
      b.index = true;
      add_buf(std::move(b));  // read only through gathers, never as a value (make_inputs fills it in [0, n))
    }
  }

  // ---- loops ----
  std::string fresh_var() { return std::string(kVarNames[next_var_++ % kVarNames.size()]); }
  void begin_top_nest() {
    next_var_ = 0;
    axes_.clear();
  }
  /// A loop header of extent n; `allow_b` lets it become a B loop when a hardware axis is still free.
  Loop loop(std::int64_t n, bool allow_b = true) {
    Loop l;
    l.extent = n;
    const auto k = r_.below(10);
    l.kind = k < 4 ? LoopKind::L : k < 5 ? LoopKind::P : k < 6 ? LoopKind::V : k < 7 ? LoopKind::U : LoopKind::B;
    if (l.kind == LoopKind::B && allow_b && axes_.size() < kAxes.size()) {
      std::string_view ax;
      do ax = kAxes[r_.below(kAxes.size())];
      while (axes_.count(std::string(ax)));
      axes_.insert(std::string(ax));
      l.var = std::string(ax) + (r_.chance(0.3) ? fresh_var() : "");
    } else {
      if (l.kind == LoopKind::B) l.kind = LoopKind::L;
      l.var = fresh_var();
    }
    return l;
  }

  // ---- subscripts ----
  /// An index entry with a static range inside [0, E-1], over the current loop variables.
  Expr fit_index(std::int64_t e) {
    if (vars_.empty() || r_.chance(0.1)) return make_int(std::int64_t(r_.below(std::uint64_t(e))));
    const Var& v = pick(vars_);
    const std::int64_t n = v.extent;
    switch (r_.below(7)) {
      case 0: if (n <= e) return make_binary(BinOp::Sub, make_int(e - 1), make_var(v.name)); break;
      case 1: {
        const std::int64_t k = 2 + std::int64_t(r_.below(2));
        if ((n - 1) / k <= e - 1) return bin(BinOp::FloorDiv, make_var(v.name), make_int(k));
        break;
      }
      case 2: if (2 * (n - 1) <= e - 1) return bin(BinOp::Mul, make_var(v.name), make_int(2)); break;
      case 3: if (n <= e - 1) return bin(BinOp::Add, make_var(v.name), make_int(1)); break;
      case 4: {
        const Var& w = pick(vars_);
        return bin(BinOp::Mod, bin(BinOp::Add, make_var(v.name), make_var(w.name)), make_int(e));
      }
      case 5: {
        auto idx = index_buffers(1);
        if (!idx.empty()) return bin(BinOp::Mod, bin(BinOp::Add, gather_index(*idx[0]), make_int(1)), make_int(e));
        break;
      }
      default: break;
    }
    if (n <= e) return make_var(v.name);
    return bin(BinOp::Mod, make_var(v.name), make_int(e));
  }
  std::vector<const Buf*> index_buffers(std::size_t min_rank) {
    std::vector<const Buf*> out;
    for (const auto& b : bufs_)
      if (b.index && b.shape.size() >= min_rank) out.push_back(&b);
    return out;
  }
  /// A read of index buffer `ib` (its entries fitted; sometimes itself a gather): the value indexes a dimension.
  Expr gather_index(const Buf& ib, int depth = 0) {
    std::vector<Expr> sub;
    for (auto e : ib.shape) {
      auto nested = index_buffers(1);
      if (depth < 2 && !nested.empty() && r_.chance(0.15)) sub.push_back(gather_index(*nested[0], depth + 1));
      else sub.push_back(fit_index(e));
    }
    return make_ref(ib.name, ib.dtype, ib.scope, std::move(sub));
  }
  Expr read(const Buf& b, bool allow_gather = true) {
    read_.insert(b.name);
    std::vector<Expr> sub;
    auto idx = index_buffers(1);
    for (auto e : b.shape) {
      if (allow_gather && !idx.empty() && r_.chance(0.15)) sub.push_back(gather_index(*pick(idx)));
      else sub.push_back(fit_index(e));
    }
    return make_ref(b.name, b.dtype, b.scope, std::move(sub));
  }
  /// A read of `b` whose entries together mention every variable of `need`.
  Expr cover_read(const Buf& b, const std::vector<Var>& need) {
    const std::size_t r = b.shape.size();
    std::vector<std::vector<const Var*>> per(r);
    for (std::size_t k = 0; k < need.size(); ++k) per[k % r].push_back(&need[k]);
    std::vector<Expr> sub;
    for (std::size_t d = 0; d < r; ++d) {
      const std::int64_t e = b.shape[d];
      if (per[d].empty()) {
        sub.push_back(fit_index(e));
      } else if (per[d].size() == 1 && per[d][0]->extent <= e) {
        sub.push_back(make_var(per[d][0]->name));
      } else {
        Expr s = make_var(per[d][0]->name);
        for (std::size_t k = 1; k < per[d].size(); ++k) s = bin(BinOp::Add, std::move(s), make_var(per[d][k]->name));
        sub.push_back(bin(BinOp::Mod, std::move(s), make_int(e)));
      }
    }
    return make_ref(b.name, b.dtype, b.scope, std::move(sub));
  }

  std::vector<const Buf*> readable_of(Kind k, bool known_only = false) {
    std::vector<const Buf*> out;
    for (auto i : readable_)
      if (kind_of(bufs_[i].dtype) == k && (!known_only || bufs_[i].known)) out.push_back(&bufs_[i]);
    return out;
  }

  // ---- expressions (synthesized form) ----
  Expr flit() {
    static constexpr std::array<double, 7> v{0.5, 2.0, 1.5, 0.25, 3.0, 0.1, 1.0};
    return make_float(v[r_.below(v.size())]);
  }
  Expr ilit(std::int64_t lo, std::int64_t hi) { return make_int(lo + std::int64_t(r_.below(std::uint64_t(hi - lo + 1)))); }

  Expr gen(Kind k, int depth) {
    if (k == Kind::Bool) return gen_bool(depth);
    if (depth <= 0 || r_.chance(0.25)) return leaf(k);
    if (k == Kind::Float) return float_op(depth);
    // A constant call (abs(9), max(2,3)) is a float constant (LEIR.md §7.3): it would turn the integer
    // expression into an f64 one and its store into a float-to-integer conversion (E304 on negatives).
    Expr e = int_op(depth);
    bool var_or_ref = false, call = false;
    visit_expr(e, [&](const Expr& x) {
      var_or_ref = var_or_ref || x.kind == ExprKind::Var || x.kind == ExprKind::Ref;
      call = call || x.kind == ExprKind::Call;
    });
    return !var_or_ref && call ? leaf(Kind::Int) : e;
  }

  Expr leaf(Kind k) {
    if (k == Kind::Float) {
      auto fb = readable_of(Kind::Float);
      const auto c = r_.below(10);
      if (c < 6 && !fb.empty()) return read(*pick(fb));
      if (c < 7 && !fb.empty()) {
        if (auto g = guarded_read(fb)) return std::move(*g);
      }
      if (c < 8) return leaf(Kind::Int);
      return flit();
    }
    auto ib = readable_of(Kind::Int);
    const auto c = r_.below(10);
    if (c < 5 && !ib.empty()) return read(*pick(ib));
    if (c < 8 && !vars_.empty()) return make_var(pick(vars_).name);
    return ilit(0, 9);
  }

  /// if_then_else(1<=v, X_{..v-1..}, 0.0): a padding read only evaluated where it is in range.
  std::optional<Expr> guarded_read(const std::vector<const Buf*>& fb) {
    if (vars_.empty()) return std::nullopt;
    const Buf& b = *pick(fb);
    const Var& v = pick(vars_);
    if (b.shape.empty() || v.extent < 2) return std::nullopt;
    const std::size_t d = r_.below(b.shape.size());
    if (v.extent > b.shape[d] + 1) return std::nullopt;
    Expr ref = read(b, false);
    ref.args[d] = bin(BinOp::Sub, make_var(v.name), make_int(1));
    Expr cond = r_.chance(0.5) ? make_compare(CmpOp::Le, make_int(1), make_var(v.name))
                               : make_compare(CmpOp::Ge, bin(BinOp::Sub, make_var(v.name), make_int(1)), make_int(0));
    return make_call(Func::IfThenElse, {std::move(cond), std::move(ref), make_float(0.0)});
  }

  Expr float_op(int depth) {
    const int d = depth - 1;
    switch (r_.below(17)) {
      case 0: case 1: return bin(BinOp::Add, gen(Kind::Float, d), gen(Kind::Float, d));
      case 2: case 3: return bin(BinOp::Sub, gen(Kind::Float, d), gen(Kind::Float, d));
      case 4: case 5: return bin(BinOp::Mul, gen(Kind::Float, d), gen(Kind::Float, d));
      case 6: return bin(BinOp::Div, gen(Kind::Float, d), bin(BinOp::Add, call1(Func::Abs, gen(Kind::Float, d)), make_float(1.0)));
      case 7: return call2(r_.chance(0.5) ? Func::Max : Func::Min, gen(Kind::Float, d), gen(Kind::Float, d));
      // exp(0.0-abs(e)) <= 1 (a unary minus would wrap an unsigned e to a huge value and make exp overflow).
      case 8: return call1(Func::Exp, r_.chance(0.5) ? leaf(Kind::Float)
                                                     : bin(BinOp::Sub, make_float(0.0), call1(Func::Abs, gen(Kind::Float, d))));
      case 9: return call1(Func::Log, bin(BinOp::Add, call1(Func::Abs, gen(Kind::Float, d)), make_float(1.0)));
      case 10: return call1(Func::Sqrt, call1(Func::Abs, gen(Kind::Float, d)));
      case 11: return call1(Func::Abs, gen(Kind::Float, d));
      case 12: return call1(Func::Erf, gen(Kind::Float, d));
      case 13: return make_neg(gen(Kind::Float, d));
      case 14: return r_.chance(0.5) ? bin(BinOp::Pow, gen(Kind::Float, d), make_int(2))
                                     : bin(BinOp::Pow, call1(Func::Abs, gen(Kind::Float, d)), make_float(0.5));
      default: return make_call(Func::IfThenElse, {gen_bool(d), gen(Kind::Float, d), gen(Kind::Float, d)});
    }
  }

  Expr int_op(int depth) {
    const int d = depth - 1;
    switch (r_.below(12)) {
      case 0: case 1: return bin(BinOp::Add, gen(Kind::Int, d), gen(Kind::Int, d));
      case 2: return bin(BinOp::Sub, gen(Kind::Int, d), gen(Kind::Int, d));
      case 3: case 4: return bin(BinOp::Mul, gen(Kind::Int, d), gen(Kind::Int, d));
      case 5: case 6: {
        // Never zero: a positive literal, or e%7+1 in [1, 7] for every integer type (floor modulo).
        Expr div = r_.chance(0.5) ? ilit(2, 5) : bin(BinOp::Add, bin(BinOp::Mod, gen(Kind::Int, d), make_int(7)), make_int(1));
        return bin(r_.chance(0.5) ? BinOp::FloorDiv : BinOp::Mod, gen(Kind::Int, d), std::move(div));
      }
      case 7: return call2(r_.chance(0.5) ? Func::Max : Func::Min, gen(Kind::Int, d), gen(Kind::Int, d));
      case 8: return call1(Func::Abs, gen(Kind::Int, d));
      case 9: return make_neg(gen(Kind::Int, d));
      default: return make_call(Func::IfThenElse, {gen_bool(d), gen(Kind::Int, d), gen(Kind::Int, d)});
    }
  }

  Expr gen_bool(int depth) {
    static constexpr std::array<CmpOp, 6> ops{CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Eq, CmpOp::Ne};
    const auto c = r_.below(10);
    if (depth > 0 && c < 2)
      return bin(r_.chance(0.5) ? BinOp::And : BinOp::Or, gen_bool(depth - 1), gen_bool(depth - 1));
    auto bb = readable_of(Kind::Bool);
    if (c < 3 && !bb.empty()) return read(*pick(bb));
    if (c < 4 && !vars_.empty()) {  // a chain over a loop variable: 1<=v<3
      const Var& v = pick(vars_);
      Expr e = make_compare(CmpOp::Le, ilit(0, 2), make_var(v.name));
      e.cmps.push_back(CmpOp::Lt);
      e.args.push_back(ilit(1, 4));
      return e;
    }
    if (c < 7) {
      // Against 0.0 or another float value, not a literal like 2 that N(0,1) inputs rarely exceed: a rare
      // comparison hides most changes of its operands from the equivalence check (and from this fuzzer).
      auto fb = readable_of(Kind::Float);
      Expr rhs = fb.empty() || r_.chance(0.5) ? make_float(0.0) : read(*pick(fb));
      return make_compare(ops[r_.below(4)], gen(Kind::Float, std::max(0, depth - 1)), std::move(rhs));  // no == !=
    }
    return make_compare(ops[r_.below(6)], gen(Kind::Int, std::max(0, depth - 1)), ilit(0, 4));
  }

  /// The value stored into a target of dtype t (a fresh expression); `whole`: it is the entire stored value (only
  /// then may it be a clamped float for an integer target).
  Expr value(DType t, bool whole = true) {
    const Kind k = kind_of(t);
    if (k == Kind::Int && whole && r_.chance(0.2)) {
      // A float value reaches an integer target only clamped into its range (E304 otherwise).
      auto fb = readable_of(Kind::Float, true);
      if (!fb.empty()) {
        Expr x = bin(BinOp::Mul, read(*pick(fb)), make_float(4.0));
        return call2(Func::Min, call2(Func::Max, std::move(x), make_float(is_signed_int(t) ? -100.0 : 0.0)), make_float(100.0));
      }
    }
    Expr e = gen(k, int(r_.below(std::uint64_t(o_.max_depth + 1))));
    // Keep earlier intermediates live: a value reads one that nothing has read yet (dead code makes mutants
    // equivalent and strategies trivial).
    std::vector<const Buf*> unread;
    for (auto i : readable_) {
      const Buf& b = bufs_[i];
      if (b.known || read_.count(b.name) || kind_of(b.dtype) == Kind::Bool) continue;
      if (k == Kind::Int && kind_of(b.dtype) != Kind::Int) continue;
      unread.push_back(&b);
    }
    if (unread.empty() || r_.chance(0.2)) return e;
    Expr x = read(*pick(unread));
    if (k == Kind::Bool) return bin(BinOp::Or, std::move(e), make_compare(CmpOp::Gt, std::move(x), make_float(0.0)));
    return bin(r_.chance(0.5) ? BinOp::Add : BinOp::Mul, std::move(e), std::move(x));
  }

  // ---- statements and nests ----
  Stmt stmt(Expr lhs, Expr rhs) {
    Stmt s;
    s.lhs = std::move(lhs);
    s.rhs = std::move(rhs);
    return s;
  }
  Item item(Stmt s) { return Item{std::move(s)}; }
  Item item(Nest n) { return Item{std::move(n)}; }

  DType pick_dtype() {
    const auto c = r_.below(20);
    if (c < 11) return r_.chance(0.7) ? ft_ : kFloatTypes[r_.below(4)];
    if (c < 17) return r_.chance(0.6) ? it_ : kIntTypes[r_.below(8)];
    return DType::Bool;
  }

  /// Loops over `shp` (outermost first) in a fresh top-level nest; fills vars_ and returns the write subscript.
  std::vector<Expr> spatial(const std::vector<std::int64_t>& shp, std::vector<Loop>& loops, bool reversible = true) {
    std::vector<Expr> sub;
    for (auto n : shp) {
      loops.push_back(loop(n));
      vars_.push_back({loops.back().var, n});
      if (reversible && r_.chance(0.15)) sub.push_back(bin(BinOp::Sub, make_int(n - 1), make_var(loops.back().var)));
      else sub.push_back(make_var(loops.back().var));
    }
    return sub;
  }

  /// A nest needs at least one header: a 0-d target gets a loop of extent 1.
  void ensure_loop(Nest& n) {
    if (!n.loops.empty()) return;
    n.loops.push_back(loop(1));
    vars_.push_back({n.loops.back().var, 1});
  }

  /// Adds reads so that `e` mentions every variable of vars_ not in `mentioned_by` (W003: an initialiser fires once).
  Expr cover_vars(Expr e, const Stmt& s, Kind k) {
    std::vector<Var> need;
    for (const auto& v : vars_)
      if (!mentions_var(e, v.name) && !mentions_var(s.lhs, v.name)) need.push_back(v);
    if (need.empty()) return e;
    auto bufs = readable_of(k == Kind::Bool ? Kind::Float : k);
    std::erase_if(bufs, [](const Buf* b) { return b->shape.empty(); });
    Expr extra;
    if (!bufs.empty()) {
      extra = cover_read(*pick(bufs), need);
    } else {
      extra = make_var(need[0].name);
      for (std::size_t i = 1; i < need.size(); ++i) extra = bin(BinOp::Add, std::move(extra), make_var(need[i].name));
    }
    if (k == Kind::Bool) return bin(BinOp::Or, std::move(e), make_compare(CmpOp::Gt, std::move(extra), make_float(0.0)));
    return bin(BinOp::Add, std::move(e), std::move(extra));
  }

  /// One computation step: a new buffer (output when `last` or by chance) or an update of an existing one.
  void step(bool last) {
    begin_top_nest();
    vars_.clear();
    std::vector<std::size_t> updatable;  // written g intermediates and outputs (all of them are in readable_)
    for (auto i : readable_)
      if ((!bufs_[i].known || bufs_[i].role == Role::Output) && kind_of(bufs_[i].dtype) != Kind::Bool)
        updatable.push_back(i);
    const bool have_output = std::any_of(bufs_.begin(), bufs_.end(), [](const Buf& x) { return x.known && x.role == Role::Output; });
    if (!updatable.empty() && r_.chance(0.15) && (have_output || !last)) return update(bufs_[pick(updatable)]);
    const bool out = last || r_.chance(0.2);
    // Outputs are mostly float: a bool or clamped integer output hides most changes from the equivalence check.
    const DType dt = out && r_.chance(0.6) ? (r_.chance(0.7) ? ft_ : kFloatTypes[r_.below(4)]) : pick_dtype();
    Buf b{fresh_buf(), dt, Scope::Global, shape(rank()), out, Role::Output};
    if (!b.known) b.role = Role::Input;  // unused for intermediates
    const auto c = r_.below(10);
    if (c < 3) map_nest(b);
    else if (c < 6) reduce_nest(b);
    else if (c < 8 && !b.shape.empty()) temp_nest(b);
    else if (c < 9 && !b.shape.empty() && b.shape[0] >= 2) split_nest(b);
    else map_nest(b);
    readable_.push_back(add_buf(std::move(b)));
  }

  Expr target_ref(const Buf& b, std::vector<Expr> sub) { return make_ref(b.name, b.dtype, b.scope, std::move(sub)); }

  /// O_{v..} = value, optionally with a same-iteration temporary T (g, s or l) written first in the same body.
  void map_nest(const Buf& b) {
    Nest n;
    auto sub = spatial(b.shape, n.loops);
    ensure_loop(n);
    const bool temp = kind_of(b.dtype) != Kind::Bool && r_.chance(0.3) && !b.shape.empty();
    Expr rhs = value(b.dtype, !temp);
    if (temp) {
      Buf t{fresh_buf(), kind_of(b.dtype) == Kind::Float ? ft_ : b.dtype, Scope(r_.below(3)), b.shape, false};
      std::vector<Expr> tsub;
      for (const auto& v : vars_) tsub.push_back(make_var(v.name));
      n.body.push_back(item(stmt(target_ref(t, tsub), value(t.dtype))));
      rhs = bin(BinOp::Add, std::move(rhs), target_ref(t, tsub));
      if (t.scope == Scope::Global) readable_.push_back(add_buf(t));
      else add_buf(t);
    }
    n.body.push_back(item(stmt(target_ref(b, std::move(sub)), std::move(rhs))));
    prog_.nests.push_back(std::move(n));
  }

  /// O_{s} = O_{s} op e over spatial and reduction loops in a random order: every initialiser of §8.4.
  void reduce_nest(const Buf& b) {
    std::vector<Loop> sl;
    auto sub = spatial(b.shape, sl, false);
    std::vector<Loop> rl;
    std::int64_t prod = 1;
    const int nr = 1 + int(r_.below(2));
    for (int i = 0; i < nr; ++i) {
      const std::int64_t n = std::min<std::int64_t>(ext(), std::max<std::int64_t>(1, o_.max_reduce / prod));
      prod *= n;
      rl.push_back(loop(n));
      vars_.push_back({rl.back().var, n});
    }
    Nest n;
    std::vector<Loop> all = sl;
    all.insert(all.end(), rl.begin(), rl.end());
    if (r_.chance(0.5)) {
      for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[r_.below(i)]);
    }
    n.loops = all;
    Expr x = target_ref(b, sub);
    const Kind k = kind_of(b.dtype);
    Stmt s = stmt(x, Expr{});
    Expr e = cover_vars(k == Kind::Bool ? gen_bool(2) : gen(k, 1 + int(r_.below(std::uint64_t(o_.max_depth)))), s, k);
    s.rhs = accumulate(x, std::move(e), k);
    n.body.push_back(item(std::move(s)));
    prog_.nests.push_back(std::move(n));
  }

  Expr accumulate(const Expr& x, Expr e, Kind k) {
    const auto c = r_.below(k == Kind::Bool ? 2 : k == Kind::Int ? 5 : 6);
    if (k == Kind::Bool || c == 3) return call2(Func::Max, x, std::move(e));
    if (c == 4) return call2(Func::Min, x, std::move(e));
    if (c == 0) return bin(BinOp::Add, x, std::move(e));
    if (c == 1) return bin(BinOp::Sub, x, std::move(e));
    if (c == 2) return bin(BinOp::Mul, x, std::move(e));
    // e/X starts at 1 (§8.4 trailing atom); the numerator is at least 1 so X never reaches 0.
    return bin(BinOp::Div, bin(BinOp::Add, call1(Func::Abs, std::move(e)), make_float(1.0)), x);
  }

  /// An update of an existing buffer without initialiser (§8.4 rule 2), optionally over an extra reduction loop.
  void update(const Buf& b) {
    Nest n;
    auto sub = spatial(b.shape, n.loops, false);
    if (r_.chance(0.5)) {
      n.loops.push_back(loop(std::min<std::int64_t>(ext(), o_.max_reduce)));
      vars_.push_back({n.loops.back().var, n.loops.back().extent});
    }
    ensure_loop(n);
    // The buffer being updated is not readable in its own statement (other than the accumulator).
    auto it = std::find_if(readable_.begin(), readable_.end(), [&](std::size_t i) { return bufs_[i].name == b.name; });
    std::optional<std::size_t> saved;
    if (it != readable_.end()) {
      saved = *it;
      readable_.erase(it);
    }
    const Kind k = kind_of(b.dtype);
    Expr x = target_ref(b, std::move(sub));
    Stmt s = stmt(x, Expr{});
    s.rhs = accumulate(x, cover_vars(gen(k, 1 + int(r_.below(2))), s, k), k);
    n.body.push_back(item(std::move(s)));
    prog_.nests.push_back(std::move(n));
    if (saved) readable_.push_back(*saved);
  }

  /// H[ T = f; O = g(T) ] with a per-iteration temporary T in scope g, s or l. Rank 1: two statements in the body;
  /// rank >= 2: two nested nests over the inner dimensions, the second in tail form half of the time.
  void temp_nest(const Buf& b) {
    Nest n;
    n.loops.push_back(loop(b.shape[0]));
    vars_.push_back({n.loops[0].var, b.shape[0]});
    const Kind k = kind_of(b.dtype);
    Buf t{fresh_buf(), k == Kind::Bool ? ft_ : b.dtype, Scope(r_.below(3)), {}, false};
    std::vector<std::int64_t> inner(b.shape.begin() + 1, b.shape.end());
    t.shape = inner;
    if (inner.empty()) {
      n.body.push_back(item(stmt(target_ref(t, {}), value(t.dtype))));
      Expr g = k == Kind::Bool ? make_compare(CmpOp::Gt, target_ref(t, {}), make_float(0.0))
                               : bin(BinOp::Mul, target_ref(t, {}), value(b.dtype, false));
      n.body.push_back(item(stmt(target_ref(b, {make_var(n.loops[0].var)}), std::move(g))));
    } else {
      const std::size_t outer = vars_.size();
      Nest n1, n2;
      std::vector<Expr> tsub;
      for (auto e : inner) {
        Loop l = loop(e, false);
        n1.loops.push_back(l);
        vars_.push_back({l.var, e});
        tsub.push_back(make_var(l.var));
      }
      n1.body.push_back(item(stmt(target_ref(t, tsub), value(t.dtype))));
      for (const auto& l : n1.loops) {  // same variables and extents, kinds redrawn (never B: E307)
        Loop l2 = l;
        l2.kind = Loop{loop(l.extent, false)}.kind;
        l2.var = l.var;
        n2.loops.push_back(l2);
      }
      std::vector<Expr> osub{make_var(n.loops[0].var)};
      for (std::size_t i = outer; i < vars_.size(); ++i) osub.push_back(make_var(vars_[i].name));
      Expr g = k == Kind::Bool ? make_compare(CmpOp::Gt, target_ref(t, tsub), make_float(0.0))
                               : bin(BinOp::Add, target_ref(t, tsub), value(b.dtype, false));
      n2.body.push_back(item(stmt(target_ref(b, std::move(osub)), std::move(g))));
      n2.tail = r_.chance(0.5);
      n.body.push_back(item(std::move(n1)));
      n.body.push_back(item(std::move(n2)));
    }
    if (t.scope == Scope::Global) readable_.push_back(add_buf(t));
    else add_buf(t);
    prog_.nests.push_back(std::move(n));
  }

  /// One output written by two nests on the halves [0, k) and [k, n) of dimension 0 (E210 coverage).
  void split_nest(const Buf& b) {
    const std::int64_t k = 1 + std::int64_t(r_.below(std::uint64_t(b.shape[0] - 1)));
    for (int half = 0; half < 2; ++half) {
      begin_top_nest();
      vars_.clear();
      Nest n;
      std::vector<std::int64_t> shp = b.shape;
      shp[0] = half == 0 ? k : b.shape[0] - k;
      auto sub = spatial(shp, n.loops, false);
      if (half == 1) sub[0] = bin(BinOp::Add, std::move(sub[0]), make_int(k));
      n.body.push_back(item(stmt(target_ref(b, std::move(sub)), value(b.dtype))));
      prog_.nests.push_back(std::move(n));
    }
  }
};

}  // namespace

Task generate_task(std::uint64_t seed, const GenOptions& opt) { return Gen(seed, opt).run(seed); }

}  // namespace steptp::fuzz
