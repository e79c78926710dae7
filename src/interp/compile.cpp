// Compiles an annotated LEIR task into the interpreter's closure tree (LEIR.md §8). All name lookups, type
// decisions, constant folding and subscript strength reduction happen here, once; run() does no string work.
#include "interp/compile.hpp"
#include "interp/probe_nodes.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "ir/printer.hpp"
#include "ir/typing.hpp"

namespace steptp::interp::detail {
namespace {

/// Nests whose batchable innermost loops cover fewer iterations than this run in scalar order (a batch's fixed
/// cost would not pay off).
constexpr std::int64_t kMinBatchLanes = 2;
/// Loops are spanned outwards only while the spanned ones cover fewer iterations than this (a batch's lanes).
constexpr std::int64_t kSpanMoreBelow = kBatch;

using ir::DType;
using ir::Expr;
using ir::ExprKind;

/// A compiled expression: exactly one of f (float domain) and i (integer/bool domain), with its static type.
struct CE {
  FPtr f;
  IPtr i;
  DType ty = DType::I64;
};

IntType int_type(DType t) {
  IntType it;
  it.bits = ir::dtype_bits(t);
  it.sgn = ir::is_signed_int(t);
  it.boolean = t == DType::Bool;
  if (it.boolean) it.bits = 8;
  return it;
}

/// Affine form c0 + Σ k·v of an integer expression in wrapping (mod 2^64) arithmetic, exactly as the i64 nodes
/// compute it: IntLit, Var, Group, Neg and +, -, * with a constant side; nullopt otherwise. Keys are variable names.
/// `i64_only`: every node must also be typed i64 (a narrower or unsigned subexpression wraps differently; literals
/// and variables are i64 unless annotated otherwise).
template <class T>
struct AffineForm {
  T c0 = 0;
  std::map<std::string, T> terms;
  bool constant() const {
    for (auto& [v, k] : terms)
      if (k != 0) return false;
    return true;
  }
};
using WrapForm = AffineForm<std::uint64_t>;
std::optional<WrapForm> wrapping_affine(const Expr& e, bool i64_only) {
  if (i64_only) {
    const bool leaf = e.kind == ExprKind::IntLit || e.kind == ExprKind::Var || e.kind == ExprKind::Group;
    if (e.ty != DType::I64 && !(leaf && e.ty == DType::Invalid)) return std::nullopt;
  }
  switch (e.kind) {
    case ExprKind::IntLit: { WrapForm a; a.c0 = static_cast<std::uint64_t>(e.ival); return a; }
    case ExprKind::Var: { WrapForm a; a.terms[e.text] = 1; return a; }
    case ExprKind::Group: return wrapping_affine(e.args[0], i64_only);
    case ExprKind::Neg: {
      auto a = wrapping_affine(e.args[0], i64_only);
      if (!a) return a;
      a->c0 = 0 - a->c0;
      for (auto& [v, k] : a->terms) k = 0 - k;
      return a;
    }
    case ExprKind::Binary: {
      if (e.bop != ir::BinOp::Add && e.bop != ir::BinOp::Sub && e.bop != ir::BinOp::Mul) return std::nullopt;
      auto a = wrapping_affine(e.args[0], i64_only);
      if (!a) return a;
      auto b = wrapping_affine(e.args[1], i64_only);
      if (!b) return b;
      if (e.bop == ir::BinOp::Mul) {
        if (!a->constant() && !b->constant()) return std::nullopt;
        if (a->constant()) std::swap(a, b);
        const std::uint64_t k = b->c0;
        a->c0 *= k;
        for (auto& [v, c] : a->terms) c *= k;
        return a;
      }
      const bool add = e.bop == ir::BinOp::Add;
      a->c0 = add ? a->c0 + b->c0 : a->c0 - b->c0;
      for (auto& [v, c] : b->terms) a->terms[v] = add ? a->terms[v] + c : a->terms[v] - c;
      return a;
    }
    default: return std::nullopt;
  }
}

/// Affine form c0 + Σ c·v of an integer subscript expression (§7.2), or nullopt: the wrapping form read as signed.
using AffForm = AffineForm<std::int64_t>;
std::optional<AffForm> affine_of(const Expr& e) {
  auto w = wrapping_affine(e, false);
  if (!w) return std::nullopt;
  AffForm a;
  a.c0 = static_cast<std::int64_t>(w->c0);
  for (auto& [v, k] : w->terms) a.terms[v] = static_cast<std::int64_t>(k);
  return a;
}

bool has_ref(const Expr& e) {
  bool found = false;
  ir::visit_expr(e, [&](const Expr& x) { found |= x.kind == ExprKind::Ref; });
  return found;
}
template <template <int, bool> class Node, class Base>
std::unique_ptr<Base> make_aff(const Affine& a, int buf, bool init_check) {
  auto pick = [&](auto nt) -> std::unique_ptr<Base> {
    constexpr int NT = decltype(nt)::value;
    if (init_check) return std::make_unique<Node<NT, true>>(a, buf);
    return std::make_unique<Node<NT, false>>(a, buf);
  };
  switch (a.n) {
    case 0: return pick(std::integral_constant<int, 0>{});
    case 1: return pick(std::integral_constant<int, 1>{});
    case 2: return pick(std::integral_constant<int, 2>{});
    case 3: return pick(std::integral_constant<int, 3>{});
    case 4: return pick(std::integral_constant<int, 4>{});
    default: return pick(std::integral_constant<int, -1>{});
  }
}
template <bool Float>
std::unique_ptr<StmtNode> make_stmt_aff(int n) {
  switch (n) {
    case 0: return std::make_unique<StmtAff<0, Float>>();
    case 1: return std::make_unique<StmtAff<1, Float>>();
    case 2: return std::make_unique<StmtAff<2, Float>>();
    case 3: return std::make_unique<StmtAff<3, Float>>();
    case 4: return std::make_unique<StmtAff<4, Float>>();
    default: return std::make_unique<StmtAff<-1, Float>>();
  }
}

class Compiler {
 public:
  Compiler(const ir::Task& t, const ir::Analysis& a, bool typed, bool checked, bool probes)
      : task_(t), typed_(typed), checked_(checked), probes_(probes) {
    out_ = std::make_unique<Compiled>();
    for (const auto& b : a.buffers) {
      BufDesc d;
      d.name = b.name;
      d.dtype = b.dtype;
      d.scope = b.scope;
      d.known = b.known;
      d.read_only = b.known && b.role != ir::Role::Output;
      d.output = b.known && b.role == ir::Role::Output;
      d.shape = b.shape;
      d.strides.assign(b.shape.size(), 1);
      for (std::size_t k = b.shape.size(); k-- > 1;) d.strides[k - 1] = d.strides[k] * b.shape[k];
      d.numel = 1;
      for (auto e : b.shape) d.numel *= e;
      d.is_float = ir::is_float(b.dtype);
      buf_index_[d.name] = static_cast<int>(out_->bufs.size());
      out_->bufs.push_back(std::move(d));
    }
  }

