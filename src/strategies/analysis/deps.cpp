#include "strategies/analysis/deps.hpp"

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/flow.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <cstdint>
#include <algorithm>
#include <map>
#include <unordered_map>
#include <stdexcept>

#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"

namespace steptp::strategy::analysis {

// ---------------------------------------------------------------------------------------------------------------
// 2d+1 schedules
// ---------------------------------------------------------------------------------------------------------------
std::vector<ir::Expr> schedule_2d1(const ir::Program& p, const StmtCtx& sc) {
  std::vector<ir::Expr> s;
  s.push_back(ir::make_int(sc.nest.at(0)));
  const ir::Nest* n = &p.nests.at(sc.nest[0]);
  for (std::size_t lvl = 0;; ++lvl) {
    for (const auto& l : n->loops) {
      s.push_back(ir::make_var(l.var));
      s.push_back(ir::make_int(0));
    }
    if (lvl + 1 == sc.nest.size()) {
      s.back() = ir::make_int(sc.item);
      break;
    }
    s.back() = ir::make_int(sc.nest[lvl + 1]);
    n = &n->body.at(sc.nest[lvl + 1]).nest();
  }
  return s;
}

std::size_t loop_sched_dim(const ir::Program& p, const NestPath& path, std::uint32_t loop) {
  std::size_t dim = 1;
  const ir::Nest* n = &p.nests.at(path.at(0));
  for (std::size_t i = 1; i < path.size(); ++i) {
    dim += 2 * n->loops.size();
    n = &n->body.at(path[i]).nest();
  }
  return dim + 2 * loop;
}

namespace {
PolyStmt make_poly(const ir::Program& p, const StmtCtx& sc) {
  PolyStmt ps;
  ps.stmt = sc.stmt;
  for (const auto* l : sc.loops) ps.loops.push_back(*l);
  ps.sched_old = schedule_2d1(p, sc);
  ps.red = match_reduction(p, sc);
  return ps;
}
}  // namespace

std::vector<PolyStmt> poly_stmts(const ir::Program& p, std::uint32_t top) {
  std::vector<PolyStmt> out;
  for (const auto& sc : collect_stmts(p.nests.at(top), NestPath{top})) out.push_back(make_poly(p, sc));
  return out;
}

std::vector<PolyStmt> poly_stmts(const ir::Program& p) {
  std::vector<PolyStmt> out;
  for (const auto& sc : collect_stmts(p)) out.push_back(make_poly(p, sc));
  return out;
}

std::vector<PolyStmt> reschedule_stmts(const ir::Program& before, const ir::Program& after, std::uint32_t top,
                                       const KeyMap& old_key_of) {
  auto n = collect_stmts(after.nests.at(top), NestPath{top}).size();
  return reschedule_range(before, top, top + 1, after, top, top + 1, std::vector<KeyMap>(n, old_key_of));
}

std::vector<PolyStmt> reschedule_range(const ir::Program& before, std::uint32_t b0, std::uint32_t b1,
                                       const ir::Program& after, std::uint32_t a0, std::uint32_t a1,
                                       const std::vector<KeyMap>& old_key_of) {
  std::vector<StmtCtx> b, a;
  for (std::uint32_t i = b0; i < b1; ++i) {
    auto v = collect_stmts(before.nests.at(i), NestPath{i});
    b.insert(b.end(), v.begin(), v.end());
  }
  for (std::uint32_t i = a0; i < a1; ++i) {
    auto v = collect_stmts(after.nests.at(i), NestPath{i});
    a.insert(a.end(), v.begin(), v.end());
  }
  if (a.size() != b.size()) throw std::invalid_argument("reschedule_range: statement counts differ");
  std::vector<PolyStmt> out;
  for (std::size_t k = 0; k < a.size(); ++k) {
    PolyStmt ps = make_poly(after, a[k]);
    ps.sched_new = ps.sched_old;
    ps.sched_old = schedule_2d1(before, b[k]);
    if (k < old_key_of.size())
      for (auto& e : ps.sched_old) substitute(e, old_key_of[k]);
    out.push_back(std::move(ps));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// isl plumbing: RAII holders and AST -> isl conversion
// ---------------------------------------------------------------------------------------------------------------
namespace {

template <class T, T* (*Free)(T*), T* (*Copy)(T*)>
class Own {
 public:
  Own() = default;
  explicit Own(T* p) : p_(p) {}
  Own(const Own& o) : p_(o.p_ ? Copy(o.p_) : nullptr) {}
  Own(Own&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  Own& operator=(Own o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~Own() {
    if (p_) Free(p_);
  }
  T* get() const { return p_; }
  T* copy() const { return p_ ? Copy(p_) : nullptr; }
  T* release() {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};
using Map = Own<isl_map, isl_map_free, isl_map_copy>;
using Set = Own<isl_set, isl_set_free, isl_set_copy>;
using Aff = Own<isl_aff, isl_aff_free, isl_aff_copy>;
using LSpace = Own<isl_local_space, isl_local_space_free, isl_local_space_copy>;
using Space = Own<isl_space, isl_space_free, isl_space_copy>;

struct Ctx {
  isl_ctx* ctx;
  Ctx() : ctx(isl_ctx_alloc()) { isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE); }
  ~Ctx() { isl_ctx_free(ctx); }
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;
};

struct IslFailure : std::runtime_error {
  IslFailure() : std::runtime_error("isl error") {}
};
template <class T>
T* chk(T* p) {
  if (!p) throw IslFailure();
  return p;
}

/// Quasi-affine conversion; returns an empty Aff when `e` is not quasi-affine over the keys.
Aff to_aff(const ir::Expr& e, const LSpace& ls, const std::map<std::string, int>& pos) {
  using K = ir::ExprKind;
  isl_ctx* ctx = isl_local_space_get_ctx(ls.get());
  switch (e.kind) {
    case K::IntLit:
      return Aff(chk(isl_aff_val_on_domain(ls.copy(), isl_val_int_from_si(ctx, e.ival))));
    case K::Var: {
      auto it = pos.find(e.text);
      if (it == pos.end()) return Aff();
      return Aff(chk(isl_aff_var_on_domain(ls.copy(), isl_dim_set, it->second)));
    }
    case K::Group:
      return to_aff(e.args[0], ls, pos);
    case K::Neg: {
      Aff a = to_aff(e.args[0], ls, pos);
      if (!a) return a;
      return Aff(chk(isl_aff_neg(a.release())));
    }
    case K::Binary: {
      Aff a = to_aff(e.args[0], ls, pos);
      if (!a) return a;
      Aff b = to_aff(e.args[1], ls, pos);
      if (!b) return b;
      switch (e.bop) {
        case ir::BinOp::Add: return Aff(chk(isl_aff_add(a.release(), b.release())));
        case ir::BinOp::Sub: return Aff(chk(isl_aff_sub(a.release(), b.release())));
        case ir::BinOp::Mul:
          if (isl_aff_is_cst(a.get()) != isl_bool_true && isl_aff_is_cst(b.get()) != isl_bool_true) return Aff();
          return Aff(chk(isl_aff_mul(a.release(), b.release())));
        case ir::BinOp::FloorDiv:
        case ir::BinOp::Mod: {
          if (isl_aff_is_cst(b.get()) != isl_bool_true) return Aff();
          isl_val* v = chk(isl_aff_get_constant_val(b.get()));
          if (isl_val_is_int(v) != isl_bool_true || isl_val_is_pos(v) != isl_bool_true) {
            isl_val_free(v);
            return Aff();
          }
          if (e.bop == ir::BinOp::Mod) return Aff(chk(isl_aff_mod_val(a.release(), v)));
          return Aff(chk(isl_aff_floor(chk(isl_aff_scale_down_val(a.release(), v)))));
        }
        default:
          return Aff();
      }
    }
    default:
      return Aff();
  }
}

/// Per-statement isl data.
struct IslStmt {
  Space space;  // set space S<k>[keys]
  Set domain;
  LSpace ls;
  std::map<std::string, int> pos;
  Map sched_old, sched_new;
  std::vector<Access> accesses;
  std::vector<Map> access_maps;  // parallel to accesses
};

/// Schedule map over the kept dims only (`keep` lists original dim indices).
Map schedule_map(const IslStmt& st, const std::vector<ir::Expr>& sched, const std::vector<std::size_t>& keep,
                 isl_ctx* ctx) {
  const std::size_t dims = keep.size();
  Space range(chk(isl_space_set_alloc(ctx, 0, dims)));
  Space ms(chk(isl_space_map_from_domain_and_range(st.space.copy(), range.copy())));
  isl_aff_list* list = chk(isl_aff_list_alloc(ctx, static_cast<int>(dims)));
  for (std::size_t d = 0; d < dims; ++d) {
    Aff a;
    if (keep[d] < sched.size()) a = to_aff(sched[keep[d]], st.ls, st.pos);
    else a = Aff(chk(isl_aff_zero_on_domain(st.ls.copy())));
    if (!a) {
      isl_aff_list_free(list);
      throw IslFailure();  // schedules are affine by construction
    }
    list = chk(isl_aff_list_add(list, a.release()));
  }
  isl_multi_aff* ma = chk(isl_multi_aff_from_aff_list(ms.release(), list));
  Map m(chk(isl_map_from_multi_aff(ma)));
  return Map(chk(isl_map_intersect_domain(m.release(), st.domain.copy())));
}

Map access_map(const IslStmt& st, const ir::Expr& ref, isl_ctx* ctx) {
  const std::size_t rank = ref.args.size();
  Space arr(chk(isl_space_set_alloc(ctx, 0, 0)));
  arr = Space(chk(isl_space_set_tuple_name(arr.release(), isl_dim_set, ref.text.c_str())));
  Map m(chk(isl_map_universe(chk(isl_space_map_from_domain_and_range(st.space.copy(), arr.release())))));
  for (std::size_t j = 0; j < rank; ++j) {
    Aff a = to_aff(ref.args[j], st.ls, st.pos);
    Map mj;
    if (a) {
      mj = Map(chk(isl_map_from_aff(a.release())));
    } else {
      Space one(chk(isl_space_set_alloc(ctx, 0, 1)));
      mj = Map(chk(isl_map_universe(chk(isl_space_map_from_domain_and_range(st.space.copy(), one.release())))));
    }
    m = Map(chk(isl_map_flat_range_product(m.release(), mj.release())));
  }
  m = Map(chk(isl_map_set_tuple_name(m.release(), isl_dim_out, ref.text.c_str())));
  return Map(chk(isl_map_intersect_domain(m.release(), st.domain.copy())));
}

struct Model {
  Ctx c;
  std::vector<IslStmt> st;
  std::size_t dims = 0;             // kept schedule dims
  std::vector<std::size_t> keep;    // original index of each kept dim
  std::vector<std::size_t> remap;   // original dim -> number of kept dims before it
};

/// A schedule dim whose entry is the same integer literal (or absent, i.e. 0) in the old and the new schedule of
/// every statement never orders two instances: dropping it keeps every lexicographic comparison and makes the
/// isl relations much smaller.
bool constant_dim(const std::vector<PolyStmt>& stmts, std::size_t d, std::int64_t& v) {
  bool first = true;
  for (const auto& ps : stmts)
    for (const auto* sched : {&ps.sched_old, ps.sched_new.empty() ? &ps.sched_old : &ps.sched_new}) {
      std::int64_t x = 0;
      if (d < sched->size()) {
        const ir::Expr& e = (*sched)[d];
        if (e.kind != ir::ExprKind::IntLit) return false;
        x = e.ival;
      }
      if (first) v = x, first = false;
      else if (x != v) return false;
    }
  return true;
}

void build(Model& m, const std::vector<PolyStmt>& stmts) {
  std::size_t total = 0;
  for (const auto& ps : stmts) total = std::max({total, ps.sched_old.size(), ps.sched_new.size()});
  for (std::size_t d = 0; d < total; ++d) {
    m.remap.push_back(m.keep.size());
    std::int64_t v = 0;
    if (!constant_dim(stmts, d, v)) m.keep.push_back(d);
  }
  m.remap.push_back(m.keep.size());
  m.dims = m.keep.size();
  m.st.reserve(stmts.size());
  for (std::size_t k = 0; k < stmts.size(); ++k) {
    const PolyStmt& ps = stmts[k];
    IslStmt s;
    const int n = static_cast<int>(ps.loops.size());
    isl_space* sp = chk(isl_space_set_alloc(m.c.ctx, 0, n));
    for (int i = 0; i < n; ++i) {
      sp = chk(isl_space_set_dim_name(sp, isl_dim_set, i, ps.loops[i].var.c_str()));
      s.pos[ps.loops[i].var] = i;
    }
    sp = chk(isl_space_set_tuple_name(sp, isl_dim_set, ("S" + std::to_string(k)).c_str()));
    s.space = Space(sp);
    isl_set* dom = chk(isl_set_universe(s.space.copy()));
    for (int i = 0; i < n; ++i) {
      dom = chk(isl_set_lower_bound_si(dom, isl_dim_set, i, 0));
      dom = chk(isl_set_upper_bound_si(dom, isl_dim_set, i, ps.loops[i].extent - 1));
    }
    s.domain = Set(dom);
    s.ls = LSpace(chk(isl_local_space_from_space(s.space.copy())));
    s.sched_old = schedule_map(s, ps.sched_old, m.keep, m.c.ctx);
    s.sched_new = schedule_map(s, ps.sched_new.empty() ? ps.sched_old : ps.sched_new, m.keep, m.c.ctx);
    s.accesses = stmt_accesses(*ps.stmt);
    for (const auto& a : s.accesses) s.access_maps.push_back(access_map(s, *a.ref, m.c.ctx));
    m.st.push_back(std::move(s));
  }
}

/// Calls f(i, j, a, b, dep) for every non-empty dependence relation (instances of stmt i -> stmt j, ordered by
/// sched_old) between access a of i and access b of j. f returns false to stop.
template <class F>
void for_each_dep(Model& m, F&& f) {
  for (std::size_t i = 0; i < m.st.size(); ++i) {
    for (std::size_t j = 0; j < m.st.size(); ++j) {
      Map order;  // lazily built
      for (std::size_t a = 0; a < m.st[i].accesses.size(); ++a) {
        for (std::size_t b = 0; b < m.st[j].accesses.size(); ++b) {
          const Access& x = m.st[i].accesses[a];
          const Access& y = m.st[j].accesses[b];
          if (!x.write && !y.write) continue;
          if (x.buffer() != y.buffer()) continue;
          if (!order) order = Map(chk(isl_map_lex_lt_map(m.st[i].sched_old.copy(), m.st[j].sched_old.copy())));
          Map rel(chk(isl_map_apply_range(m.st[i].access_maps[a].copy(),
                                          chk(isl_map_reverse(m.st[j].access_maps[b].copy())))));
          rel = Map(chk(isl_map_intersect(rel.release(), order.copy())));
          isl_bool empty = isl_map_is_empty(rel.get());
          if (empty == isl_bool_error) throw IslFailure();
          if (empty == isl_bool_true) continue;
          if (!f(i, j, a, b, rel)) return;
        }
      }
    }
  }
}

const char* dep_kind(const Access& x, const Access& y) {
  if (x.write && y.write) return "WAW";
  return x.write ? "RAW" : "WAR";
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
namespace {
ScheduleCheck check_schedule_uncached(const std::vector<PolyStmt>& stmts) {
  ScheduleCheck r;
  try {
    Model m;
    build(m, stmts);
    for_each_dep(m, [&](std::size_t i, std::size_t j, std::size_t a, std::size_t b, const Map& dep) {
      ++r.dependences;
      const Access& x = m.st[i].accesses[a];
      const Access& y = m.st[j].accesses[b];
      Map viol_order(chk(isl_map_lex_ge_map(m.st[i].sched_new.copy(), m.st[j].sched_new.copy())));
      Map ordinary = dep;
      const auto& red = stmts[i].red;
      auto is_acc = [&](const Access& acc) { return acc.ref == red->lhs || acc.ref == red->acc_read; };
      if (i == j && red && is_acc(x) && is_acc(y)) {
        ++r.reduction_dependences;
        Map tag(chk(isl_map_universe(chk(isl_space_map_from_domain_and_range(m.st[i].space.copy(),
                                                                             m.st[i].space.copy())))));
        if (red->implicit_init)
          for (const auto& u : red->unused_keys) {
            int p = m.st[i].pos.at(u);
            tag = Map(chk(isl_map_equate(tag.release(), isl_dim_in, p, isl_dim_out, p)));
          }
        Map relaxed(chk(isl_map_intersect(dep.copy(), tag.copy())));
        ordinary = Map(chk(isl_map_subtract(ordinary.release(), relaxed.copy())));
        Map rv(chk(isl_map_intersect(relaxed.release(), viol_order.copy())));
        isl_bool e = isl_map_is_empty(rv.get());
        if (e == isl_bool_error) throw IslFailure();
        if (e == isl_bool_false) {
          r.reduction_reordered = true;
          if (reassociates(red->op)) r.reassociated = true;
        }
      }
      Map ov(chk(isl_map_intersect(ordinary.release(), viol_order.release())));
      isl_bool e = isl_map_is_empty(ov.get());
      if (e == isl_bool_error) throw IslFailure();
      if (e == isl_bool_false && r.legal) {
        r.legal = false;
        r.detail = std::string(dep_kind(x, y)) + " on " + x.buffer() + ": S" + std::to_string(i) + " -> S" +
                   std::to_string(j);
      }
      return true;
    });
  } catch (const IslFailure&) {
    r.legal = false;
    r.isl_error = true;
    r.detail = "isl error";
  }
  return r;
}

bool carries_dependence_uncached(const std::vector<PolyStmt>& stmts, std::size_t dim) {
  bool carried = false;
  try {
    Model m;
    build(m, stmts);
    if (dim >= m.remap.size() - 1) return false;
    if (std::find(m.keep.begin(), m.keep.end(), dim) == m.keep.end()) return false;  // a constant dim never differs
    dim = m.remap[dim];
    Space ss(chk(isl_space_set_alloc(m.c.ctx, 0, m.dims)));
    Space ms(chk(isl_space_map_from_set(ss.release())));
    Map eq(chk(isl_map_universe(ms.copy())));
    for (std::size_t d = 0; d < dim; ++d)
      eq = Map(chk(isl_map_equate(eq.release(), isl_dim_in, static_cast<int>(d), isl_dim_out, static_cast<int>(d))));
    Map lt(chk(isl_map_order_lt(eq.copy(), isl_dim_in, static_cast<int>(dim), isl_dim_out, static_cast<int>(dim))));
    Map gt(chk(isl_map_order_gt(eq.release(), isl_dim_in, static_cast<int>(dim), isl_dim_out, static_cast<int>(dim))));
    Map differ(chk(isl_map_union(lt.release(), gt.release())));
    for_each_dep(m, [&](std::size_t i, std::size_t j, std::size_t, std::size_t, const Map& dep) {
      Map t(chk(isl_map_apply_domain(dep.copy(), m.st[i].sched_old.copy())));
      t = Map(chk(isl_map_apply_range(t.release(), m.st[j].sched_old.copy())));
      t = Map(chk(isl_map_intersect(t.release(), differ.copy())));
      isl_bool e = isl_map_is_empty(t.get());
      if (e == isl_bool_error) throw IslFailure();
      if (e == isl_bool_false) carried = true;
      return !carried;
    });
  } catch (const IslFailure&) {
    return true;
  }
  return carried;
}

bool raw_deps_within_prefix_uncached(const std::vector<PolyStmt>& stmts, const std::string& buffer,
                                     const std::vector<std::size_t>& prefix) {
  try {
    Model m;
    build(m, stmts);
    isl_union_map* sched = isl_union_map_empty_ctx(m.c.ctx);
    isl_union_map* must = isl_union_map_empty_ctx(m.c.ctx);
    isl_union_map* may = isl_union_map_empty_ctx(m.c.ctx);
    for (const auto& st : m.st) {
      sched = isl_union_map_add_map(sched, st.sched_old.copy());
      for (std::size_t a = 0; a < st.accesses.size(); ++a) {
        const Access& x = st.accesses[a];
        if (!x.write || x.buffer() != buffer) continue;
        bool exact = true;
        for (const auto& e : x.ref->args) exact = exact && static_cast<bool>(to_aff(e, st.ls, st.pos));
        isl_union_map*& dst = exact ? must : may;
        dst = isl_union_map_add_map(dst, st.access_maps[a].copy());
      }
    }
    using UMap = Own<isl_union_map, isl_union_map_free, isl_union_map_copy>;
    UMap sched_u(chk(sched)), must_u(chk(must)), may_u(chk(may));
    Space ss(chk(isl_space_set_alloc(m.c.ctx, 0, m.dims)));
    Space ms(chk(isl_space_map_from_set(ss.release())));
    for (std::size_t j = 0; j < m.st.size(); ++j) {
      if (prefix[j] == SIZE_MAX) continue;
      isl_union_map* sink = isl_union_map_empty_ctx(m.c.ctx);
      for (std::size_t b = 0; b < m.st[j].accesses.size(); ++b) {
        const Access& y = m.st[j].accesses[b];
        if (y.write || y.buffer() != buffer) continue;
        sink = isl_union_map_add_map(sink, m.st[j].access_maps[b].copy());
      }
      UMap sink_u(chk(sink));
      if (isl_union_map_is_empty(sink_u.get()) == isl_bool_true) continue;
      isl_union_access_info* ai = chk(isl_union_access_info_from_sink(sink_u.copy()));
      ai = chk(isl_union_access_info_set_must_source(ai, must_u.copy()));
      ai = chk(isl_union_access_info_set_may_source(ai, may_u.copy()));
      ai = chk(isl_union_access_info_set_schedule_map(ai, sched_u.copy()));
      isl_union_flow* flow = chk(isl_union_access_info_compute_flow(ai));
      UMap dep(isl_union_map_union(isl_union_flow_get_must_dependence(flow),
                                   isl_union_flow_get_may_dependence(flow)));
      isl_union_flow_free(flow);
      chk(dep.get());
      // Source and sink instances in schedule space; they must agree on dims [0, prefix[j]].
      UMap t(chk(isl_union_map_apply_domain(dep.copy(), sched_u.copy())));
      t = UMap(chk(isl_union_map_apply_range(t.release(), sched_u.copy())));
      Map eq(chk(isl_map_universe(ms.copy())));
      for (std::size_t d = 0; d < m.dims && m.keep[d] <= prefix[j]; ++d)
        eq = Map(chk(isl_map_equate(eq.release(), isl_dim_in, static_cast<int>(d), isl_dim_out, static_cast<int>(d))));
      t = UMap(chk(isl_union_map_subtract(t.release(), chk(isl_union_map_from_map(eq.release())))));
      isl_bool e = isl_union_map_is_empty(t.get());
      if (e == isl_bool_error) throw IslFailure();
      if (e == isl_bool_false) return false;
    }
  } catch (const IslFailure&) {
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Memoisation. enumerate, the site re-check of apply() and apply() itself ask the same dependence questions about
// one candidate; each isl answer costs milliseconds. A PolyStmt list is identified by what the answers depend on:
// each statement's text, instance loops, both schedules and reduction tag (operator, init status, unused keys).
// Per thread, bounded (cleared when full), so it never changes an answer.
// ---------------------------------------------------------------------------------------------------------------
std::string poly_key(const std::vector<PolyStmt>& stmts) {
  std::string k;
  for (const auto& s : stmts) {
    k += ir::print_stmt(*s.stmt);
    k += '|';
    for (const auto& l : s.loops) k += ir::print_loop(l);
    k += '|';
    for (const auto& e : s.sched_old) k += ir::print_expr(e) + ',';
    k += '|';
    for (const auto& e : s.sched_new) k += ir::print_expr(e) + ',';
    k += '|';
    if (s.red) {
      k += reduce_op_text(s.red->op);
      k += s.red->implicit_init ? "/i/" : "/c/";
      for (const auto& u : s.red->unused_keys) k += u + ',';
    }
    k += '\n';
  }
  return k;
}

template <class V>
class Memo {
 public:
  const V* find(const std::string& key) const {
    auto it = m_.find(key);
    return it == m_.end() ? nullptr : &it->second;
  }
  const V& put(std::string key, V v) {
    if (m_.size() >= 1024) m_.clear();
    return m_.insert_or_assign(std::move(key), std::move(v)).first->second;
  }

 private:
  std::unordered_map<std::string, V> m_;
};

}  // namespace

ScheduleCheck check_schedule(const std::vector<PolyStmt>& stmts) {
  thread_local Memo<ScheduleCheck> memo;
  std::string key = poly_key(stmts);
  if (const auto* r = memo.find(key)) return *r;
  return memo.put(std::move(key), check_schedule_uncached(stmts));
}

bool carries_dependence(const std::vector<PolyStmt>& stmts, std::size_t dim) {
  thread_local Memo<bool> memo;
  std::string key = std::to_string(dim) + '#' + poly_key(stmts);
  if (const auto* r = memo.find(key)) return *r;
  return memo.put(std::move(key), carries_dependence_uncached(stmts, dim));
}

bool raw_deps_within_prefix(const std::vector<PolyStmt>& stmts, const std::string& buffer,
                            const std::vector<std::size_t>& prefix) {
  thread_local Memo<bool> memo;
  std::string key = buffer + '#';
  for (auto p : prefix) key += std::to_string(p) + ',';
  key += '#' + poly_key(stmts);
  if (const auto* r = memo.find(key)) return *r;
  return memo.put(std::move(key), raw_deps_within_prefix_uncached(stmts, buffer, prefix));
}

}  // namespace steptp::strategy::analysis

namespace steptp::strategy::analysis {

std::vector<bool> flow_live_writers(const std::vector<PolyStmt>& stmts, const std::string& buffer) {
  std::vector<bool> live(stmts.size(), false);
  try {
    Model m;
    build(m, stmts);
    using UMap = Own<isl_union_map, isl_union_map_free, isl_union_map_copy>;
    isl_union_map* sched = isl_union_map_empty_ctx(m.c.ctx);
    isl_union_map* must = isl_union_map_empty_ctx(m.c.ctx);
    isl_union_map* may = isl_union_map_empty_ctx(m.c.ctx);
    isl_union_map* sink = isl_union_map_empty_ctx(m.c.ctx);
    for (const auto& st : m.st) {
      sched = isl_union_map_add_map(sched, st.sched_old.copy());
      for (std::size_t a = 0; a < st.accesses.size(); ++a) {
        const Access& x = st.accesses[a];
        if (x.buffer() != buffer) continue;
        if (!x.write) {
          sink = isl_union_map_add_map(sink, st.access_maps[a].copy());
          continue;
        }
        bool exact = true;
        for (const auto& e : x.ref->args) exact = exact && static_cast<bool>(to_aff(e, st.ls, st.pos));
        isl_union_map*& dst = exact ? must : may;
        dst = isl_union_map_add_map(dst, st.access_maps[a].copy());
      }
    }
    UMap sched_u(chk(sched)), must_u(chk(must)), may_u(chk(may)), sink_u(chk(sink));
    isl_union_access_info* ai = chk(isl_union_access_info_from_sink(sink_u.copy()));
    ai = chk(isl_union_access_info_set_must_source(ai, must_u.copy()));
    ai = chk(isl_union_access_info_set_may_source(ai, may_u.copy()));
    ai = chk(isl_union_access_info_set_schedule_map(ai, sched_u.copy()));
    isl_union_flow* flow = chk(isl_union_access_info_compute_flow(ai));
    UMap dep(isl_union_map_union(isl_union_flow_get_must_dependence(flow), isl_union_flow_get_may_dependence(flow)));
    isl_union_flow_free(flow);
    chk(dep.get());
    for (std::size_t k = 0; k < m.st.size(); ++k)
      for (std::size_t j = 0; j < m.st.size(); ++j) {
        if (j == k || live[k]) continue;
        // Flow from instances of statement k to instances of statement j.
        isl_union_set* src = chk(isl_union_set_from_set(m.st[k].domain.copy()));
        isl_union_set* dst = chk(isl_union_set_from_set(m.st[j].domain.copy()));
        UMap r(chk(isl_union_map_intersect_domain(dep.copy(), src)));
        r = UMap(chk(isl_union_map_intersect_range(r.release(), dst)));
        const isl_bool e = isl_union_map_is_empty(r.get());
        if (e == isl_bool_error) throw IslFailure();
        if (e == isl_bool_false) live[k] = true;
      }
  } catch (const IslFailure&) {
    live.assign(stmts.size(), true);
  }
  return live;
}

}  // namespace steptp::strategy::analysis
