// LSTM and GRU (ONNX operator spec, opsets 7-14): directions forward/reverse/bidirectional, layout 0 and 1,
// optional B, initial_h, initial_c, P (LSTM peepholes), GRU linear_before_reset 0 and 1, default activations
// only (Sigmoid, Tanh[, Tanh]). The sequence is unrolled at import time. Per direction: one nest computes the input
// projections of every time step (X*W^T, then a bias nest), then per time step one reduction nest for H_{t-1}*R^T
// and one or two element-wise nests for the cell and hidden states, which are kept in intermediates indexed by
// the time step. Copy nests write the requested outputs Y, Y_h, Y_c.
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

constexpr std::int64_t kMaxSteps = 4096;  // time steps unrolled into nests

/// Shapes, inputs and attributes of one LSTM/GRU node, validated.
struct Rnn {
  bool lstm = false;
  std::int64_t S = 0, Bt = 0, I = 0, H = 0, nd = 1, G = 0;  // steps, batch, input size, hidden, directions, gates
  bool layout1 = false, reverse_only = false, lbr = false;
  ir::DType dt = ir::DType::F32;
  Value X, W, R;
  std::optional<Value> B, h0, c0, P;
  std::int64_t gh() const { return G * H; }
};

bool has_out(const Node& n, std::size_t i) { return i < n.n_out() && !n.out_name(i).empty(); }

std::vector<std::string> attr_strings(const Node& n, const std::string& name) {
  for (const auto& a : n.proto().attribute())
    if (a.name() == name) {
      if (a.type() != onnx::AttributeProto::STRINGS) n.fail(fmt::format("attribute '{}' is not a list of strings", name));
      return {a.strings().begin(), a.strings().end()};
    }
  return {};
}

void check_shape(const Node& n, const char* what, const Shape& got, const Shape& want) {
  if (got != want)
    n.fail(fmt::format("{} has shape [{}], expected [{}]", what, fmt::join(got, ","), fmt::join(want, ",")));
}

Rnn rnn_spec(Context& ctx, const Node& n, bool lstm) {
  Rnn r;
  r.lstm = lstm;
  r.G = lstm ? 4 : 3;
  r.X = ctx.in(n, 0);
  r.W = ctx.in(n, 1);
  r.R = ctx.in(n, 2);
  r.dt = r.X.dtype();
  if (!ir::is_float(r.dt)) n.fail("needs a floating-point input");
  if (r.X.rank() != 3 || r.W.rank() != 3 || r.R.rank() != 3) n.fail("X, W and R must have rank 3");
  const std::int64_t layout = n.attr_i("layout", 0);
  if (layout != 0 && layout != 1) n.fail(fmt::format("unsupported layout {}", layout));
  r.layout1 = layout == 1;
  r.S = r.X.shape()[r.layout1 ? 1 : 0];
  r.Bt = r.X.shape()[r.layout1 ? 0 : 1];
  r.I = r.X.shape()[2];
  if (r.S > kMaxSteps) n.fail(fmt::format("sequence length {} is over {} (the sequence is unrolled)", r.S, kMaxSteps));
  const std::string dir = n.attr_s("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") n.fail(fmt::format("unsupported direction '{}'", dir));
  r.nd = dir == "bidirectional" ? 2 : 1;
  r.reverse_only = dir == "reverse";
  r.H = n.attr_i("hidden_size", r.R.shape()[2]);
  if (r.H != r.R.shape()[2]) n.fail(fmt::format("hidden_size {} but R has {} columns", r.H, r.R.shape()[2]));
  check_shape(n, "W", r.W.shape(), {r.nd, r.gh(), r.I});
  check_shape(n, "R", r.R.shape(), {r.nd, r.gh(), r.H});
  if (const Value* b = ctx.opt_in(n, 3)) { r.B = *b; check_shape(n, "B", b->shape(), {r.nd, 2 * r.gh()}); }
  if (const Value* sl = ctx.opt_in(n, 4)) {
    if (!sl->is_const) n.fail("sequence_lens must be a constant (computed at import time)");
    for (double v : sl->t.data)
      if (v != static_cast<double>(r.S))
        n.fail(fmt::format("unsupported sequence_lens entry {} (only the full length {})", v, r.S));
  }
  const Shape state = r.layout1 ? Shape{r.Bt, r.nd, r.H} : Shape{r.nd, r.Bt, r.H};
  if (const Value* h = ctx.opt_in(n, 5)) { r.h0 = *h; check_shape(n, "initial_h", h->shape(), state); }
  if (lstm) {
    if (const Value* c = ctx.opt_in(n, 6)) { r.c0 = *c; check_shape(n, "initial_c", c->shape(), state); }
    if (const Value* p = ctx.opt_in(n, 7)) { r.P = *p; check_shape(n, "P", p->shape(), {r.nd, 3 * r.H}); }
    if (n.attr_i("input_forget", 0) != 0) n.fail("unsupported input_forget != 0");
  } else {
    r.lbr = n.attr_i("linear_before_reset", 0) != 0;
  }
  if (n.has_attr("clip")) n.fail("unsupported attribute clip");
  const std::vector<std::string> def = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                            : std::vector<std::string>{"Sigmoid", "Tanh"};
  const auto acts = attr_strings(n, "activations");
  for (std::size_t i = 0; i < acts.size(); ++i)
    if (acts[i] != def[i % def.size()])
      n.fail(fmt::format("unsupported activation '{}' (only the defaults {})", acts[i], fmt::join(def, ", ")));
  return r;
}