  std::unique_ptr<Compiled> run() {
    for (const auto& n : task_.program.nests) {
      top_first_axis_ = -1;
      for (const auto& l : n.loops)
        if (l.kind == ir::LoopKind::B) { top_first_axis_ = hardware_axis(l.var); break; }
      out_->nests.push_back(nest(n));
    }
    out_->nslots = nslots_;
    out_->probe_counters = probe_counters_;
    return std::move(out_);
  }

 private:
  const ir::Task& task_;
  bool typed_, checked_, probes_;
  std::unique_ptr<Compiled> out_;
  std::map<std::string, int> buf_index_;
  std::vector<std::pair<std::string, int>> scope_;  // visible loop variables (name, slot), outermost first
  std::vector<int> b_axes_;                          // axes of enclosing B loops
  int top_first_axis_ = -1;
  int nslots_ = 0;
  std::uint32_t probe_counters_ = 0;
  DType stmt_float_ = DType::F64;  // F of the current statement (for untyped literals)

  Prec prec(DType t) const {
    if (!typed_) return Prec::P64;
    switch (t) {
      case DType::F32: return Prec::P32;
      case DType::F16: return Prec::P16;
      case DType::BF16: return Prec::PB16;
      default: return Prec::P64;
    }
  }
  int slot(const std::string& v) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == v) return it->second;
    throw ir::LeirError(Code::E113, "unbound loop variable " + v);
  }
  int buffer(const std::string& n) const {
    auto it = buf_index_.find(n);
    if (it == buf_index_.end()) throw ir::LeirError(Code::E205, "unknown buffer " + n);
    return it->second;
  }
  DType type_of(const Expr& e) const {
    if (e.ty != DType::Invalid) return e.ty;
    switch (e.kind) {  // fallback for nodes the validator leaves unannotated
      case ExprKind::Group: return type_of(e.args[0]);
      case ExprKind::Var: return DType::I64;
      case ExprKind::Ref: return out_->bufs[buffer(e.text)].dtype;
      case ExprKind::Compare: return DType::Bool;
      case ExprKind::IntLit: return DType::I64;
      default: return stmt_float_;
    }
  }

