// Occurrences, pivots and the (occurrence, pivot) sites shared by entries 37-39 (see pivots.hpp).
#include "strategies/algebraic/pivots.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/reduction.hpp"
#include "strategies/analysis/sign.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::algebraic {
namespace {

/// A node whose operands are evaluated as a condition (a comparison, `&`, `|`).
bool condition_node(const ir::Expr& e) {
  return e.kind == ir::ExprKind::Compare ||
         (e.kind == ir::ExprKind::Binary && (e.bop == ir::BinOp::And || e.bop == ir::BinOp::Or));
}

/// Children of `e` that are not evaluated unconditionally (each argument of if_then_else: the condition, and the
/// two lazy branches) or are conditions (operands of comparisons, `&`, `|`), or subscripts (a Ref's entries).
bool blocks_children(const ir::Expr& e) {
  return e.is_ref() || condition_node(e) || (e.kind == ir::ExprKind::Call && e.fn == ir::Func::IfThenElse);
}

/// Is child i of e the argument of a partial operation (a log or sqrt argument, a divisor, the base or exponent of a
/// power whose exponent is not a non-negative integer literal)? A split there is a domain change, not a
/// reassociation: rounding in (X+Y)-Y can move log's argument to <= 0 or a divisor to 0 (found by a newcomer run:
/// `0*log(A)+...` split inside the log failed the check under Prove).
bool partial_argument(const ir::Expr& e, std::uint32_t i) {
  if (e.kind == ir::ExprKind::Call && (e.fn == ir::Func::Log || e.fn == ir::Func::Sqrt)) return true;
  if (e.kind != ir::ExprKind::Binary) return false;
  if (e.bop == ir::BinOp::Div || e.bop == ir::BinOp::FloorDiv || e.bop == ir::BinOp::Mod) return i == 1;
  if (e.bop == ir::BinOp::Pow) return !(e.args[1].kind == ir::ExprKind::IntLit && e.args[1].ival >= 0);
  return false;
}

/// Walks a right-hand side; `divisors` holds the buffers read by the divisor of every division whose numerator
/// encloses `e`.
void occurrences_rec(const ir::Expr& e, analysis::ExprPath& path, bool blocked, bool in_exp,
                     const std::set<std::string>& divisors, const std::string& out, std::vector<Occurrence>& v) {
  if (e.is_ref()) {
    if (!blocked && e.text != out && ir::is_float(e.ty))
      v.push_back(Occurrence{path, &e, in_exp, divisors.count(e.text) > 0});
    return;
  }
  const bool b = blocked || blocks_children(e);
  const bool x = in_exp || (e.kind == ir::ExprKind::Call && e.fn == ir::Func::Exp);
  const bool div = e.kind == ir::ExprKind::Binary && e.bop == ir::BinOp::Div;
  for (std::uint32_t i = 0; i < e.args.size(); ++i) {
    path.push_back(i);
    if (div && i == 0) {
      std::set<std::string> d = divisors;
      ir::visit_expr(e.args[1], [&](const ir::Expr& r) {
        if (r.is_ref()) d.insert(r.text);
      });
      occurrences_rec(e.args[i], path, b || partial_argument(e, i), x, d, out, v);
    } else {
      occurrences_rec(e.args[i], path, b || partial_argument(e, i), x, divisors, out, v);
    }
    path.pop_back();
  }
}

bool contains_inf(const ir::Stmt& s) {
  bool inf = false;
  auto f = [&](const ir::Expr& x) { inf = inf || x.kind == ir::ExprKind::Inf; };
  ir::visit_expr(s.lhs, f);
  ir::visit_expr(s.rhs, f);
  return inf;
}

/// Buffers some statement of which contains `inf` (not finite-valued for the pivots).
std::set<std::string> inf_buffers(const std::vector<analysis::StmtCtx>& stmts) {
  std::set<std::string> out;
  for (const auto& w : stmts)
    if (contains_inf(*w.stmt)) out.insert(w.stmt->lhs.text);
  return out;
}

const ir::Loop* loop_of(const std::vector<const ir::Loop*>& loops, const std::string& key) {
  for (const auto* l : loops)
    if (l->var == key) return l;
  return nullptr;
}

bool serial(ir::LoopKind k) { return k == ir::LoopKind::L || k == ir::LoopKind::U; }

std::optional<Pivot> previous_element(const ir::Task& typed, const analysis::StmtCtx& sc, const ir::Expr& x,
                                      std::int64_t identity, const std::set<std::string>& infs) {
  if (x.args.empty() || x.scope != ir::Scope::Global || infs.count(x.text) || analysis::has_gather(x))
    return std::nullopt;  // a gathered entry may select another element at k-1
  const ir::Expr& last = x.args.back();
  if (last.kind != ir::ExprKind::Var) return std::nullopt;
  const ir::Loop* k = loop_of(sc.loops, last.text);
  if (!k) return std::nullopt;
  for (std::size_t i = 0; i + 1 < x.args.size(); ++i)
    if (ir::mentions_var(x.args[i], k->var)) return std::nullopt;
  if (!serial(k->kind) && analysis::nest_buffers(typed.program.nests[sc.nest[0]]).written.count(x.text))
    return std::nullopt;
  Pivot p;
  p.kind = PivotKind::Previous;
  p.param = "prev";
  p.key = k->var;
  ir::Expr km1 = ir::make_binary(ir::BinOp::Sub, ir::make_var(k->var), ir::make_int(1));
  p.access = x;
  p.access.args.back() = km1;
  p.expr = ir::make_call(ir::Func::IfThenElse,
                         {ir::make_compare(ir::CmpOp::Lt, km1, ir::make_int(0)), ir::make_int(identity), p.access});
  return p;
}

/// Is `w`'s LHS a pivot access at `sc` (plain distinct keys in scope, covered, superset of the output's keys)?
bool earlier_access_fits(const analysis::StmtCtx& w, const analysis::StmtCtx& sc) {
  std::set<std::string> keys;
  for (const auto& e : w.stmt->lhs.args) {
    if (e.kind != ir::ExprKind::Var || !keys.insert(e.text).second) return false;
    const ir::Loop* here = loop_of(sc.loops, e.text);
    const ir::Loop* there = loop_of(w.loops, e.text);
    if (!here || !there || here->extent > there->extent) return false;
  }
  for (const auto* l : sc.loops)
    if (ir::mentions_var(sc.stmt->lhs, l->var) && !keys.count(l->var)) return false;
  return true;
}

/// Adds every buffer read in `e` to `out`; with `decisive_only`, only those read in a condition position (an
/// operand of a comparison, `&`, `|`, the condition of if_then_else) or in a subscript.
void reads(const ir::Expr& e, bool decisive, bool decisive_only, std::set<std::string>& out) {
  if (e.is_ref() && (decisive || !decisive_only)) out.insert(e.text);
  const bool d = decisive || e.is_ref() || condition_node(e);
  for (std::size_t i = 0; i < e.args.size(); ++i)
    reads(e.args[i], d || (e.kind == ir::ExprKind::Call && e.fn == ir::Func::IfThenElse && i == 0), decisive_only,
          out);
}

}  // namespace

