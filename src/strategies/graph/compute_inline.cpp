// compute_inline (STRATEGIES.md §11 entry 2): a top-level nest whose body is one statement T_s = f is deleted and
// every read T_r of T is replaced by f with the producer's keys replaced by the read's entries (simultaneously).
// Site rules: T is an intermediate that no other statement writes; f does not mention T (no reduction or prefix
// form); the entries of s are distinct plain keys covering every key of the header, so each read determines its
// producer iteration and T's written region is its whole shape; f reads no s/l buffer; T has at least one read and
// every read lies in a later nest. Every read must be inlinable, else the whole site is rejected (B16):
//  - value preservation (§7.4, buffer level): no statement in the nests after the producer up to and including the
//    reading nest writes a buffer that f reads;
//  - a read in a subscript (gather) needs f to be a valid subscript expression (LEIR.md §7.4);
//  - an entry containing a gather is not substituted for a key that f uses as a value (its type would change);
//  - an integer or bool T needs f's static type to equal T's dtype (no conversion on store is dropped).
// Class E when f's static type equals T's dtype and every consumer statement's target dtype equals it, else R
// (§6 "stored intermediates"). Reads inside lazy branches stay inside them, so laziness is preserved.
#include <algorithm>
#include <set>

#include "ir/init_rule.hpp"
#include "ir/printer.hpp"
#include "ir/typing.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/subst.hpp"
#include "strategies/analysis/typed.hpp"
#include "strategies/common.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::graph {
namespace {

bool valid_subscript_expr(const ir::Expr& e) {
  using K = ir::ExprKind;
  switch (e.kind) {
    case K::IntLit: case K::Var: case K::Ref: return true;  // a Ref's own subscript was valid already
    case K::Neg: case K::Group: return valid_subscript_expr(e.args[0]);
    case K::Binary:
      if (e.bop != ir::BinOp::Add && e.bop != ir::BinOp::Sub && e.bop != ir::BinOp::Mul &&
          e.bop != ir::BinOp::FloorDiv && e.bop != ir::BinOp::Mod)
        return false;
      return valid_subscript_expr(e.args[0]) && valid_subscript_expr(e.args[1]);
    default: return false;
  }
}

/// Does f use `key` as a value (outside every subscript)?
bool used_as_value(const ir::Expr& e, const std::string& key) {
  if (e.kind == ir::ExprKind::Var) return e.text == key;
  if (e.kind == ir::ExprKind::Ref) return false;
  for (const auto& c : e.args)
    if (used_as_value(c, key)) return true;
  return false;
}

void vars_of(const ir::Expr& e, std::set<std::string>& out) {
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Var) out.insert(x.text);
  });
}

/// Does the consumer keep its §8.4 initialiser and, when it has one, every loop variable it mentions (its
/// reduction variables decide when the initialiser fires)? Rule 2 is left out: inlining never changes it.
bool same_init(const ir::Stmt& before, const ir::Stmt& after) {
  const ir::InitKind k = ir::statement_initialiser(before, false);
  if (k != ir::statement_initialiser(after, false)) return false;
  if (k == ir::InitKind::None) return true;
  std::set<std::string> vb, va;
  vars_of(before.lhs, vb);
  vars_of(before.rhs, vb);
  vars_of(after.lhs, va);
  vars_of(after.rhs, va);
  return std::includes(va.begin(), va.end(), vb.begin(), vb.end());
}

struct Plan {
  std::string buffer;
  ir::Expr def;                       // f
  std::vector<std::string> keys;      // producer keys by entry position
  ir::Task after;
  Exactness cls = Exactness::Exact;
  nlohmann::json reads = nlohmann::json::array();
  std::string dtype_check;
  std::string why;                    // "" when the site is legal
};