  // ---- conversions between domains and types (§8.3)
  FPtr as_f(CE c, DType target) {
    if (c.i) return std::make_unique<I2F>(std::move(c.i), c.ty == DType::U64, prec(target));
    if (!typed_ || c.ty == target || target == DType::F64) return std::move(c.f);
    if (target == DType::F32 && (c.ty == DType::F16 || c.ty == DType::BF16)) return std::move(c.f);
    return std::make_unique<F2F>(std::move(c.f), prec(target));
  }
  IPtr as_i(CE c, DType target) {
    if (target == DType::Bool) return truth(std::move(c));
    if (c.f) return std::make_unique<F2I>(std::move(c.f), int_type(target));
    if (c.ty == target || ir::dtype_bits(target) >= 64) return std::move(c.i);
    return std::make_unique<I2I>(std::move(c.i), int_type(target));
  }
  IPtr truth(CE c) {
    if (c.f) return std::make_unique<TruthF>(std::move(c.f));
    if (c.ty == DType::Bool) return std::move(c.i);
    return std::make_unique<TruthI>(std::move(c.i));
  }
  CE fnode(FPtr f, DType t) { CE c; c.f = std::move(f); c.ty = t; return c; }
  CE inode(IPtr i, DType t) { CE c; c.i = std::move(i); c.ty = t; return c; }

  CE constant(double v, DType t) {
    if (ir::is_float(t)) return fnode(std::make_unique<ConstF>(round_to(v, prec(t))), t);
    std::int64_t r = 0;
    if (t == DType::Bool) r = v != 0.0;
    else if (!steptp_num::float_to_int(v, ir::dtype_bits(t), ir::is_signed_int(t), &r))
      throw ir::LeirError(Code::E216, "constant does not fit its type");
    return inode(std::make_unique<ConstI>(r), t);
  }
  CE constant_int(std::int64_t v, DType t) {
    if (ir::is_float(t)) {
      double d = static_cast<double>(v);
      return fnode(std::make_unique<ConstF>(round_to(d, prec(t))), t);
    }
    return inode(std::make_unique<ConstI>(int_type(t).wrap(v)), t);
  }

  /// Folds a constant subexpression once (§7.3, with the validator's folding helpers): integer constants in exact
  /// i64, others in f64, then rounded once to the node's type. nullopt when folding fails (e.g. a division by zero
  /// in an untaken branch); the node is then compiled normally.
  std::optional<CE> fold(const Expr& e) {
    const DType t = type_of(e);
    const ir::ConstClass cls = ir::constant_class(e);
    if (cls == ir::ConstClass::None) return std::nullopt;
    if (cls == ir::ConstClass::Int) {
      auto v = ir::fold_int_constant(e);
      if (!v) return std::nullopt;
      return constant_int(*v, t);
    }
    auto v = ir::fold_constant_f64(e);
    if (!v) return std::nullopt;
    if (t == DType::Bool) return inode(std::make_unique<ConstI>(*v != 0.0), t);
    try {
      return constant(*v, t);
    } catch (const ir::LeirError&) {
      return std::nullopt;
    }
  }

  CE compile(const Expr& e, bool guarded) {
    if (e.kind != ExprKind::IntLit && e.kind != ExprKind::FloatLit && e.kind != ExprKind::Inf && e.kind != ExprKind::Var &&
        e.kind != ExprKind::Ref) {
      if (auto c = fold(e)) return std::move(*c);
    }
    // A comparison probes itself (cmp2, compare): its outcome and operands.
    if (probes_ && e.kind != ExprKind::Compare) return probe(compile_nofold(e, guarded));
    return compile_nofold(e, guarded);
  }

  /// The next probe's first counter (probed variant).
  std::uint32_t next_probe() {
    const std::uint32_t id = probe_counters_;
    probe_counters_ += kProbeClasses;
    return id;
  }
  /// Wraps a data-dependent node in a coverage probe; constants, loop variables and affine forms stay as they are.
  CE probe(CE c) {
    if (c.f) {
      if (dynamic_cast<const ConstF*>(c.f.get())) return c;
      c.f = std::make_unique<ProbeF>(std::move(c.f), next_probe());
    } else {
      const INode* n = c.i.get();
      if (dynamic_cast<const ConstI*>(n) || dynamic_cast<const VarI*>(n) || dynamic_cast<const AffI*>(n)) return c;
      c.i = std::make_unique<ProbeI>(std::move(c.i), next_probe());
    }
    return c;
  }