std::vector<analysis::StmtCtx> site_statements(const ir::Task& typed) {
  const auto stmts = analysis::collect_stmts(typed.program);
  std::set<std::string> decisive;  // buffers whose values decide a comparison, condition, subscript or integer
  for (const auto& sc : stmts) {
    reads(sc.stmt->lhs, false, true, decisive);
    reads(sc.stmt->rhs, false, true, decisive);
    if (!ir::is_float(analysis::effective_dtype(typed, sc.stmt->lhs))) reads(sc.stmt->rhs, false, false, decisive);
  }
  for (bool grew = true; grew;) {
    const std::size_t before = decisive.size();
    for (const auto& sc : stmts)
      if (decisive.count(sc.stmt->lhs.text)) reads(sc.stmt->rhs, false, false, decisive);
    grew = decisive.size() != before;
  }
  std::vector<analysis::StmtCtx> out;
  for (const auto& sc : stmts)
    if (ir::is_float(analysis::effective_dtype(typed, sc.stmt->lhs)) && !decisive.count(sc.stmt->lhs.text))
      out.push_back(sc);
  return out;
}

std::vector<Occurrence> occurrences(const ir::Stmt& typed) {
  std::vector<Occurrence> v;
  analysis::ExprPath path{1};
  occurrences_rec(typed.rhs, path, false, false, {}, typed.lhs.text, v);
  return v;
}

bool evaluated_unconditionally(const ir::Stmt& s, const analysis::ExprPath& path) {
  if (path.empty() || path[0] != 1) return false;
  const ir::Expr* e = &s.rhs;
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (blocks_children(*e)) return false;
    e = &e->args.at(path[i]);
  }
  return true;
}

nlohmann::json Pivot::json() const {
  nlohmann::json j{{"kind", kind == PivotKind::Previous ? "previous element" : "earlier nest"},
                   {"access", ir::print_expr(access)},
                   {"expr", ir::print_expr(expr)}};
  if (kind == PivotKind::Previous) j["key"] = key;
  else j["nest"] = nest;
  return j;
}

