#include <stdexcept>

#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

namespace {
std::string sq_dev(const std::string& x, const std::string& m) { return "(" + x + "-" + m + ")**2"; }
std::string normalized(const std::string& x, const std::string& m, const std::string& v, double eps) {
  return "(" + x + "-" + m + ")/sqrt(" + v + "+" + flit(eps) + ")";
}
std::string acc(const std::string& r, const std::string& term) { return r + "=" + r + "+" + term; }
}  // namespace

T batchnorm(Graph& g, T x, T w, T b, double eps) {
  Shape in = g.shape(x);
  std::int64_t c = in.at(1), n = numel(in) / c;
  T mean_t = g.node({c}), var_t = g.node({c});
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), mb = gg.buf(mean_t), vb = gg.buf(var_t), yb = gg.buf(y);
    Buf s = gg.temp({c}), q = gg.temp({c}), z = gg.temp(in);
    Grid st = grid(in, 1);
    std::string xr = ref(xb, st.idx);
    gg.nest(st.loops, {acc(ref(s, {"tx"}), xr)});
    gg.nest({{'B', c, "tx"}}, {ref(mb, {"tx"}) + "=" + ref(s, {"tx"}) + "/" + ilit(n)});
    gg.nest(st.loops, {acc(ref(q, {"tx"}), sq_dev(xr, ref(mb, {"tx"})))});
    gg.nest({{'B', c, "tx"}}, {ref(vb, {"tx"}) + "=" + ref(q, {"tx"}) + "/" + ilit(n)});
    Grid nm = grid(in, static_cast<int>(in.size()) - 1);
    std::string ch = nm.idx[1];
    gg.nest(nm.loops, {ref(z, nm.idx) + "=" + normalized(ref(xb, nm.idx), ref(mb, {ch}), ref(vb, {ch}), eps)});
    gg.nest(nm.loops, {ref(yb, nm.idx) + "=" + ref(gg.buf(w), {ch}) + "*" + ref(z, nm.idx) + "+" +
                           ref(gg.buf(b), {ch})});
  });
  return y;
}

T groupnorm(Graph& g, T x, std::int64_t groups, T w, T b, double eps) {
  Shape in = g.shape(x);
  std::int64_t c = in.at(1);
  if (c % groups != 0) throw std::invalid_argument("groupnorm: channels not divisible by groups");
  std::int64_t cpg = c / groups, n = numel(in) / in[0] / groups;
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Shape st_shape{in[0], groups};
    Buf s = gg.temp(st_shape), m = gg.temp(st_shape), q = gg.temp(st_shape), v = gg.temp(st_shape),
        z = gg.temp(in);
    // B^{N}_{tx} L^{G}_{a} L^{C/G}_{c} L^{rest}…: channel index a*cpg+c.
    Grid gr;
    gr.loops.push_back({'B', in[0], "tx"});
    std::string ga = gr.add(groups), gc = gr.add(cpg);
    std::vector<std::string> idx{"tx", ga + "*" + ilit(cpg) + "+" + gc};
    for (std::size_t d = 2; d < in.size(); ++d) idx.push_back(gr.add(in[d]));
    Grid g2;
    g2.loops = {{'B', in[0], "tx"}};
    g2.add(groups);
    std::vector<std::string> si{"tx", ga}, chi{idx[1]};
    std::string xr = ref(xb, idx);
    gg.nest(gr.loops, {acc(ref(s, si), xr)});
    gg.nest(g2.loops, {ref(m, si) + "=" + ref(s, si) + "/" + ilit(n)});
    gg.nest(gr.loops, {acc(ref(q, si), sq_dev(xr, ref(m, si)))});
    gg.nest(g2.loops, {ref(v, si) + "=" + ref(q, si) + "/" + ilit(n)});
    gg.nest(gr.loops, {ref(z, idx) + "=" + normalized(xr, ref(m, si), ref(v, si), eps)});
    gg.nest(gr.loops,
            {ref(yb, idx) + "=" + ref(gg.buf(w), chi) + "*" + ref(z, idx) + "+" + ref(gg.buf(b), chi)});
  });
  return y;
}

