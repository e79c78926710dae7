// TVMScript lowering (LEIR.md §10.1). Emits TVM 0.21-style TensorIR text, byte-identical across runs.
//
// Local reading of two loose points of §10.1 (documented here, tested by the golden files):
// * "integer constants are plain integers in index arithmetic": a folded integer constant of type i64 prints plain
//   inside subscripts, and in value position when its operation's other operand mentions a loop variable
//   (`v_a - 1 < 0`, `v_tx != -100`); otherwise it prints typed (`T.int64(3)`, `T.float32(1)`).
// * "a top-level nest without B header" is wrapped in `unit_tx` only if no B header occurs anywhere in it (nested
//   nests included), so the wrapper never collides with a nested threadIdx binding.
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "base/diag.hpp"
#include "lower/common.hpp"
#include "lower/escape.hpp"
#include "lower/lower.hpp"

namespace steptp::lower {
namespace {

using ir::BinOp;
using ir::CmpOp;
using ir::DType;
using ir::Expr;
using ir::ExprKind;
using ir::Func;

// Python precedence of what we print (higher binds tighter).
enum Prec { kOr = 1, kAnd = 2, kCmp = 4, kAdd = 6, kMul = 7, kUnary = 8, kAtom = 10 };

struct PyExpr {
  std::string s;
  int prec = kAtom;
};

std::string tvm_type(DType t) { return std::string(ir::dtype_tvm_name(t)); }

std::string shape_tuple(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "()";
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// A typed literal `T.float32(0.5)`, `T.float32("-inf")`, `T.int64(3)`, `T.bool(True)`.
std::string typed_literal(const ConstVal& v, DType t) {
  const std::string f = "T." + tvm_type(t) + "(";
  if (t == DType::Bool) {
    const bool b = v.kind == ConstVal::Int ? v.i != 0 : v.kind == ConstVal::Bool ? v.b : v.f != 0.0;
    return f + (b ? "True" : "False") + ")";
  }
  if (ir::is_float(t)) {
    if (v.kind == ConstVal::Int) return f + std::to_string(v.i) + ")";
    const double d = round_to(v.as_double(), t);
    if (d != d) return f + "\"nan\")";
    if (d == std::numeric_limits<double>::infinity()) return f + "\"inf\")";
    if (d == -std::numeric_limits<double>::infinity()) return f + "\"-inf\")";
    return f + python_repr_in(d, t) + ")";
  }
  // integer type: the value wraps to the type (§8.3)
  std::int64_t i = v.kind == ConstVal::Int ? v.i : static_cast<std::int64_t>(v.as_double());
  if (t == DType::U64) return f + std::to_string(static_cast<std::uint64_t>(i)) + ")";
  const int bits = ir::dtype_bits(t);
  if (bits < 64) {
    const std::uint64_t mask = (1ULL << bits) - 1;
    std::uint64_t u = static_cast<std::uint64_t>(i) & mask;
    if (ir::is_signed_int(t) && (u >> (bits - 1))) i = static_cast<std::int64_t>(u | ~mask);
    else i = static_cast<std::int64_t>(u);
  }
  return f + std::to_string(i) + ")";
}

PyExpr paren_if(PyExpr c, bool cond) {
  if (cond) return {"(" + c.s + ")", kAtom};
  return c;
}

class TirEmitter {
 public:
  TirEmitter(const Prepared& p, bool gpu) : p_(p), gpu_(gpu) {}

  std::string run() {
    const auto& prog = p_.task.program;
    for (const auto& top : prog.nests) {
      check_gpu_limits(top, true);
      check_e402(top, top);
    }
    out_ << "from tvm.script import tir as T\n\n@T.prim_func\ndef main(";
    bool first = true;
    for (const auto* b : p_.knowns()) {
      out_ << (first ? "" : ", ") << b->name << ": T.Buffer(" << shape_tuple(b->shape) << ", "
           << python_string_literal(tvm_type(b->dtype)) << ")";
      first = false;
    }
    out_ << "):\n";
    line(1, "T.func_attr({\"tir.noalias\": True})");
    for (const auto* b : p_.intermediates())
      line(1, b->name + " = T.alloc_buffer(" + shape_tuple(b->shape) + ", " +
                  python_string_literal(tvm_type(b->dtype)) + ", scope=" +
                  python_string_literal(ir::scope_tvm_name(b->scope)) + ")");
    for (const auto& top : prog.nests) {
      int ind = 1;
      if (gpu_ && !has_bound_loop(top)) {
        line(ind++, "for unit_tx in T.thread_binding(1, thread=\"threadIdx.x\"):");
      }
      std::vector<const ir::Loop*> loops;
      nest(top, ind, loops);
    }
    return out_.str();
  }

 private:
  const Prepared& p_;
  bool gpu_;
  std::ostringstream out_;
  std::set<std::string> block_names_;

  void line(int indent, const std::string& s) { out_ << std::string(static_cast<std::size_t>(indent) * 4, ' ') << s << "\n"; }

  // ---- E402 (§10.1 "Reducing B loops") ----
  static void lhs_names(const ir::Nest& n, std::set<std::string>& out) {
    for (const auto& it : n.body) {
      if (it.is_stmt()) out.insert(it.stmt().lhs.text);
      else lhs_names(it.nest(), out);
    }
  }
  static void stmts_of(const ir::Nest& n, std::vector<const ir::Stmt*>& out) {
    for (const auto& it : n.body) {
      if (it.is_stmt()) out.push_back(&it.stmt());
      else stmts_of(it.nest(), out);
    }
  }
  void check_e402(const ir::Nest& top, const ir::Nest& n) {
    for (const auto& l : n.loops) {
      if (l.kind != ir::LoopKind::B || !is_reducing(n, l)) continue;
      std::set<std::string> written;
      lhs_names(top, written);
      std::vector<const ir::Stmt*> ss;
      stmts_of(n, ss);
      for (const auto* s : ss) {
        bool lhs_mentions = false;
        for (const auto& e : s->lhs.args) lhs_mentions = lhs_mentions || ir::mentions_var(e, l.var);
        if (lhs_mentions) continue;
        bool ok = false;
        if (s->init != ir::InitKind::None)
          for (const auto& r : s->reduction_vars) ok = ok || r == l.var;
        if (!ok && !ir::mentions_var(s->rhs, l.var)) {
          bool reads_written = false;
          ir::visit_expr(s->rhs, [&](const Expr& e) {
            if (e.kind == ExprKind::Ref && written.count(e.text)) reads_written = true;
          });
          ok = !reads_written;
        }
        if (!ok)
          throw ir::LeirError(steptp::Code::E402,
                              "reducing B loop '" + l.var + "' that TVM cannot reduce (statement is not an "
                              "initialised reduction over it)",
                              s->offset);
      }
    }
    for (const auto& it : n.body)
      if (it.is_nest()) check_e402(top, it.nest());
  }

  // ---- loops ----
  void nest(const ir::Nest& n, int ind, std::vector<const ir::Loop*>& loops) {
    const auto& hs = n.loops;
    for (std::size_t i = 0; i < hs.size();) {
      const auto& h = hs[i];
      if (h.kind == ir::LoopKind::L) {
        std::size_t j = i;
        while (j < hs.size() && hs[j].kind == ir::LoopKind::L) ++j;
        if (j - i >= 2) {
          std::string vars, ext;
          for (std::size_t k = i; k < j; ++k) {
            vars += (k > i ? ", " : "") + hs[k].var;
            ext += (k > i ? ", " : "") + std::to_string(hs[k].extent);
          }
          line(ind++, "for " + vars + " in T.grid(" + ext + "):");
        } else {
          line(ind++, "for " + h.var + " in T.serial(" + std::to_string(h.extent) + "):");
        }
        for (std::size_t k = i; k < j; ++k) loops.push_back(&hs[k]);
        i = j;
        continue;
      }
      std::string kind;
      switch (h.kind) {
        case ir::LoopKind::P: kind = is_reducing(n, h) ? "T.serial" : "T.parallel"; break;
        case ir::LoopKind::V: kind = is_reducing(n, h) ? "T.serial" : "T.vectorized"; break;
        case ir::LoopKind::U: kind = "T.unroll"; break;
        default: break;
      }
      if (h.kind == ir::LoopKind::B)
        line(ind++, "for " + h.var + " in T.thread_binding(" + std::to_string(h.extent) + ", thread=\"" +
                        hw_axis(h.var).name() + "\"):");
      else
        line(ind++, "for " + h.var + " in " + kind + "(" + std::to_string(h.extent) + "):");
      loops.push_back(&h);
      ++i;
    }
    for (const auto& it : n.body) {
      if (it.is_stmt()) block(it.stmt(), ind, loops);
      else nest(it.nest(), ind, loops);
    }
    loops.resize(loops.size() - hs.size());
  }

  // ---- blocks ----
  std::string block_name(const std::string& base) {
    std::string name = base;
    for (int k = 1; block_names_.count(name); ++k) name = base + "_" + std::to_string(k);
    block_names_.insert(name);
    return name;
  }

  std::string ref_text(const Expr& r) {
    if (r.args.empty()) return r.text + "[()]";
    std::string s = r.text + "[";
    for (std::size_t i = 0; i < r.args.size(); ++i) s += (i ? ", " : "") + index(r.args[i]).s;
    return s + "]";
  }

  void block(const ir::Stmt& s, int ind, const std::vector<const ir::Loop*>& loops) {
    line(ind++, "with T.block(\"" + block_name(s.lhs.text) + "\"):");
    std::string vars, kinds, src;
    for (const auto* l : loops) {
      bool in_lhs = false;
      for (const auto& e : s.lhs.args) in_lhs = in_lhs || ir::mentions_var(e, l->var);
      if (!in_lhs && !ir::mentions_var(s.rhs, l->var)) continue;
      vars += (vars.empty() ? "" : ", ") + ("v_" + l->var);
      src += (src.empty() ? "" : ", ") + l->var;
      kinds += in_lhs ? 'S' : 'R';
    }
    if (!vars.empty()) line(ind, vars + " = T.axis.remap(\"" + kinds + "\", [" + src + "])");
    line(ind, "T.reads(" + reads(s) + ")");
    const std::string target = ref_text(s.lhs);
    line(ind, "T.writes(" + target + ")");
    const DType t = p_.buffer(s.lhs.text).dtype;
    if (s.init != ir::InitKind::None) {
      line(ind, "with T.init():");
      line(ind + 1, target + " = " + typed_literal(init_identity(s.init, t), t));
    }
    line(ind, target + " = " + value(s.rhs, t, false).s);
  }

  std::string reads(const ir::Stmt& s) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const Expr*>> occ;
    ir::visit_expr(s.rhs, [&](const Expr& e) {
      if (e.kind != ExprKind::Ref) return;
      if (s.init != ir::InitKind::None && e.text == s.lhs.text && e.args == s.lhs.args)
        return;  // the self-read at sL is implied by T.init
      if (!occ.count(e.text)) order.push_back(e.text);
      occ[e.text].push_back(&e);
    });
    std::string out;
    for (const auto& name : order) {
      const auto& os = occ[name];
      const auto& shape = p_.buffer(name).shape;
      std::string r = name + "[";
      if (shape.empty()) r += "()";
      for (std::size_t d = 0; d < shape.size(); ++d) {
        bool gather = false;
        std::vector<std::string> distinct;
        for (const auto* o : os) {
          if (d >= o->args.size()) continue;
          gather = gather || contains_ref(o->args[d]);
          std::string txt = index(o->args[d]).s;
          bool seen = false;
          for (const auto& x : distinct) seen = seen || x == txt;
          if (!seen) distinct.push_back(txt);
        }
        std::string dim;
        if (gather) {
          dim = "0:" + std::to_string(shape[d]);
        } else if (distinct.size() == 1) {
          dim = distinct[0];
        } else {
          std::string lo = distinct[0], hi = distinct[0];
          for (std::size_t k = 1; k < distinct.size(); ++k) {
            lo = "T.min(" + lo + ", " + distinct[k] + ")";
            hi = "T.max(" + hi + ", " + distinct[k] + ")";
          }
          dim = lo + ":" + hi + " + 1";
        }
        r += (d ? ", " : "") + dim;
      }
      out += (out.empty() ? "" : ", ") + r + "]";
    }
    return out;
  }

  // ---- expressions ----
  static PyExpr binary(const PyExpr& a, const std::string& op, const PyExpr& b, int prec) {
    return {paren_if(a, a.prec < prec).s + " " + op + " " + paren_if(b, b.prec <= prec).s, prec};
  }
  static PyExpr call(const std::string& f, const std::vector<PyExpr>& args) {
    std::string s = f + "(";
    for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].s;
    return {s + ")", kAtom};
  }

