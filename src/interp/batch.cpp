// Batched execution of an innermost loop (nodes.hpp, Batch): the statement's rhs is evaluated for up to kBatch
// iterations with one virtual call per node, then stored (Map) or folded into the target in iteration order (Fold).
// compile.cpp decides when a statement may run this way; this file keeps the scalar semantics exactly:
//  - every floating-point operation is the scalar one, on the same operands, in the same order per element;
//  - the step counter advances by the batch size; a batch that would cross the step limit or a progress checkpoint
//    runs in scalar order, so E308 and progress calls happen at the same step;
//  - a read out of range, of an uninitialised element, or any LeirError inside a batch abandons it before its
//    stores, and the batch is replayed in scalar order, which raises the scalar error at the scalar iteration.
//    (Map's initialiser stores happen before the rhs, exactly as the scalar path does them, so a replay repeats
//    them to the same values.)
#include <algorithm>

#include "interp/stmt_nodes.hpp"
#include "base/diag.hpp"

namespace steptp::interp::detail {
namespace {

/// acc after the lanes of `acc = op(acc, g)` (or op(g, acc)), in lane order.
template <class Op>
double fold(double acc, const double* g, int n, bool target_left) {
  if (target_left)
    for (int j = 0; j < n; ++j) acc = Op::ap(acc, g[j]);
  else
    for (int j = 0; j < n; ++j) acc = Op::ap(g[j], acc);
  return acc;
}

/// Lanes of `b` where `keep` holds, as a mask in `m`; returns how many. A lane off in `b` stays off.
template <class Keep>
int narrow(const Batch& b, std::int64_t* m, Keep keep) {
  int on = 0;
  for (int j = 0; j < b.n; ++j) {
    m[j] = b.on(j) && keep(j);
    on += static_cast<int>(m[j]);
  }
  return on;
}
int lanes_on(const Batch& b) {
  if (!b.mask) return b.n;
  int on = 0;
  for (int j = 0; j < b.n; ++j) on += b.mask[j] != 0;
  return on;
}
/// The batch restricted to mask `m` with `on` lanes: `b` itself when no lane was dropped (keeps the fast paths).
Batch restrict(const Batch& b, const std::int64_t* m, int on, int parent_on) {
  Batch r = b;
  if (on != parent_on) r.mask = m;
  return r;
}

/// Generic read (gathers, guarded reads): each subscript entry batched, then per active lane the E302 checks of
/// generic_offset, the flat range and (check_init) E301, as batch faults.
template <class T>
void generic_read_batch(const RefInfo& r, Ctx& c, const Batch& b, const T* data, T* out) {
  auto e = itemp(c);
  if (!r.entry_aff.empty()) {
    // affine subscripts (guarded reads): an entry is checked lane by lane only when its range over the batch
    // leaves [0, extent); the flat offset is one affine form, read as an affine reference reads it
    for (std::size_t k = 0; k < r.entry_aff.size(); ++k) {
      if (!r.check_dim[k]) continue;
      const auto [lo, hi] = affine_range(r.entry_aff[k], c, b);
      if (lo >= 0 && hi < r.shape[k]) continue;
      lane_offsets(r.entry_aff[k], c, b, e.p);
      for (int j = 0; j < b.n; ++j)
        if (b.on(j) && (e.p[j] < 0 || e.p[j] >= r.shape[k])) c.batch_fail = true;
    }
    if (r.check_init) affine_read_batch<-1, true>(r.flat_aff, r.buf, c, b, data, out);
    else affine_read_batch<-1, false>(r.flat_aff, r.buf, c, b, data, out);
    return;
  }
  auto off = itemp(c);
  std::fill_n(off.p, b.n, 0);
  for (std::size_t k = 0; k < r.entries.size(); ++k) {
    r.entries[k]->ib(c, b, e.p);
    for (int j = 0; j < b.n; ++j) {
      if (!b.on(j)) continue;
      const std::int64_t v = e.p[j];
      if (r.check_dim[k] && (v < 0 || v >= r.shape[k])) c.batch_fail = true;
      off.p[j] += v * r.strides[k];
    }
  }
  const BufState& s = c.bufs[r.buf];
  for (int j = 0; j < b.n; ++j) {
    out[j] = T{};
    if (!b.on(j)) continue;
    const std::int64_t o = off.p[j];
    if (o < 0 || o >= s.numel || (r.check_init && !s.init[o])) c.batch_fail = true;
    else out[j] = data[o];
  }
}

}  // namespace

void RefGenF::fb(Ctx& c, const Batch& b, double* o) const { generic_read_batch(r, c, b, c.bufs[r.buf].f, o); }
void RefGenI::ib(Ctx& c, const Batch& b, std::int64_t* o) const { generic_read_batch(r, c, b, c.bufs[r.buf].i, o); }

void F2I::ib(Ctx& c, const Batch& b, std::int64_t* o) const {
  auto x = ftemp(c);
  a->fb(c, b, x.p);
  for (int j = 0; j < b.n; ++j) {
    o[j] = 0;
    if (b.on(j) && !steptp_num::float_to_int(x.p[j], t.bits, t.sgn, &o[j])) c.batch_fail = true;  // E304
  }
}

void AndI::ib(Ctx& c, const Batch& bt, std::int64_t* o) const {
  a->ib(c, bt, o);
  auto m = itemp(c), y = itemp(c);
  const int on = narrow(bt, m.p, [&](int j) { return o[j] != 0; });
  if (!on) return;
  b->ib(c, restrict(bt, m.p, on, lanes_on(bt)), y.p);
  for (int j = 0; j < bt.n; ++j)
    if (o[j]) o[j] = y.p[j];
}

void OrI::ib(Ctx& c, const Batch& bt, std::int64_t* o) const {
  a->ib(c, bt, o);
  auto m = itemp(c), y = itemp(c);
  const int on = narrow(bt, m.p, [&](int j) { return o[j] == 0; });
  if (!on) return;
  b->ib(c, restrict(bt, m.p, on, lanes_on(bt)), y.p);
  for (int j = 0; j < bt.n; ++j)
    if (!o[j]) o[j] = y.p[j];
}

namespace {
/// if_then_else over a batch: the condition on every active lane, then each branch only on its lanes.
template <class T, class Eval>
void select_batch(Ctx& c, const Batch& bt, const INode& cnd, T* o, T* other, Eval eval) {
  auto k = itemp(c), ma = itemp(c), mb = itemp(c);
  cnd.ib(c, bt, k.p);
  int parent = 0, na = 0;
  for (int j = 0; j < bt.n; ++j) {
    const std::int64_t on = bt.mask ? bt.mask[j] != 0 : 1;
    ma.p[j] = on & (k.p[j] != 0);
    parent += static_cast<int>(on);
    na += static_cast<int>(ma.p[j]);
  }
  if (na == parent || na == 0) {  // every active lane takes the same branch: no masks, no merge
    eval(na != 0, bt, o);
    return;
  }
  for (int j = 0; j < bt.n; ++j) mb.p[j] = (bt.mask ? bt.mask[j] != 0 : 1) & (k.p[j] == 0);
  eval(true, restrict(bt, ma.p, na, parent), o);
  eval(false, restrict(bt, mb.p, parent - na, parent), other);
  for (int j = 0; j < bt.n; ++j) o[j] = mb.p[j] ? other[j] : o[j];
}
}  // namespace

void SelF::fb(Ctx& c, const Batch& bt, double* o) const {
  auto other = ftemp(c);
  select_batch(c, bt, *cnd, o, other.p, [&](bool then, const Batch& x, double* out) {
    (then ? a : b)->fb(c, x, out);
  });
}
void SelI::ib(Ctx& c, const Batch& bt, std::int64_t* o) const {
  auto other = itemp(c);
  select_batch(c, bt, *cnd, o, other.p, [&](bool then, const Batch& x, std::int64_t* out) {
    (then ? a : b)->ib(c, x, out);
  });
}

namespace {
/// alive[j] &= (a[j] op b[j]) over the lanes, the operator's switch outside the loop.
template <class T>
void compare_lanes(ir::CmpOp op, const T* a, const T* b, std::int64_t* alive, int n) {
  auto run = [&](auto cmp) {
    for (int j = 0; j < n; ++j) alive[j] = alive[j] && cmp(a[j], b[j]);
  };
  switch (op) {
    case ir::CmpOp::Lt: run([](T x, T y) { return x < y; }); break;
    case ir::CmpOp::Le: run([](T x, T y) { return x <= y; }); break;
    case ir::CmpOp::Gt: run([](T x, T y) { return x > y; }); break;
    case ir::CmpOp::Ge: run([](T x, T y) { return x >= y; }); break;
    case ir::CmpOp::Eq: run([](T x, T y) { return x == y; }); break;
    case ir::CmpOp::Ne: run([](T x, T y) { return x != y; }); break;
  }
}
}  // namespace

void CmpChain::ib(Ctx& c, const Batch& bt, std::int64_t* o) const {
  // a chain of bounded integer operands (pure, no faults) is decided for the whole batch when its ranges allow:
  // true on every lane when every pair holds everywhere, false when some pair holds nowhere
  {
    bool known = true, all = true, none = false;
    std::int64_t pl = 0, ph = 0;
    for (std::size_t k = 0; k < ops.size() && known && !none; ++k) {
      std::int64_t l = 0, h = 0;
      known = ops[k].i && ops[k].i->range(c, bt, l, h) && (k == 0 || pairs[k - 1].kind == CmpPair::Signed);
      if (known && k > 0) {
        const int d = decide_over_ranges(pairs[k - 1].op, pl, ph, l, h);
        all = all && d == 1;
        none = d == 0;
      }
      pl = l;
      ph = h;
    }
    if (none || (known && all)) {
      std::fill_n(o, bt.n, none ? 0 : 1);
      return;
    }
  }
  // each operand at most once, left to right, only on the lanes where the chain still holds (CmpChain::i)
  auto ld = ftemp(c), rd = ftemp(c), lx = ftemp(c), rx = ftemp(c);
  auto li = itemp(c), ri = itemp(c), alive = itemp(c);
  auto eval = [&](std::size_t k, const Batch& x, double* d, std::int64_t* i) {
    if (ops[k].f) ops[k].f->fb(c, x, d);
    else ops[k].i->ib(c, x, i);
  };
  // operand k's lanes as doubles of precision p (CmpChain::as_double), without a copy when they already are
  auto as_doubles = [&](std::size_t k, const double* d, const std::int64_t* i, Prec p, double* buf) -> const double* {
    if (ops[k].f && p == Prec::P64) return d;
    for (int j = 0; j < bt.n; ++j) buf[j] = as_double(k, d[j], i[j], p);
    return buf;
  };
  const int parent = lanes_on(bt);
  int on = narrow(bt, alive.p, [](int) { return true; });
  double *L = ld.p, *R = rd.p;
  std::int64_t *Li = li.p, *Ri = ri.p;
  eval(0, bt, L, Li);
  for (std::size_t k = 0; k < pairs.size() && on; ++k) {
    eval(k + 1, restrict(bt, alive.p, on, parent), R, Ri);
    const CmpPair& p = pairs[k];
    if (p.kind == CmpPair::Signed) {
      compare_lanes(p.op, Li, Ri, alive.p, bt.n);
    } else if (p.kind == CmpPair::Unsigned) {
      compare_lanes(p.op, reinterpret_cast<const std::uint64_t*>(Li), reinterpret_cast<const std::uint64_t*>(Ri),
                    alive.p, bt.n);
    } else {
      compare_lanes(p.op, as_doubles(k, L, Li, p.p, lx.p), as_doubles(k + 1, R, Ri, p.p, rx.p), alive.p, bt.n);
    }
    on = 0;
    for (int j = 0; j < bt.n; ++j) on += alive.p[j] != 0;
    std::swap(L, R);
    std::swap(Li, Ri);
  }
  std::copy_n(alive.p, bt.n, o);
}

bool StmtNode::try_batch(Ctx& c, const Batch& b) const {
  try {
    return batch_once(c, b);
  } catch (const ir::LeirError&) {
    return false;
  } catch (const std::length_error&) {
    return false;
  }
}

namespace {
/// Map's stores: the initialiser (before the rhs, as the scalar path does) or the rhs values, at the lanes' target
/// offsets o0 + j*k (one spanned loop) or off[j].
template <class Off>
void map_store(BufState& s, int n, Off at, const double* v, double init_value, bool init) {
  for (int j = 0; j < n; ++j) {
    s.f[at(j)] = init ? init_value : v[j];
    s.init[at(j)] = 1;
  }
}
}  // namespace

bool StmtNode::batch_once(Ctx& c, const Batch& b) const {
  BufState& s = c.bufs[buf];
  c.cur = this;
  set_lane(c, b, 0);
  const std::int64_t o0 = eval_affine<-1>(lhs_aff, c.vars);
  const auto numel = static_cast<std::uint64_t>(s.numel);
  // target offsets: fixed (Fold), o0 + j*k (Map over one loop) or per lane (Map over several)
  const bool linear = batch == BatchMode::Fold || b.nvars == 1;
  const std::int64_t k = batch == BatchMode::Fold ? 0 : affine_coefficient(lhs_aff, b.slots[0]);
  auto off = itemp(c);
  if (linear) {
    if (static_cast<std::uint64_t>(o0) >= numel || static_cast<std::uint64_t>(o0 + (b.n - 1) * k) >= numel)
      return false;  // E302 on the target
  } else {
    lane_offsets(lhs_aff, c, b, off.p);
    for (int j = 0; j < b.n; ++j)
      if (static_cast<std::uint64_t>(off.p[j]) >= numel) return false;
  }
  // §8.4: the initialiser fires when every reduction variable is 0. The planner lets Map span no reduction
  // variable, so it fires at every lane or none, and Fold only reduction variables (when there is an initialiser),
  // so it fires at most at lane 0, the first iteration of the spanned loops.
  bool others_zero = true, spanned_zero = true;
  for (int r : red_slots) {
    bool spanned = false;
    for (int v = 0; v < b.nvars; ++v)
      if (b.slots[v] == r) {
        spanned = true;
        if (b.vals[v][0] != 0) spanned_zero = false;
      }
    if (!spanned && c.vars[r] != 0) others_zero = false;
  }
  const bool init = has_init && others_zero && spanned_zero;
  c.batch_fail = false;
  auto t = ftemp(c);
  if (batch == BatchMode::Map) {
    auto lin = [&](int j) { return o0 + j * k; };
    auto per_lane = [&](int j) { return off.p[j]; };
    if (init) {
      if (linear) map_store(s, b.n, lin, t.p, init_f, true);
      else map_store(s, b.n, per_lane, t.p, init_f, true);
    }
    rf->fb(c, b, t.p);
    if (c.batch_fail) return false;
    if (linear) map_store(s, b.n, lin, t.p, 0, false);
    else map_store(s, b.n, per_lane, t.p, 0, false);
    c.cur_elem = linear ? lin(b.n - 1) : per_lane(b.n - 1);
  } else {
    fold_g->fb(c, b, t.p);
    if (c.batch_fail) return false;
    if (!init && !s.init[o0]) return false;  // E301 on the target's first read
    double acc = init ? init_f : s.f[o0];
    switch (fold_op) {
      case FoldOp::Add: acc = fold<fop::Add>(acc, t.p, b.n, fold_target_left); break;
      case FoldOp::Sub: acc = fold<fop::Sub>(acc, t.p, b.n, fold_target_left); break;
      case FoldOp::Mul: acc = fold<fop::Mul>(acc, t.p, b.n, fold_target_left); break;
      case FoldOp::Div: acc = fold<fop::Div>(acc, t.p, b.n, fold_target_left); break;
      case FoldOp::Max: acc = fold<fop::Max>(acc, t.p, b.n, fold_target_left); break;
      case FoldOp::Min: acc = fold<fop::Min>(acc, t.p, b.n, fold_target_left); break;
      case FoldOp::Other: return false;
    }
    s.f[o0] = acc;
    s.init[o0] = 1;
    c.cur_elem = o0;
  }
  c.steps += static_cast<std::uint64_t>(b.n);
  c.batched_steps += static_cast<std::uint64_t>(b.n);
  return true;
}

void StmtNode::run_loops_batched(Ctx& c, const LoopDesc* L, int m) const {
  std::int64_t total = 1;  // < 2^38: extents are < 2^31 (E006) and the planner spans loops only while under kBatch
  for (int s = 0; s < m; ++s) total *= L[s].extent;
  auto vals = BatchTemp<std::int64_t>(c.iscratch, c.iscratch_end, m);
  Batch b;
  b.nvars = m;
  std::int64_t cur[kMaxCollapse] = {}, ext[kMaxCollapse] = {};
  for (int s = 0; s < m; ++s) {
    ext[s] = L[s].extent;
    b.slots[s] = L[s].slot;
    b.vals[s] = vals.p + s * kBatch;
  }
  for (std::int64_t done = 0; done < total; done += b.n) {
    b.n = static_cast<int>(std::min<std::int64_t>(kBatch, total - done));
    if (m == 1) {
      for (int j = 0; j < b.n; ++j) vals.p[j] = done + j;
      b.lo[0] = done;
      b.hi[0] = done + b.n - 1;
    } else {
      // lanes in the scalar loops' order (the last loop varies fastest), filled in runs of the last loop
      for (int s = 0; s < m; ++s) b.lo[s] = b.hi[s] = cur[s];
      for (int j = 0; j < b.n;) {
        const int run = static_cast<int>(std::min<std::int64_t>(b.n - j, ext[m - 1] - cur[m - 1]));
        for (int s = 0; s < m - 1; ++s) {
          std::fill_n(vals.p + s * kBatch + j, run, cur[s]);
          b.lo[s] = std::min(b.lo[s], cur[s]);
          b.hi[s] = std::max(b.hi[s], cur[s]);
        }
        std::int64_t* inner = vals.p + (m - 1) * kBatch + j;
        for (int r = 0; r < run; ++r) inner[r] = cur[m - 1] + r;
        b.lo[m - 1] = std::min(b.lo[m - 1], cur[m - 1]);
        b.hi[m - 1] = std::max(b.hi[m - 1], cur[m - 1] + run - 1);
        j += run;
        cur[m - 1] += run;
        for (int s = m - 1; s > 0 && cur[s] == ext[s]; --s) {
          cur[s] = 0;
          ++cur[s - 1];
        }
      }
    }
    if (c.steps + static_cast<std::uint64_t>(b.n) <= c.limit && try_batch(c, b)) continue;
    for (int j = 0; j < b.n; ++j) {
      set_lane(c, b, j);
      exec(c);
    }
  }
  for (int s = 0; s < m; ++s) c.vars[L[s].slot] = L[s].extent;
}

}  // namespace steptp::interp::detail