/// Emits one direction `d` (`rev`: time runs backwards). Returns the buffers of H and (LSTM) C over time, [S,B,H].
std::pair<std::string, std::string> emit_direction(Context& ctx, const Rnn& r, std::int64_t d, bool rev) {
  const Expr dl = ilit(d);
  const std::int64_t GH = r.gh(), H = r.H;
  // XW[s,b,g] = sum_i X[s,b,i]*W[d,g,i] + Wb[g] + Rb[g] (GRU with linear_before_reset: no Rb for the h gate)
  const std::string xw = ctx.temp();
  {
    Loops l = ctx.loops({r.S, r.Bt, GH}, {r.I});
    std::vector<Expr> xi = r.layout1 ? std::vector<Expr>{l.sp[1], l.sp[0], l.rd[0]} : std::vector<Expr>{l.sp[0], l.sp[1], l.rd[0]};
    Expr acc = Context::ref(xw, r.dt, l.sp);
    ctx.emit1(l, acc, add(acc, mul(ctx.read(r.X, xi), ctx.read(r.W, {dl, l.sp[2], l.rd[0]}))));
  }
  if (r.B) {
    const std::int64_t rb_lim = r.lbr ? 2 * H : GH;
    Loops l = ctx.loops({r.S, r.Bt, GH});
    Expr acc = Context::ref(xw, r.dt, l.sp);
    Expr bias = ctx.read(*r.B, {dl, l.sp[2]});
    if (rb_lim == GH) bias = add(bias, ctx.read(*r.B, {dl, offset(l.sp[2], GH)}));
    ctx.emit1(l, acc, add(acc, bias));
    if (rb_lim != GH) {
      Loops l2 = ctx.loops({r.S, r.Bt, rb_lim});
      Expr acc2 = Context::ref(xw, r.dt, l2.sp);
      ctx.emit1(l2, acc2, add(acc2, ctx.read(*r.B, {dl, offset(l2.sp[2], GH)})));
    }
  }
  const std::string hs = ctx.temp(), cs = r.lstm ? ctx.temp() : std::string();
  auto state0 = [&](const std::optional<Value>& v, const Expr& b, const Expr& h) {
    if (!v) return flit(0.0);
    return ctx.read(*v, r.layout1 ? std::vector<Expr>{b, dl, h} : std::vector<Expr>{dl, b, h});
  };
  for (std::int64_t step = 0; step < r.S; ++step) {
    const std::int64_t t = rev ? r.S - 1 - step : step, tp = rev ? t + 1 : t - 1;
    const bool first = step == 0;
    auto hprev = [&](const Expr& b, const Expr& h) {
      return first ? state0(r.h0, b, h) : Context::ref(hs, r.dt, {ilit(tp), b, h});
    };
    const bool have_prev = !first || r.h0.has_value();
    // HR[b,g] = sum_k hprev[b,k]*R[d,g,k] over the gates that use H_{t-1} directly
    auto recur = [&](std::int64_t g0, std::int64_t ng, const std::function<Expr(const Expr&, const Expr&)>& hv) {
      const std::string hr = ctx.temp();
      Loops l = ctx.loops({r.Bt, ng}, {H});
      Expr acc = Context::ref(hr, r.dt, l.sp);
      ctx.emit1(l, acc, add(acc, mul(hv(l.sp[0], l.rd[0]), ctx.read(r.R, {dl, offset(l.sp[1], g0), l.rd[0]}))));
      return hr;
    };
    const std::int64_t n_direct = r.lstm || r.lbr ? GH : 2 * H;
    const std::string hr = have_prev ? recur(0, n_direct, hprev) : std::string();
    Loops l = ctx.loops({r.Bt, H});
    const Expr &b = l.sp[0], &h = l.sp[1];
    const Expr ti = ilit(t);
    auto pre = [&](std::int64_t gate) {  // X*W + biases + H*R of gate `gate` at (b, h)
      Expr e = Context::ref(xw, r.dt, {ti, b, offset(h, gate * H)});
      if (!hr.empty() && (r.lstm || gate < 2)) e = add(e, Context::ref(hr, r.dt, {b, offset(h, gate * H)}));
      return e;
    };
    if (r.lstm) {  // gates i, o, f, c; peepholes i, o, f
      auto peep = [&](std::int64_t k, const Expr& c) {
        return r.P ? std::optional<Expr>(mul(ctx.read(*r.P, {dl, offset(h, k * H)}), c)) : std::nullopt;
      };
      const Expr cprev = first ? state0(r.c0, b, h) : Context::ref(cs, r.dt, {ilit(tp), b, h});
      Expr gi = pre(0), gf = pre(2);
      if (auto p = peep(0, cprev)) gi = add(gi, *p);
      if (auto p = peep(2, cprev)) gf = add(gf, *p);
      const Expr c_t = Context::ref(cs, r.dt, {ti, b, h});
      ctx.emit1(l, c_t, add(mul(sigmoid_of(gf), cprev), mul(sigmoid_of(gi), tanh_of(pre(3)))));
      Expr go = pre(1);
      if (auto p = peep(1, c_t)) go = add(go, *p);
      ctx.emit1(l, Context::ref(hs, r.dt, {ti, b, h}), mul(sigmoid_of(go), tanh_of(c_t)));
      continue;
    }
    // GRU: gates z, r, h
    const Expr z = sigmoid_of(pre(0)), rg = sigmoid_of(pre(1));
    Expr cand;
    if (r.lbr) {
      Expr hr_h = r.B ? ctx.read(*r.B, {dl, offset(h, GH + 2 * H)}) : flit(0.0);
      if (!hr.empty()) hr_h = add(Context::ref(hr, r.dt, {b, offset(h, 2 * H)}), hr_h);
      cand = tanh_of(add(pre(2), mul(rg, hr_h)));
    } else if (have_prev) {  // (r ⊙ H_{t-1}) * R_h^T
      const std::string rh = ctx.temp();
      ctx.emit1(l, Context::ref(rh, r.dt, {b, h}), mul(rg, hprev(b, h)));
      const std::string hr2 = recur(2 * H, H, [&](const Expr& bb, const Expr& k) { return Context::ref(rh, r.dt, {bb, k}); });
      cand = tanh_of(add(pre(2), Context::ref(hr2, r.dt, {b, h})));
    } else {
      cand = tanh_of(pre(2));
    }
    ctx.emit1(l, Context::ref(hs, r.dt, {ti, b, h}), add(mul(sub(flit(1.0), z), cand), mul(z, hprev(b, h))));
  }
  return {hs, cs};
}