  /// Subscript entries: i64 index arithmetic, plain integers, no casts.
  PyExpr index(const Expr& e) {
    if (auto c = fold_constant(e); c && c->kind == ConstVal::Int)
      return {std::to_string(c->i), c->i < 0 ? kUnary : kAtom};
    switch (e.kind) {
      case ExprKind::Var: return {"v_" + e.text, kAtom};
      case ExprKind::Ref: return {ref_text(e), kAtom};
      case ExprKind::Group: return index(e.args[0]);
      case ExprKind::Neg: {
        PyExpr a = index(e.args[0]);
        return {"-" + paren_if(a, a.prec < kUnary).s, kUnary};
      }
      case ExprKind::Binary: {
        PyExpr a = index(e.args[0]), b = index(e.args[1]);
        switch (e.bop) {
          case BinOp::Add: return binary(a, "+", b, kAdd);
          case BinOp::Sub: return binary(a, "-", b, kAdd);
          case BinOp::Mul: return binary(a, "*", b, kMul);
          case BinOp::FloorDiv: return call("T.floordiv", {a, b});
          case BinOp::Mod: return call("T.floormod", {a, b});
          default: break;
        }
        break;
      }
      default: break;
    }
    return {"0", kAtom};  // unreachable for validated programs (E211)
  }