std::vector<Pivot> pivots(const ir::Task& typed, const analysis::StmtCtx& sc, const ir::Expr& x,
                          std::int64_t identity) {
  std::vector<Pivot> out;
  if (!ir::is_float(x.ty)) return out;
  const auto stmts = analysis::collect_stmts(typed.program);
  const auto infs = inf_buffers(stmts);
  if (auto p = previous_element(typed, sc, x, identity, infs)) out.push_back(std::move(*p));

  const std::uint32_t top = sc.nest[0];
  const auto site_written = analysis::nest_buffers(typed.program.nests[top]).written;
  std::map<std::string, std::uint32_t> last_writer;  // buffer -> last top-level nest before `top` writing it
  for (const auto& w : stmts)
    if (w.nest[0] < top) last_writer[w.stmt->lhs.text] = w.nest[0];
  std::vector<ir::Expr> seen;
  for (const auto& w : stmts) {
    if (w.nest[0] >= top) break;
    const ir::Expr& lhs = w.stmt->lhs;
    // Only the last nest before the site that writes the buffer defines it; an earlier writer was overwritten.
    if (w.nest[0] != last_writer.at(lhs.text) || site_written.count(lhs.text)) continue;
    if (infs.count(lhs.text) || lhs.scope != ir::Scope::Global) continue;
    if (analysis::effective_dtype(typed, lhs) != x.ty || !earlier_access_fits(w, sc)) continue;
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == lhs;
    if (dup) continue;
    seen.push_back(lhs);
    Pivot p;
    p.kind = PivotKind::Earlier;
    p.param = compact_access(lhs);
    p.access = lhs;
    p.expr = lhs;
    p.nest = last_writer.at(lhs.text);
    out.push_back(std::move(p));
  }
  return out;
}

// ---- magnitudes ----
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMinDraw = 1e-20;            // smallest non-zero input magnitude assumed
const double kUlp = std::ldexp(1.0, -53);     // a sum of non-zero terms is 0 or at least this times the smallest