void op_rnn(Context& ctx, const Node& n) {
  const bool lstm = n.op() == "LSTM";
  const Rnn r = rnn_spec(ctx, n, lstm);
  std::vector<std::pair<std::string, std::string>> dirs;
  for (std::int64_t d = 0; d < r.nd; ++d) dirs.push_back(emit_direction(ctx, r, d, r.reverse_only || d == 1));
  // Y: [S, nd, B, H] (layout 1: [B, S, nd, H]); Y_h, Y_c: [nd, B, H] (layout 1: [B, nd, H])
  if (has_out(n, 0)) {
    const Shape ys = r.layout1 ? Shape{r.Bt, r.S, r.nd, r.H} : Shape{r.S, r.nd, r.Bt, r.H};
    const std::string y = ctx.def_out(n, 0, r.dt, ys);
    for (std::int64_t d = 0; d < r.nd; ++d) {
      Loops l = ctx.loops({r.S, r.Bt, r.H});
      const Expr &s = l.sp[0], &b = l.sp[1], &h = l.sp[2];
      std::vector<Expr> yi = r.layout1 ? std::vector<Expr>{b, s, ilit(d), h} : std::vector<Expr>{s, ilit(d), b, h};
      ctx.emit1(l, Context::ref(y, r.dt, yi), Context::ref(dirs[d].first, r.dt, l.sp));
    }
  }
  for (std::size_t o = 1; o <= (lstm ? 2u : 1u); ++o) {
    if (!has_out(n, o)) continue;
    const Shape ss = r.layout1 ? Shape{r.Bt, r.nd, r.H} : Shape{r.nd, r.Bt, r.H};
    const std::string y = ctx.def_out(n, o, r.dt, ss);
    for (std::int64_t d = 0; d < r.nd; ++d) {
      const std::int64_t last = r.reverse_only || d == 1 ? 0 : r.S - 1;
      const std::string& src = o == 1 ? dirs[d].first : dirs[d].second;
      Loops l = ctx.loops({r.Bt, r.H});
      std::vector<Expr> yi = r.layout1 ? std::vector<Expr>{l.sp[0], ilit(d), l.sp[1]} : std::vector<Expr>{ilit(d), l.sp[0], l.sp[1]};
      ctx.emit1(l, Context::ref(y, r.dt, yi), Context::ref(src, r.dt, {ilit(last), l.sp[0], l.sp[1]}));
    }
  }
}

}  // namespace

void register_rnn_ops(OpTable& t) {
  t["LSTM"] = op_rnn;
  t["GRU"] = op_rnn;
}

}  // namespace steptp::frontend::onnx_detail