class Inliner {
 public:
  Inliner(const Plan& p) : p_(p) {}
  std::string why;
  /// Inlines every read of T in `e`; `in_subscript`: e is (inside) a subscript entry.
  void run(ir::Expr& e, bool in_subscript, nlohmann::json& subs) {
    const bool is_ref = e.kind == ir::ExprKind::Ref;
    for (auto& c : e.args) run(c, in_subscript || is_ref, subs);
    if (!why.empty() || !e.is_ref(p_.buffer)) return;
    if (in_subscript && !valid_subscript_expr(p_.def)) {
      why = "a read of " + p_.buffer + " is a gather index and its definition is not a subscript expression";
      return;
    }
    analysis::KeyMap km;
    nlohmann::json sub = nlohmann::json::object();
    for (std::size_t m = 0; m < p_.keys.size(); ++m) {
      bool gather = false;
      ir::visit_expr(e.args[m], [&](const ir::Expr& x) { gather = gather || x.is_ref(); });
      if (gather && used_as_value(p_.def, p_.keys[m])) {
        why = "a gather entry would replace key " + p_.keys[m] + ", which the definition uses as a value";
        return;
      }
      km[p_.keys[m]] = e.args[m];
      sub[p_.keys[m]] = ir::print_expr(e.args[m]);
    }
    subs.push_back(sub);
    ir::Expr f = p_.def;
    analysis::substitute(f, km);
    e = std::move(f);
  }

 private:
  const Plan& p_;
};

void inline_nest(ir::Nest& n, Inliner& in, const std::string& buffer, std::uint32_t top, nlohmann::json& reads,
                 const ir::Task& t, ir::DType tdt, bool& all_same) {
  for (auto& it : n.body) {
    if (it.is_nest()) {
      inline_nest(it.nest(), in, buffer, top, reads, t, tdt, all_same);
      continue;
    }
    ir::Stmt& s = it.stmt();
    const ir::Stmt orig = s;
    const std::string before = ir::print_stmt(s);
    nlohmann::json subs = nlohmann::json::array();
    for (auto& e : s.lhs.args) in.run(e, true, subs);
    in.run(s.rhs, false, subs);
    if (subs.empty()) continue;
    if (in.why.empty() && !same_init(orig, s))
      in.why = "inlining would change the initialiser or the reduction variables of " + before;
    if (analysis::effective_dtype(t, s.lhs) != tdt) all_same = false;
    reads.push_back({{"nest", top}, {"statement", before}, {"after", ir::print_stmt(s)}, {"substitutions", subs}});
  }
}