  /// Value of `e` converted to `want` (T.Cast when its static type differs). `plain_ok`: an i64 integer constant
  /// may print as a plain integer (index arithmetic).
  PyExpr value(const Expr& e, DType want, bool plain_ok) {
    PyExpr c = raw(e, plain_ok);
    if (e.ty != DType::Invalid && e.ty != want) return {"T.Cast(\"" + tvm_type(want) + "\", " + c.s + ")", kAtom};
    return c;
  }

  PyExpr raw(const Expr& e, bool plain_ok) {
    if (e.kind == ExprKind::Group) return raw(e.args[0], plain_ok);
    if (auto c = fold_constant(e)) {
      if (c->kind == ConstVal::Int && e.ty == DType::I64 && plain_ok)
        return {std::to_string(c->i), c->i < 0 ? kUnary : kAtom};
      return {typed_literal(*c, e.ty == DType::Invalid ? DType::F64 : e.ty), kAtom};
    }
    switch (e.kind) {
      case ExprKind::Var: return {"v_" + e.text, kAtom};
      case ExprKind::Ref: return {ref_text(e), kAtom};
      case ExprKind::Neg: {
        PyExpr a = value(e.args[0], e.ty, false);
        return {"-" + paren_if(a, a.prec < kUnary).s, kUnary};
      }
      case ExprKind::Compare: {
        std::string s;
        for (std::size_t k = 0; k < e.cmps.size(); ++k) {
          const DType t = compare_type(e, k);
          const bool ints = t == DType::I64;
          PyExpr a = value(e.args[k], t, ints && contains_var(e.args[k + 1]));
          PyExpr b = value(e.args[k + 1], t, ints && contains_var(e.args[k]));
          PyExpr one = binary(a, std::string(ir::cmpop_text(e.cmps[k])), b, kCmp);
          // comparison operands never chain in Python: binary() parenthesises a prec-4 operand on the right only
          if (a.prec == kCmp) one = {"(" + a.s + ") " + std::string(ir::cmpop_text(e.cmps[k])) + " " +
                                         paren_if(b, b.prec <= kCmp).s, kCmp};
          s += (k ? " and " : "") + one.s;
        }
        return {s, e.cmps.size() > 1 ? kAnd : kCmp};
      }
      case ExprKind::Binary: {
        if (e.bop == BinOp::And || e.bop == BinOp::Or) {
          PyExpr a = value(e.args[0], DType::Bool, false), b = value(e.args[1], DType::Bool, false);
          return e.bop == BinOp::And ? binary(a, "and", b, kAnd) : binary(a, "or", b, kOr);
        }
        const bool ints = e.ty == DType::I64;
        PyExpr a = value(e.args[0], e.ty, ints && contains_var(e.args[1]));
        PyExpr b = value(e.args[1], e.ty, ints && contains_var(e.args[0]));
        switch (e.bop) {
          case BinOp::Add: return binary(a, "+", b, kAdd);
          case BinOp::Sub: return binary(a, "-", b, kAdd);
          case BinOp::Mul: return binary(a, "*", b, kMul);
          case BinOp::Div: return binary(a, "/", b, kMul);
          case BinOp::FloorDiv: return call("T.floordiv", {a, b});
          case BinOp::Mod: return call("T.floormod", {a, b});
          case BinOp::Pow: return call("T.pow", {a, b});
          default: break;
        }
        break;
      }
      case ExprKind::Call: {
        static const char* names[] = {"T.exp", "T.log", "T.sqrt", "T.abs", "T.erf", "T.max", "T.min",
                                      "T.if_then_else"};
        std::vector<PyExpr> args;
        const bool ints = e.ty == DType::I64;
        for (std::size_t i = 0; i < e.args.size(); ++i) {
          bool plain = false;
          if (ints && (e.fn == Func::Max || e.fn == Func::Min)) plain = contains_var(e.args[1 - i]);
          args.push_back(value(e.args[i], operand_type(e, i), plain));
        }
        return call(names[static_cast<int>(e.fn)], args);
      }
      default: break;
    }
    return {"0", kAtom};
  }
};

}  // namespace

std::string lower_tir(const ir::Task& t, bool gpu) {
  Prepared p(t);
  return TirEmitter(p, gpu).run();
}

}  // namespace steptp::lower