  CE compile_nofold(const Expr& e, bool guarded) {
    const DType t = type_of(e);
    switch (e.kind) {
      case ExprKind::IntLit: return constant_int(e.ival, t);
      case ExprKind::FloatLit: return constant(e.fval, ir::is_float(t) ? t : stmt_float_);
      case ExprKind::Inf: return constant(std::numeric_limits<double>::infinity(), ir::is_float(t) ? t : stmt_float_);
      case ExprKind::Var: return inode(std::make_unique<VarI>(slot(e.text)), DType::I64);
      case ExprKind::Group: return compile(e.args[0], guarded);
      case ExprKind::Ref: return ref(e, guarded);
      case ExprKind::Neg: {
        CE a = compile(e.args[0], guarded);
        if (ir::is_float(t)) return fnode(std::make_unique<UnF<fop::Neg>>(as_f(std::move(a), t), prec(t)), t);
        return inode(std::make_unique<NegI>(as_i(std::move(a), t), int_type(t)), t);
      }
      case ExprKind::Binary:
        if (t == DType::I64) {
          if (auto a = wrapping_affine(e, true); a && !a->constant()) return affine_int(*a);
        }
        return binary(e, t, guarded);
      case ExprKind::Call: return call(e, t, guarded);
      case ExprKind::Compare: return compare(e, guarded);
    }
    throw ir::LeirError(Code::E002, "unknown expression kind");
  }

  /// One AffI node for an i64 expression affine in loop variables (the tree of BinI nodes it replaces computes the
  /// same wrapped value).
  CE affine_int(const WrapForm& a) {
    auto n = std::make_unique<AffI>();
    n->c = a.c0;
    for (const auto& [v, k] : a.terms)
      if (k != 0) n->terms.emplace_back(slot(v), k);
    return inode(std::move(n), DType::I64);
  }

  template <class Op>
  CE fbin(CE a, CE b, DType t) {
    if (prec(t) == Prec::P64)
      return fnode(std::make_unique<BinF64<Op>>(as_f(std::move(a), t), as_f(std::move(b), t)), t);
    return fnode(std::make_unique<BinF<Op>>(as_f(std::move(a), t), as_f(std::move(b), t), prec(t)), t);
  }
  template <IOp Op>
  CE ibin(CE a, CE b, DType t) {
    return inode(std::make_unique<BinI<Op>>(as_i(std::move(a), t), as_i(std::move(b), t), int_type(t)), t);
  }

  CE binary(const Expr& e, DType t, bool guarded) {
    CE a = compile(e.args[0], guarded);
    if (e.bop == ir::BinOp::And || e.bop == ir::BinOp::Or) {
      IPtr x = truth(std::move(a));
      IPtr y = truth(compile(e.args[1], guarded));
      if (e.bop == ir::BinOp::And) return inode(std::make_unique<AndI>(std::move(x), std::move(y)), DType::Bool);
      return inode(std::make_unique<OrI>(std::move(x), std::move(y)), DType::Bool);
    }
    if (ir::is_float(t) && ir::is_square(e))
      return fnode(std::make_unique<UnF<fop::Square>>(as_f(std::move(a), t), prec(t)), t);
    CE b = compile(e.args[1], guarded);
    if (ir::is_float(t)) {
      switch (e.bop) {
        case ir::BinOp::Add: return fbin<fop::Add>(std::move(a), std::move(b), t);
        case ir::BinOp::Sub: return fbin<fop::Sub>(std::move(a), std::move(b), t);
        case ir::BinOp::Mul: return fbin<fop::Mul>(std::move(a), std::move(b), t);
        case ir::BinOp::Div: return fbin<fop::Div>(std::move(a), std::move(b), t);
        case ir::BinOp::FloorDiv: return fbin<fop::FDiv>(std::move(a), std::move(b), t);
        case ir::BinOp::Mod: return fbin<fop::FMod>(std::move(a), std::move(b), t);
        case ir::BinOp::Pow: return fbin<fop::Pow>(std::move(a), std::move(b), t);
        default: break;
      }
    } else {
      switch (e.bop) {
        case ir::BinOp::Add: return ibin<IOp::Add>(std::move(a), std::move(b), t);
        case ir::BinOp::Sub: return ibin<IOp::Sub>(std::move(a), std::move(b), t);
        case ir::BinOp::Mul: return ibin<IOp::Mul>(std::move(a), std::move(b), t);
        case ir::BinOp::FloorDiv: return ibin<IOp::FDiv>(std::move(a), std::move(b), t);
        case ir::BinOp::Mod: return ibin<IOp::FMod>(std::move(a), std::move(b), t);
        default: break;
      }
    }
    throw ir::LeirError(Code::E213, "operator " + std::string(ir::binop_text(e.bop)) + " on type " +
                                    std::string(ir::dtype_name(t)), e.offset);
  }