Plan plan(const ir::Task& t0, std::uint32_t i) {
  Plan p;
  auto fail = [&](std::string why) {
    p.why = std::move(why);
    return p;
  };
  const auto typed = analysis::typed_task(t0);  // static types (Expr::ty) of the definition
  const ir::Task& t = typed->task;
  const ir::Nest& n = t.program.nests[i];
  if (n.body.size() != 1 || !n.body[0].is_stmt()) return fail("not a single-statement nest");
  const ir::Stmt& st = n.body[0].stmt();
  p.buffer = st.lhs.text;
  if (t.find_known(p.buffer)) return fail("known buffer");
  bool self = false, scoped = false;
  ir::visit_expr(st.rhs, [&](const ir::Expr& x) {
    self = self || x.is_ref(p.buffer);
    scoped = scoped || (x.is_ref() && x.scope != ir::Scope::Global);
  });
  if (self) return fail("the definition reads " + p.buffer);
  if (scoped) return fail("the definition reads an s/l buffer");
  std::set<std::string> keys;
  if (st.lhs.args.size() != n.loops.size()) return fail("subscript does not cover every key");
  for (const auto& e : st.lhs.args) {
    if (e.kind != ir::ExprKind::Var || !keys.insert(e.text).second) return fail("subscript not distinct keys");
    p.keys.push_back(e.text);
  }
  for (const auto& l : n.loops)
    if (!keys.count(l.var)) return fail("subscript does not cover every key");
  int writers = 0;
  ir::for_each_stmt(t.program, [&](const ir::Stmt& s, const auto&, std::size_t) { writers += s.lhs.text == p.buffer; });
  if (writers != 1) return fail("another statement writes " + p.buffer);
  p.def = st.rhs;
  const ir::DType tdt = st.lhs.dtype;
  const ir::DType fty = st.rhs.ty;
  if (!ir::is_float(tdt) && fty != tdt) return fail("conversion to a non-float dtype on store");
  // A weak integer constant takes its consumer's type once inlined (LEIR.md §7.3): u64 T = 9 read in
  // C_{u32} + T would then wrap at 2^32.
  if (!ir::is_float(tdt) && ir::constant_class(st.rhs) == ir::ConstClass::Int)
    return fail("the definition is a weak integer constant");

  // Buffers the definition reads (value preservation).
  std::set<std::string> reads_of_f;
  ir::visit_expr(st.rhs, [&](const ir::Expr& x) {
    if (x.is_ref()) reads_of_f.insert(x.text);
  });

  p.after = t0;
  auto& nests = p.after.program.nests;
  Inliner in(p);
  bool all_same = true;
  bool written_between = false;
  for (std::uint32_t j = 0; j < nests.size(); ++j) {
    if (j == i) continue;
    auto nb = analysis::nest_buffers(t.program.nests[j]);
    const bool reads_t = nb.read.count(p.buffer) > 0;
    if (j > i)
      for (const auto& b : reads_of_f) written_between = written_between || nb.written.count(b) > 0;
    if (!reads_t) continue;
    if (j < i) return fail(p.buffer + " is read before its producer");
    if (written_between) return fail("value preservation: a buffer the definition reads is written before a read");
    inline_nest(nests[j], in, p.buffer, j, p.reads, t, tdt, all_same);
    if (!in.why.empty()) return fail(in.why);
  }
  if (p.reads.empty()) return fail(p.buffer + " is never read");
  nests.erase(nests.begin() + i);
  p.cls = (fty == tdt && all_same) ? Exactness::Exact : Exactness::Reassoc;
  p.dtype_check = std::string("buffer ") + std::string(ir::dtype_name(tdt)) + ", definition " +
                  std::string(ir::dtype_name(fty)) + (all_same ? ", every consumer " : ", some consumer not ") +
                  std::string(ir::dtype_name(tdt));
  return p;
}

std::vector<Site> nest_sites(const ir::Task& t, const analysis::NestPath& path, const Candidate*) {
  if (path.size() != 1) return {};
  const ir::Nest& n = t.program.nests[path[0]];
  if (n.body.size() != 1 || !n.body[0].is_stmt() || t.find_known(n.body[0].stmt().lhs.text)) return {};
  if (!plan(t, path[0]).why.empty()) return {};
  SiteRef ref;
  ref.nest = path;
  ref.stmt = 0;
  return {Site{ref, no_params()}};
}

}  // namespace

std::vector<Site> enumerate_compute_inline(const ir::Task& t) { return enumerate_by_nest(t, nest_sites); }

Applied apply_compute_inline(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("compute_inline");
  if (c.strategy != info.name) throw_bad_params(c.id());
  recheck_nest(t, c, nest_sites);
  const std::uint32_t i = c.ref.nest[0];
  Plan p = plan(t, i);
  const ir::Stmt& st = t.program.nests[i].body[0].stmt();
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(st);
  f.set("producer", {{"nest", i}, {"buffer", p.buffer}, {"definition", ir::print_expr(st.rhs)},
                     {"keys", p.keys}});
  f.set("reads", p.reads);
  f.set("removed_nest", i);
  f.set("dtype_check", p.dtype_check);
  f.legality("every read inlinable (B16)", "structural", true, std::to_string(p.reads.size()) + " statements");
  f.legality("value preservation", "structural", true, "no buffer the definition reads is written before a read");
  return finish(t, std::move(p.after), std::move(f), p.cls);
}

STEPTP_REGISTER_STRATEGY(compute_inline, 2, Graph,
                         "Replace every read of an intermediate by the expression that produces "
                         "it, with the read's entries substituted for the producer's loop keys, "
                         "and delete the producer.",
                         enumerate_compute_inline, apply_compute_inline);

}  // namespace steptp::strategy::graph
