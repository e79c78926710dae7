#include <stdexcept>

#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

namespace {
// "o*s+k*d" with `*1` dropped (conv form) or kept (pool form).
std::string tap(const std::string& o, std::int64_t s, const std::string& k, std::int64_t d, bool keep_ones) {
  std::string r = o;
  if (keep_ones || s != 1) r += std::string("*") + ilit(s);
  r += std::string("+") + k;
  if (keep_ones || d != 1) r += std::string("*") + ilit(d);
  return r;
}

// Nest writing a padded copy of x (spatial dims from 2 on, pad[i] on both sides) with `fill` outside.
Buf emit_pad(Graph& g, const Buf& x, const std::vector<std::int64_t>& pad, const std::string& fill) {
  Shape ps = x.shape;
  for (std::size_t i = 0; i < pad.size(); ++i) ps[2 + i] += 2 * pad[i];
  Buf p = g.temp(ps);
  Grid gr = grid(ps);
  std::string cond;
  auto xi = gr.idx;
  for (std::size_t i = 0; i < pad.size(); ++i) {
    if (pad[i] == 0) continue;
    const std::string& v = gr.idx[2 + i];
    if (!cond.empty()) cond += "&";
    cond += ilit(pad[i]) + "<=" + v + "<" + ilit(x.shape[2 + i] + pad[i]);
    xi[2 + i] = v + "-" + ilit(pad[i]);
  }
  g.nest(gr.loops, {ref(p, gr.idx) + "=if_then_else(" + cond + "," + ref(x, xi) + "," + fill + ")"});
  return p;
}
bool any_pad(const std::vector<std::int64_t>& p) {
  for (auto v : p)
    if (v) return true;
  return false;
}
void add_bias(Graph& g, const Buf& y, T bias) {
  if (bias.id < 0) return;
  Grid gr = grid(y.shape);
  std::string yr = ref(y, gr.idx);
  g.nest(gr.loops, {yr + "=" + yr + "+" + ref(g.buf(bias), {gr.idx[1]})});
}
}  // namespace

std::vector<std::int64_t> conv_out_dims(const Shape& x, const Shape& w, const ConvCfg& c) {
  std::vector<std::int64_t> o;
  for (std::size_t i = 0; i + 2 < x.size(); ++i) {
    std::int64_t eff = c.dil[i] * (w[2 + i] - 1) + 1;
    std::int64_t n = (x[2 + i] + 2 * c.pad[i] - eff) / c.stride[i] + 1;
    if (x[2 + i] + 2 * c.pad[i] < eff || n < 1) throw std::invalid_argument("conv: kernel larger than input");
    o.push_back(n);
  }
  return o;
}

T conv(Graph& g, T x, T w, const ConvCfg& c, T bias) {
  Shape xs = g.shape(x), ws = g.shape(w);
  if (xs[1] != ws[1] * c.groups || ws[0] % c.groups) throw std::invalid_argument("conv: channel/group mismatch");
  Shape out{xs[0], ws[0]};
  for (auto d : conv_out_dims(xs, ws, c)) out.push_back(d);
  T y = g.node(out);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), wb = gg.buf(w), yb = gg.buf(y);
    bool padded = any_pad(c.pad);
    Buf src = padded ? emit_pad(gg, xb, c.pad, "0") : xb;
    Grid gr = grid(out);
    std::int64_t cin_g = ws[1], cout_g = ws[0] / c.groups;
    std::string f = gr.add(cin_g);
    std::string ci;
    if (c.groups == 1) ci = f;
    else if (cin_g == 1 && cout_g == 1) ci = gr.idx[1];
    else if (cin_g == 1) ci = gr.idx[1] + "//" + ilit(cout_g);
    else ci = gr.idx[1] + "//" + ilit(cout_g) + "*" + ilit(cin_g) + "+" + f;
    std::vector<std::string> wi{gr.idx[1], f}, xi{"tx", ci};
    for (std::size_t i = 0; i + 2 < xs.size(); ++i) {
      std::string k = gr.add(ws[2 + i]);
      wi.push_back(k);
      xi.push_back(tap(gr.idx[2 + i], c.stride[i], k, c.dil[i], false));
    }
    std::string yr = ref(yb, gr.idx);
    std::string prod = padded ? ref(src, xi) + "*" + ref(wb, wi) : ref(wb, wi) + "*" + ref(src, xi);
    gg.nest(gr.loops, {yr + "=" + yr + "+" + prod});
    add_bias(gg, yb, bias);
  });
  return y;
}