  CE call(const Expr& e, DType t, bool guarded) {
    using ir::Func;
    if (e.fn == Func::IfThenElse) {
      IPtr k = truth(compile(e.args[0], guarded));
      CE a = compile(e.args[1], true), b = compile(e.args[2], true);
      if (ir::is_float(t))
        return fnode(std::make_unique<SelF>(std::move(k), as_f(std::move(a), t), as_f(std::move(b), t)), t);
      return inode(std::make_unique<SelI>(std::move(k), as_i(std::move(a), t), as_i(std::move(b), t)), t);
    }
    if (e.fn == Func::Max || e.fn == Func::Min) {
      CE a = compile(e.args[0], guarded), b = compile(e.args[1], guarded);
      if (ir::is_float(t) && probes_) {
        FPtr x = as_f(std::move(a), t), y = as_f(std::move(b), t);
        if (e.fn == Func::Max)
          return fnode(std::make_unique<ProbeOrderF<fop::Max>>(std::move(x), std::move(y), prec(t), next_probe()), t);
        return fnode(std::make_unique<ProbeOrderF<fop::Min>>(std::move(x), std::move(y), prec(t), next_probe()), t);
      }
      if (ir::is_float(t))
        return e.fn == Func::Max ? fbin<fop::Max>(std::move(a), std::move(b), t)
                                 : fbin<fop::Min>(std::move(a), std::move(b), t);
      return e.fn == Func::Max ? ibin<IOp::Max>(std::move(a), std::move(b), t)
                               : ibin<IOp::Min>(std::move(a), std::move(b), t);
    }
    CE a = compile(e.args[0], guarded);
    if (e.fn == Func::Abs && !ir::is_float(t)) return inode(std::make_unique<AbsI>(as_i(std::move(a), t), int_type(t)), t);
    FPtr x = as_f(std::move(a), t);
    const Prec p = prec(t);
    switch (e.fn) {
      case Func::Exp: return fnode(std::make_unique<UnF<fop::Exp>>(std::move(x), p), t);
      case Func::Log: return fnode(std::make_unique<UnF<fop::Log>>(std::move(x), p), t);
      case Func::Sqrt: return fnode(std::make_unique<UnF<fop::Sqrt>>(std::move(x), p), t);
      case Func::Abs: return fnode(std::make_unique<UnF<fop::Abs>>(std::move(x), p), t);
      case Func::Erf: return fnode(std::make_unique<UnF<fop::Erf>>(std::move(x), p), t);
      default: break;
    }
    throw ir::LeirError(Code::E007, "unknown function", e.offset);
  }

  template <ir::CmpOp Op>
  IPtr cmp2(CE a, CE b, DType p) {
    if (probes_ && ir::is_float(p))
      return std::make_unique<ProbeCmpF<Op>>(as_f(std::move(a), p), as_f(std::move(b), p), next_probe());
    if (probes_) return std::make_unique<ProbeCmpI<Op>>(as_i(std::move(a), p), as_i(std::move(b), p), next_probe());
    if (ir::is_float(p)) return std::make_unique<CmpF<Op>>(as_f(std::move(a), p), as_f(std::move(b), p));
    return std::make_unique<CmpI<Op>>(as_i(std::move(a), p), as_i(std::move(b), p));
  }
  CE compare(const Expr& e, bool guarded) {
    std::vector<CE> ops;
    for (const auto& x : e.args) ops.push_back(compile(x, guarded));
    if (ops.size() == 2) {
      const DType p = ir::promote(ops[0].ty, ops[1].ty);
      if (p != DType::U64) {
        IPtr r;
        switch (e.cmps[0]) {
          case ir::CmpOp::Lt: r = cmp2<ir::CmpOp::Lt>(std::move(ops[0]), std::move(ops[1]), p); break;
          case ir::CmpOp::Le: r = cmp2<ir::CmpOp::Le>(std::move(ops[0]), std::move(ops[1]), p); break;
          case ir::CmpOp::Gt: r = cmp2<ir::CmpOp::Gt>(std::move(ops[0]), std::move(ops[1]), p); break;
          case ir::CmpOp::Ge: r = cmp2<ir::CmpOp::Ge>(std::move(ops[0]), std::move(ops[1]), p); break;
          case ir::CmpOp::Eq: r = cmp2<ir::CmpOp::Eq>(std::move(ops[0]), std::move(ops[1]), p); break;
          case ir::CmpOp::Ne: r = cmp2<ir::CmpOp::Ne>(std::move(ops[0]), std::move(ops[1]), p); break;
        }
        return inode(std::move(r), DType::Bool);
      }
    }
    auto chain = std::make_unique<CmpChain>();
    for (std::size_t k = 0; k + 1 < ops.size(); ++k) {
      const DType p = ir::promote(ops[k].ty, ops[k + 1].ty);
      CmpPair pr;
      pr.op = e.cmps[k];
      pr.kind = ir::is_float(p) ? CmpPair::Float : p == DType::U64 ? CmpPair::Unsigned : CmpPair::Signed;
      pr.p = prec(p);
      chain->pairs.push_back(pr);
    }
    for (auto& o : ops) chain->ops.push_back(CmpOperand{std::move(o.f), std::move(o.i), o.ty});
    if (probes_) return inode(std::make_unique<ProbeI>(std::move(chain), next_probe()), DType::Bool);
    return inode(std::move(chain), DType::Bool);
  }