class Magnitudes {
 public:
  explicit Magnitudes(const ir::Task& typed) : signs_(typed) {
    beta_ = 64.0;
    double max_extent = 1;
    const auto stmts = analysis::collect_stmts(typed.program);
    for (const auto& sc : stmts) {
      for (const auto* l : sc.loops) max_extent = std::max(max_extent, static_cast<double>(l->extent));
      auto lit = [&](const ir::Expr& x) {
        if (x.kind == ir::ExprKind::IntLit) beta_ = std::max(beta_, std::fabs(static_cast<double>(x.ival)));
        if (x.kind == ir::ExprKind::FloatLit && std::isfinite(x.fval)) beta_ = std::max(beta_, std::fabs(x.fval));
      };
      ir::visit_expr(sc.stmt->rhs, lit);
    }
    beta_ *= 1 + std::ldexp(1.0, -5);
    var_ = max_extent;
    for (const auto& k : typed.known)
      if (k.role != ir::Role::Output) buf_[k.name] = {beta_, kMinDraw};
    // Two program-order passes: the second sees every writer's bound where a read precedes a later write.
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& sc : stmts) {
        const ir::Stmt& s = *sc.stmt;
        const std::string& x = s.lhs.text;
        if (typed.find_known(x) && typed.find_known(x)->role != ir::Role::Output) continue;
        Magnitude m = write(typed.program, sc);
        auto it = buf_.find(x);
        if (it == buf_.end()) buf_[x] = m;
        else it->second = {std::max(it->second.hi, m.hi), std::min(it->second.lo, m.lo)};
      }
  }

  Magnitude eval(const ir::Expr& e) const {
    using K = ir::ExprKind;
    switch (e.kind) {
      case K::IntLit:
      case K::FloatLit: {
        const double v = std::fabs(e.kind == K::IntLit ? static_cast<double>(e.ival) : e.fval);
        return {v, v > 0 ? v : kInf};
      }
      case K::Inf: return {kInf, kInf};
      case K::Var: return {var_, 1};
      case K::Ref: {
        auto it = buf_.find(e.text);
        return it == buf_.end() ? Magnitude{kInf, 0} : it->second;
      }
      case K::Group:
      case K::Neg: return eval(e.args[0]);
      case K::Compare: return {1, 1};
      case K::Binary: return binary(e);
      case K::Call: return call(e);
    }
    return {kInf, 0};
  }

 private:
  /// May `e` be 0 (sign analysis)? Then a quotient by it may be infinite, a log of it -inf.
  bool may_be_zero(const ir::Expr& e) const { return !signs_.expr(e).is_nonzero(); }

  Magnitude binary(const ir::Expr& e) const {
    if (e.bop == ir::BinOp::And || e.bop == ir::BinOp::Or) return {1, 1};
    const Magnitude a = eval(e.args[0]), b = eval(e.args[1]);
    const bool partial = e.bop == ir::BinOp::Div || e.bop == ir::BinOp::FloorDiv || e.bop == ir::BinOp::Mod ||
                         (e.bop == ir::BinOp::Pow && e.args[1].kind == ir::ExprKind::IntLit && e.args[1].ival < 0);
    if (partial && may_be_zero(e.bop == ir::BinOp::Pow ? e.args[0] : e.args[1])) return {kInf, 0};
    switch (e.bop) {
      case ir::BinOp::Add:
      case ir::BinOp::Sub: return {a.hi + b.hi, std::min(a.lo, b.lo) * kUlp};
      case ir::BinOp::Mul: return {a.hi * b.hi, a.lo * b.lo};
      case ir::BinOp::Div: return {b.lo > 0 ? a.hi / b.lo : kInf, a.lo / b.hi};
      case ir::BinOp::FloorDiv: return {b.lo > 0 ? a.hi / b.lo + 1 : kInf, 1};
      case ir::BinOp::Mod: return {b.hi, std::min(a.lo, b.lo) * kUlp};
      case ir::BinOp::Pow: {
        const ir::Expr& n = e.args[1];
        if (n.kind != ir::ExprKind::IntLit) return {kInf, 0};
        const double k = static_cast<double>(n.ival);
        if (k >= 0) return {std::pow(a.hi, k), std::pow(a.lo, k)};
        return {a.lo > 0 ? std::pow(a.lo, k) : kInf, std::pow(a.hi, k)};
      }
      default: return {kInf, 0};
    }
  }

  Magnitude call(const ir::Expr& e) const {
    std::vector<Magnitude> m;
    for (const auto& a : e.args) m.push_back(eval(a));
    switch (e.fn) {
      case ir::Func::Exp: return {std::exp(m[0].hi), std::exp(-m[0].hi)};
      case ir::Func::Log:
        if (!(m[0].lo > 0) || !signs_.expr(e.args[0]).is_positive()) return {kInf, 0};
        return {std::max(std::fabs(std::log(m[0].hi)), std::fabs(std::log(m[0].lo))), kUlp};
      case ir::Func::Sqrt:
        if (!signs_.expr(e.args[0]).is_nonnegative()) return {kInf, 0};  // NaN
        return {std::sqrt(m[0].hi), std::sqrt(m[0].lo)};
      case ir::Func::Abs: return m[0];
      case ir::Func::Erf: return {1, std::min(m[0].lo, 1.0) * 0.5};
      case ir::Func::Max:
      case ir::Func::Min: return {std::max(m[0].hi, m[1].hi), std::min(m[0].lo, m[1].lo)};
      case ir::Func::IfThenElse: return {std::max(m[1].hi, m[2].hi), std::min(m[1].lo, m[2].lo)};
    }
    return {kInf, 0};
  }

  /// The bound of what statement `sc` stores: a reduction accumulates over every iteration of its loops.
  Magnitude write(const ir::Program& p, const analysis::StmtCtx& sc) const {
    const ir::Stmt& s = *sc.stmt;
    auto red = analysis::match_reduction(p, sc);
    if (!red) {
      bool self = false;
      ir::visit_expr(s.rhs, [&](const ir::Expr& x) { self = self || x.is_ref(s.lhs.text); });
      return self ? Magnitude{kInf, 0} : eval(s.rhs);
    }
    double n = 1;
    for (const auto* l : sc.loops) n *= static_cast<double>(l->extent);
    const Magnitude u = eval(*red->operand);
    Magnitude prior{0, kInf};
    if (!red->implicit_init) {
      auto it = buf_.find(red->acc);
      prior = it == buf_.end() ? Magnitude{kInf, 0} : it->second;
    }
    switch (red->op) {
      case analysis::ReduceOp::Add:
      case analysis::ReduceOp::Sub: return {prior.hi + n * u.hi, std::min(prior.lo, u.lo) * kUlp};
      case analysis::ReduceOp::Mul:
        return {(red->implicit_init ? 1 : prior.hi) * std::pow(std::max(u.hi, 1.0), n),
                std::min(red->implicit_init ? 1 : prior.lo, 1.0) * std::pow(std::min(u.lo, 1.0), n)};
      default: return {std::max(prior.hi, u.hi), std::min(prior.lo, u.lo)};
    }
  }

  analysis::SignAnalysis signs_;
  double beta_ = 64, var_ = 1;
  std::map<std::string, Magnitude, std::less<>> buf_;
};

}  // namespace