T conv_transpose(Graph& g, T x, T w, const ConvCfg& c, const std::vector<std::int64_t>& out_pad, T bias) {
  Shape xs = g.shape(x), ws = g.shape(w);
  if (xs[1] != ws[0] || xs[1] % c.groups) throw std::invalid_argument("conv_transpose: channel mismatch");
  Shape out{xs[0], ws[1] * c.groups};
  for (std::size_t i = 0; i + 2 < xs.size(); ++i) {
    std::int64_t n = (xs[2 + i] - 1) * c.stride[i] - 2 * c.pad[i] + c.dil[i] * (ws[2 + i] - 1) + out_pad[i] + 1;
    if (n < 1) throw std::invalid_argument("conv_transpose: empty output");
    out.push_back(n);
  }
  T y = g.node(out);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), wb = gg.buf(w), yb = gg.buf(y);
    Grid gr = grid(out);
    std::int64_t cin_g = xs[1] / c.groups, cout_g = ws[1];
    std::string f = gr.add(cin_g);
    std::string ci = c.groups == 1 ? f : gr.idx[1] + "//" + ilit(cout_g) + "*" + ilit(cin_g) + "+" + f;
    std::string co = c.groups == 1 ? gr.idx[1] : gr.idx[1] + "%" + ilit(cout_g);
    std::vector<std::string> wi{ci, co}, xi{"tx", ci};
    std::string cond;
    for (std::size_t i = 0; i + 2 < xs.size(); ++i) {
      std::string k = gr.add(ws[2 + i]);
      wi.push_back(k);
      // input position (o + pad - k*dil) / stride, when divisible and in range
      std::string num = gr.idx[2 + i];
      if (c.pad[i]) num += std::string("+") + ilit(c.pad[i]);
      num += std::string("-") + k + (c.dil[i] != 1 ? std::string("*") + ilit(c.dil[i]) : "");
      std::string pos = c.stride[i] != 1 ? std::string("(") + num + ")//" + ilit(c.stride[i]) : num;
      if (!cond.empty()) cond += "&";
      if (c.stride[i] != 1) cond += std::string("(") + num + ")%" + ilit(c.stride[i]) + "==0&";
      cond += std::string("0<=") + pos + "<" + ilit(xs[2 + i]);
      xi.push_back(pos);
    }
    std::string yr = ref(yb, gr.idx);
    gg.nest(gr.loops, {yr + "=" + yr + "+if_then_else(" + cond + "," + ref(xb, xi) + ",0)*" + ref(wb, wi)});
    add_bias(gg, yb, bias);
  });
  return y;
}

std::vector<std::int64_t> pool_out_dims(const Shape& x, const PoolCfg& c) {
  std::vector<std::int64_t> o;
  for (std::size_t i = 0; i < c.k.size(); ++i) {
    std::int64_t eff = c.dil[i] * (c.k[i] - 1) + 1;
    std::int64_t span = x[2 + i] + 2 * c.pad[i] - eff;
    if (span < 0) throw std::invalid_argument("pool: kernel larger than input");
    o.push_back(span / c.stride[i] + 1);
  }
  return o;
}

T maxpool(Graph& g, T x, const PoolCfg& c) {
  Shape xs = g.shape(x);
  Shape out{xs[0], xs[1]};
  for (auto d : pool_out_dims(xs, c)) out.push_back(d);
  T y = g.node(out);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf src = any_pad(c.pad) ? emit_pad(gg, xb, c.pad, "-inf") : xb;
    Grid gr = grid(out);
    std::vector<std::string> xi{"tx", gr.idx[1]};
    for (std::size_t i = 0; i < c.k.size(); ++i) {
      std::string k = gr.add(c.k[i]);
      xi.push_back(tap(gr.idx[2 + i], c.stride[i], k, c.dil[i], true));
    }
    std::string yr = ref(yb, gr.idx);
    gg.nest(gr.loops, {yr + "=max(" + yr + "," + ref(src, xi) + ")"});
  });
  return y;
}

T avgpool(Graph& g, T x, const PoolCfg& c) {
  Shape xs = g.shape(x);
  Shape out{xs[0], xs[1]};
  for (auto d : pool_out_dims(xs, c)) out.push_back(d);
  T y = g.node(out);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    bool padded = any_pad(c.pad);
    Buf src = padded ? emit_pad(gg, xb, c.pad, "0") : xb;
    Buf s = gg.temp(out);
    Grid gr = grid(out);
    std::vector<std::string> xi{"tx", gr.idx[1]};
    for (std::size_t i = 0; i < c.k.size(); ++i) {
      std::string k = gr.add(c.k[i]);
      xi.push_back(gr.idx[2 + i] + "*" + ilit(c.stride[i]) + "+" + k);
    }
    std::string sr = ref(s, gr.idx);
    gg.nest(gr.loops, {sr + "=" + sr + "+" + ref(src, xi)});
    Grid g2 = grid(out);
    std::string div;
    for (std::size_t i = 0; i < c.k.size(); ++i) {
      if (i) div += "*";
      if (padded) div += ilit(c.k[i]);
      else
        div += std::string("(min(") + ilit(c.k[i] - 1) + "," + ilit(xs[2 + i] - 1) + "-" + g2.idx[2 + i] + "*" +
               ilit(c.stride[i]) + ")+1)";
    }
    gg.nest(g2.loops, {ref(yb, g2.idx) + "=" + ref(s, g2.idx) + "/" + (c.k.size() > 1 ? std::string("(") + div + ")" : div)});
  });
  return y;
}

}  // namespace steptp::frontend::wl