  /// Builds the fused affine offset of a subscript, or nullopt if some entry is not affine.
  std::optional<Affine> fuse(const Expr& ref, const BufDesc& d) {
    std::map<int, std::int64_t> coef;
    std::int64_t c0 = 0;
    for (std::size_t k = 0; k < ref.args.size(); ++k)
      if (!accumulate_affine(ref.args[k], d.strides[k], c0, coef)) return std::nullopt;
    return slot_affine(c0, coef);
  }
  /// Adds scale·(affine form of x) to c0 + Σ coef[slot]·var; false when x is not affine.
  bool accumulate_affine(const Expr& x, std::int64_t scale, std::int64_t& c0, std::map<int, std::int64_t>& coef) {
    auto a = affine_of(x);
    if (!a) return false;
    c0 += a->c0 * scale;
    for (auto& [v, c] : a->terms) coef[slot(v)] += c * scale;
    return true;
  }
  /// c0 + Σ coef[slot]·var as an Affine (zero terms dropped), or nullopt over Affine::kMax terms.
  static std::optional<Affine> slot_affine(std::int64_t c0, const std::map<int, std::int64_t>& coef) {
    Affine out;
    out.c = c0;
    for (auto& [s, k] : coef) {
      if (k == 0) continue;
      if (out.n == Affine::kMax) return std::nullopt;
      out.slot[out.n] = s;
      out.k[out.n] = k;
      ++out.n;
    }
    return out;
  }

  RefInfo ref_info(const Expr& e, int b, bool guarded, bool write) {
    const BufDesc& d = out_->bufs[b];
    RefInfo r;
    r.buf = b;
    r.is_float = d.is_float;
    r.check_init = !d.read_only;
    r.shape = d.shape;
    r.strides = d.strides;
    r.offset = e.offset;
    for (const auto& x : e.args) {
      r.check_dim.push_back(write || guarded || has_ref(x));
      r.entries.push_back(as_i(compile(x, guarded), DType::I64));
    }
    // batched reads (batch.cpp): each entry's affine form and the flat one, when every entry has one
    if (auto flat = fuse(e, d)) {
      for (const auto& x : e.args) {
        std::map<int, std::int64_t> coef;
        std::int64_t c0 = 0;
        accumulate_affine(x, 1, c0, coef);
        auto a = slot_affine(c0, coef);
        if (!a) {
          r.entry_aff.clear();
          break;
        }
        r.entry_aff.push_back(*a);
      }
      if (!r.entry_aff.empty()) r.flat_aff = *flat;
    }
    if (checked_ && !write && d.scope != ir::Scope::Global) {
      ScopedRead s;
      s.local = d.scope == ir::Scope::Local;
      s.first_axis = top_first_axis_;
      s.axes = b_axes_;
      r.scope_check = static_cast<int>(out_->scoped.size());
      out_->scoped.push_back(std::move(s));
    }
    return r;
  }

  CE ref(const Expr& e, bool guarded) {
    const int b = buffer(e.text);
    const BufDesc& d = out_->bufs[b];
    if (e.args.size() != d.shape.size())
      throw ir::LeirError(Code::E202, "rank mismatch for " + d.name, e.offset);
    if (!guarded && !checked_) {
      if (auto a = fuse(e, d)) {
        if (d.is_float) return fnode(make_aff<RefAffF, FNode>(*a, b, !d.read_only), d.dtype);
        return inode(make_aff<RefAffI, INode>(*a, b, !d.read_only), d.dtype);
      }
    }
    if (d.is_float) {
      auto n = std::make_unique<RefGenF>();
      n->r = ref_info(e, b, guarded, false);
      return fnode(std::move(n), d.dtype);
    }
    auto n = std::make_unique<RefGenI>();
    n->r = ref_info(e, b, guarded, false);
    return inode(std::move(n), d.dtype);
  }