Magnitude magnitude(const ir::Task& t, const ir::Expr& e) {
  thread_local std::string last_key;
  thread_local std::shared_ptr<const Magnitudes> last;
  std::string key = ir::task_to_json(t);
  if (!last || key != last_key) {
    last = std::make_shared<Magnitudes>(analysis::typed_task(t)->task);
    last_key = std::move(key);
  }
  return last->eval(e);
}

// ---- entries 38 and 39 ----
namespace {

/// Every offered (occurrence, pivot) choice of one statement of the typed task.
std::vector<OperandChoice> stmt_choices(const ir::Task& t, const std::shared_ptr<const analysis::TypedTask>& tt,
                                        const analysis::StmtCtx& sc, std::int64_t identity,
                                        const PivotFilter& offer) {
  std::vector<OperandChoice> out;
  const auto occs = occurrences(*sc.stmt);
  for (std::size_t i = 0; i < occs.size(); ++i)
    for (auto& p : pivots(tt->task, sc, *occs[i].ref, identity)) {
      if (p.access == *occs[i].ref || !offer(t, occs[i], p)) continue;
      out.push_back(OperandChoice{tt, sc, occs[i], std::move(p), static_cast<std::int64_t>(i)});
    }
  return out;
}

Params choice_params(const OperandChoice& ch) {
  return Params{{"occurrence", ch.occurrence_index}, {"pivot", ch.pivot.param}};
}

}  // namespace

std::vector<Site> operand_sites(const ir::Task& t, std::int64_t identity, const PivotFilter& offer) {
  auto tt = analysis::typed_task(t);
  std::vector<Site> out;
  for (const auto& sc : site_statements(tt->task)) {
    std::vector<Params> tuples;
    for (const auto& ch : stmt_choices(t, tt, sc, identity, offer)) tuples.push_back(choice_params(ch));
    if (tuples.empty()) continue;
    SiteRef ref;
    ref.nest = sc.nest;
    ref.stmt = sc.item;
    out.push_back(Site{ref, list_params(std::move(tuples))});
  }
  return out;
}

OperandChoice operand_choice(const StrategyInfo& info, const ir::Task& t, const Candidate& c, std::int64_t identity,
                             const PivotFilter& offer) {
  recheck(info, t, c);
  auto tt = analysis::typed_task(t);
  for (const auto& sc : site_statements(tt->task)) {
    if (sc.nest != c.ref.nest || !c.ref.stmt || sc.item != *c.ref.stmt) continue;
    for (auto& ch : stmt_choices(t, tt, sc, identity, offer))
      if (choice_params(ch) == c.params) return ch;
  }
  throw_stale(c.id() + " is not a candidate of this task");
}

void pivot_facts(Facts& f, const ir::Task& t, const Candidate& c, const ir::Stmt& s, const Pivot& p) {
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(s);
  f.set("statement", ir::print_stmt(s));
  f.set("pivot", p.json());
  if (p.kind == PivotKind::Previous)
    f.legality("previous element in bounds and initialised", "structural", true,
               "last entry " + p.key + " is a plain key used by no other entry: the element was read at " + p.key +
                   "-1; " + p.key + "=0 takes the identity");
  else
    f.legality("pivot not overwritten since nest " + std::to_string(p.nest), "structural", true,
               "no write to " + p.access.text + " between nest " + std::to_string(p.nest) +
                   " and the site; subscript keys in scope, distinct, covering the output's keys");
  f.legality("pivot finite-valued", "structural", true, "no statement writing " + p.access.text + " contains inf");
}

ir::Task replace_in_copy(const ir::Task& t, const analysis::NestPath& nest, std::uint32_t item,
                         const analysis::ExprPath& path, const ir::Expr& to) {
  ir::Task after = t;
  analysis::replace_node(analysis::nest_at(after.program, nest)->body.at(item).stmt(), path, to);
  return after;
}

std::string compact_access(const ir::Expr& ref) {
  std::string s = ref.text;
  if (ref.args.empty()) return s;
  s += "_{";
  for (std::size_t i = 0; i < ref.args.size(); ++i) s += (i ? "," : "") + ir::print_expr(ref.args[i]);
  return s + "}";
}

}  // namespace steptp::strategy::algebraic