T instancenorm(Graph& g, T x, T w, T b, double eps) {
  Shape in = g.shape(x);
  std::int64_t n = numel(in) / in.at(0) / in.at(1);
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Shape ss{in[0], in[1]};
    Buf s = gg.temp(ss), m = gg.temp(ss), q = gg.temp(ss), v = gg.temp(ss);
    Buf z = w.id >= 0 ? gg.temp(in) : yb;
    Grid gr = grid(in), g2 = grid(ss);
    std::vector<std::string> si{"tx", gr.idx[1]};
    std::string xr = ref(xb, gr.idx);
    gg.nest(gr.loops, {acc(ref(s, si), xr)});
    gg.nest(g2.loops, {ref(m, si) + "=" + ref(s, si) + "/" + ilit(n)});
    gg.nest(gr.loops, {acc(ref(q, si), sq_dev(xr, ref(m, si)))});
    gg.nest(g2.loops, {ref(v, si) + "=" + ref(q, si) + "/" + ilit(n)});
    gg.nest(gr.loops, {ref(z, gr.idx) + "=" + normalized(xr, ref(m, si), ref(v, si), eps)});
    if (w.id >= 0)
      gg.nest(gr.loops, {ref(yb, gr.idx) + "=" + ref(gg.buf(w), {gr.idx[1]}) + "*" + ref(z, gr.idx) + "+" +
                             ref(gg.buf(b), {gr.idx[1]})});
  });
  return y;
}

T layernorm(Graph& g, T x, int nd, T w, T b, double eps) {
  Shape in = g.shape(x);
  std::size_t lead = in.size() - static_cast<std::size_t>(nd);
  Shape ss(in.begin(), in.begin() + lead);
  Shape ns(in.begin() + lead, in.end());
  std::int64_t n = numel(ns);
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf s = gg.temp(ss), m = gg.temp(ss), q = gg.temp(ss), v = gg.temp(ss);
    Buf z = w.id >= 0 ? gg.temp(in) : yb;
    Grid gr = grid(in), g2 = grid(ss);
    std::vector<std::string> si(gr.idx.begin(), gr.idx.begin() + lead), ni(gr.idx.begin() + lead, gr.idx.end());
    std::string xr = ref(xb, gr.idx);
    gg.nest(gr.loops, {acc(ref(s, si), xr)});
    gg.nest(g2.loops, {ref(m, si) + "=" + ref(s, si) + "/" + ilit(n)});
    gg.nest(gr.loops, {acc(ref(q, si), sq_dev(xr, ref(m, si)))});
    gg.nest(g2.loops, {ref(v, si) + "=" + ref(q, si) + "/" + ilit(n)});
    gg.nest(gr.loops, {ref(z, gr.idx) + "=" + normalized(xr, ref(m, si), ref(v, si), eps)});
    if (w.id >= 0)
      gg.nest(gr.loops, {ref(yb, gr.idx) + "=" + ref(gg.buf(w), ni) + "*" + ref(z, gr.idx) + "+" +
                             ref(gg.buf(b), ni)});
  });
  return y;
}

T rmsnorm(Graph& g, T x, double eps) {
  Shape in = g.shape(x);
  Shape ss = in;
  ss.erase(ss.begin() + 1);
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf s = gg.temp(ss), r = gg.temp(ss);
    Grid gr = grid(in), g2 = grid(ss);
    auto si = gr.idx;
    si.erase(si.begin() + 1);
    std::string xr = ref(xb, gr.idx);
    gg.nest(gr.loops, {acc(ref(s, si), xr + "**2")});
    gg.nest(g2.loops, {ref(r, g2.idx) + "=sqrt(" + ref(s, g2.idx) + "/" + ilit(in[1]) + "+" + flit(eps) + ")"});
    gg.nest(gr.loops, {ref(yb, gr.idx) + "=" + xr + "/" + ref(r, si)});
  });
  return y;
}

T frobenius_norm(Graph& g, T x) {
  Shape in = g.shape(x);
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf s = gg.temp({}), r = gg.temp({});
    Grid gr = grid(in);
    std::string xr = ref(xb, gr.idx);
    gg.nest(gr.loops, {acc(ref(s, {}), xr + "**2")});
    gg.nest({{'B', 1, "tx"}}, {ref(r, {}) + "=sqrt(" + ref(s, {}) + ")"});
    gg.nest(gr.loops, {ref(yb, gr.idx) + "=" + xr + "/" + ref(r, {})});
  });
  return y;
}

T lp_normalize(Graph& g, T x, int p) {
  Shape in = g.shape(x);
  Shape ss = in;
  ss[1] = 1;
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf s = gg.temp(ss);
    Grid gr = grid(in);
    auto si = gr.idx;
    si[1] = "0";
    std::string xr = ref(xb, gr.idx);
    gg.nest(gr.loops, {acc(ref(s, si), p == 1 ? "abs(" + xr + ")" : xr + "**2")});
    gg.nest(gr.loops, {ref(yb, gr.idx) + "=" + xr + "/" + (p == 1 ? ref(s, si) : "sqrt(" + ref(s, si) + ")")});
  });
  return y;
}

}  // namespace steptp::frontend::wl