  std::unique_ptr<StmtNode> stmt(const ir::Stmt& s) {
    const int b = buffer(s.lhs.text);
    const BufDesc& d = out_->bufs[b];
    const DType T = d.dtype;
    stmt_float_ = ir::is_float(T) ? T : DType::F64;
    std::optional<Affine> aff;
    if (!checked_) aff = fuse(s.lhs, d);
    std::unique_ptr<StmtNode> n;
    if (aff) n = d.is_float ? make_stmt_aff<true>(aff->n) : make_stmt_aff<false>(aff->n);
    else n = std::make_unique<StmtGen>();
    n->buf = b;
    n->is_float = d.is_float;
    if (aff) n->lhs_aff = *aff;
    n->lhs_affine = aff.has_value();
    n->lhs = ref_info(s.lhs, b, false, true);
    n->has_init = s.init != ir::InitKind::None;
    for (const auto& v : s.reduction_vars) n->red_slots.push_back(slot(v));
    if (n->has_init) {
      double id = 0;
      std::int64_t ii = 0;
      const int bits = ir::dtype_bits(T);
      const bool sg = ir::is_signed_int(T);
      switch (s.init) {
        case ir::InitKind::Zero: id = 0; ii = 0; break;
        case ir::InitKind::One: id = 1; ii = 1; break;
        case ir::InitKind::NegInf:
          id = -std::numeric_limits<double>::infinity();
          ii = T == DType::Bool ? 0 : steptp_num::int_type_min(bits, sg);
          break;
        case ir::InitKind::PosInf:
          id = std::numeric_limits<double>::infinity();
          ii = T == DType::Bool ? 1 : steptp_num::int_type_max(bits, sg);
          break;
        case ir::InitKind::None: break;
      }
      n->init_f = id;
      n->init_i = ii;
    }
    CE r = compile(s.rhs, false);
    if (d.is_float) n->rf = as_f(std::move(r), T);
    else n->ri = as_i(std::move(r), T);
    n->offset = s.offset;
    n->text = ir::print_stmt(s);
    n->loop_vars = scope_;
    n->b_axes = b_axes_;
    return n;
  }

  /// Decides whether statement `s` (compiled as `n`), the only item of a nest with loops `loops`, may run batched
  /// (nodes.hpp, Batch), and over how many innermost loops; returns that count (0: scalar only).
  ///  - Map when the target's offset is injective over the spanned loops (each coefficient larger than the span of
  ///    the smaller ones, so lanes write distinct elements), none of them is a reduction loop, and every read of the
  ///    target in the rhs is at exactly the target's offset (so no lane reads another lane's write);
  ///  - Fold when the offset does not depend on the spanned loops (all reduction loops if there is an initialiser),
  ///    the rhs is op(target, g) or op(g, target) for a float op of the untyped path with the target at exactly its
  ///    offset, and g does not read the target.
  /// Loops are spanned outwards while the lanes they cover stay under kSpanMoreBelow. Integer targets, generic targets and
  /// other reads of the target stay scalar.
  int plan_batch(StmtNode& n, const ir::Stmt& s, const std::vector<LoopDesc>& loops) {
    if (!n.is_float || !n.lhs_affine || loops.empty()) return 0;
    const BufDesc& d = out_->bufs[n.buf];
    auto same = [&](const Affine& a) {
      const Affine& l = n.lhs_aff;
      if (a.c != l.c || a.n != l.n) return false;
      for (int j = 0; j < a.n; ++j)
        if (a.slot[j] != l.slot[j] || a.k[j] != l.k[j]) return false;
      return true;
    };
    std::vector<const Expr*> reads;  // reads of the target in the rhs
    std::size_t nodes = 0;
    ir::visit_expr(s.rhs, [&](const Expr& x) {
      ++nodes;
      if (x.kind == ExprKind::Ref && x.text == s.lhs.text) reads.push_back(&x);
    });
    auto coef = [&](const LoopDesc& L) { return affine_coefficient(n.lhs_aff, L.slot); };
    auto reduction = [&](const LoopDesc& L) {
      return std::find(n.red_slots.begin(), n.red_slots.end(), L.slot) != n.red_slots.end();
    };
    const bool map = coef(loops.back()) != 0;
    if (map) {
      for (const Expr* r : reads) {
        auto a = fuse(*r, d);
        if (!a || !same(*a)) return 0;
      }
    } else {
      if (typed_ || reads.size() != 1) return 0;
      const Expr* top = &s.rhs;
      while (top->kind == ExprKind::Group) top = &top->args[0];
      const bool binop = top->kind == ExprKind::Binary || (top->kind == ExprKind::Call &&
                                                           (top->fn == ir::Func::Max || top->fn == ir::Func::Min));
      auto* bin = dynamic_cast<BinF64Base*>(n.rf.get());
      if (!binop || top->args.size() != 2 || !bin || bin->op == FoldOp::Other) return 0;
      auto is_target = [&](const Expr* e) {
        while (e->kind == ExprKind::Group) e = &e->args[0];
        if (e != reads[0]) return false;
        auto a = fuse(*e, d);
        return a && same(*a);
      };
      const bool left = is_target(&top->args[0]);
      if (!left && !is_target(&top->args[1])) return 0;
      n.fold_g = left ? bin->b.get() : bin->a.get();
      n.fold_op = bin->op;
      n.fold_target_left = left;
    }
    // span loops outwards from the innermost one while they are short (kSpanMoreBelow): Map spans loops that move
    // the target, Fold loops that keep it fixed. (A Fold over segments, spanning moving loops outside the reduction
    // ones too, was tried and measured slower: its per-lane segment tests cost more than the batches it saves.)
    int m = 0;
    std::int64_t lanes = 1;
    std::vector<std::pair<std::int64_t, std::int64_t>> spanned;  // loops that move the target: (|coefficient|, extent)
    auto injective_with = [&](std::int64_t k, std::int64_t ext) {
      auto v = spanned;
      v.emplace_back(k < 0 ? -k : k, ext);
      std::sort(v.begin(), v.end());
      std::int64_t span = 0;  // the largest offset difference over the smaller coefficients' loops
      for (auto [ak, e] : v) {
        if (ak <= span) return false;
        span += ak * (e - 1);
      }
      return true;
    };
    while (m < kMaxCollapse && m < static_cast<int>(loops.size()) && lanes < kSpanMoreBelow) {
      const LoopDesc& L = loops[loops.size() - 1 - static_cast<std::size_t>(m)];
      const std::int64_t k = coef(L);
      if (map) {
        if (k == 0 || reduction(L) || !injective_with(k, L.extent)) break;
        spanned.emplace_back(k < 0 ? -k : k, L.extent);
      } else {
        if (k != 0 || (n.has_init && !reduction(L))) break;
      }
      lanes *= L.extent;
      ++m;
    }
    if (m == 0 || lanes < kMinBatchLanes) return 0;
    n.batch = map ? StmtNode::BatchMode::Map : StmtNode::BatchMode::Fold;
    // each compiled node holds at most two temporaries per domain; conversions add at most two nodes per rhs node;
    // the driver holds the lanes' loop values and target offsets
    out_->batch_temps = std::max(out_->batch_temps, static_cast<int>(6 * nodes + kMaxCollapse + 8));
    return m;
  }

  std::unique_ptr<NestNode> nest(const ir::Nest& n) {
    auto out = std::make_unique<NestNode>();
    const std::size_t scope_mark = scope_.size(), axes_mark = b_axes_.size();
    for (const auto& l : n.loops) {
      LoopDesc L;
      L.slot = nslots_++;
      L.extent = l.extent;
      const bool par = l.kind == ir::LoopKind::P || l.kind == ir::LoopKind::V || l.kind == ir::LoopKind::B;
      L.track_conflicts = checked_ && par && l.extent > 1 && !ir::is_reducing_loop(n, l.var);
      if (l.kind == ir::LoopKind::B) {
        L.b_axis = hardware_axis(l.var);
        if (L.b_axis >= 0) b_axes_.push_back(L.b_axis);
      }
      scope_.emplace_back(l.var, L.slot);
      out->loops.push_back(L);
    }
    for (const auto& it : n.body) {
      if (it.is_stmt()) out->body.push_back(stmt(it.stmt()));
      else out->body.push_back(nest(it.nest()));
    }
    if (!checked_ && n.body.size() == 1 && n.body[0].is_stmt()) {
      auto* s = static_cast<StmtNode*>(out->body[0].get());
      out->batch_loops = plan_batch(*s, n.body[0].stmt(), out->loops);
      if (out->batch_loops) out->batched = s;
    }
    scope_.resize(scope_mark);
    b_axes_.resize(axes_mark);
    return out;
  }
};

}  // namespace

int hardware_axis(const std::string& v) {
  if (v.size() < 2 || (v[0] != 't' && v[0] != 'b')) return -1;
  int ax = v[1] == 'x' ? 0 : v[1] == 'y' ? 1 : v[1] == 'z' ? 2 : -1;
  if (ax < 0) return -1;
  return (v[0] == 'b' ? 3 : 0) + ax;
}

std::unique_ptr<Compiled> compile_program(const ir::Task& t, const ir::Analysis& a, bool typed, bool checked,
                                          bool probes) {
  return Compiler(t, a, typed, checked, probes).run();
}

}  // namespace steptp::interp::detail
