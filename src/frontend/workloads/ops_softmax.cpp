#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

void emit_softmax(Graph& gg, const Buf& yb, const Buf& xb, int dim, bool log) {
  {
    Shape rs = xb.shape;
    rs.erase(rs.begin() + dim);
    Buf m = gg.temp(rs), s = gg.temp(rs);
    Grid gr = grid(xb.shape);
    auto ri = gr.idx;
    ri.erase(ri.begin() + dim);
    std::string xr = ref(xb, gr.idx), mr = ref(m, ri), sr = ref(s, ri);
    gg.nest(gr.loops, {mr + "=max(" + mr + "," + xr + ")"});
    gg.nest(gr.loops, {sr + "=" + sr + "+exp(" + xr + "-" + mr + ")"});
    if (log) gg.nest(gr.loops, {ref(yb, gr.idx) + "=" + xr + "-" + mr + "-log(" + sr + ")"});
    else gg.nest(gr.loops, {ref(yb, gr.idx) + "=exp(" + xr + "-" + mr + ")/" + sr});
  }
}

namespace {
T softmax_impl(Graph& g, T x, int dim, bool log) {
  Shape in = g.shape(x);
  if (dim < 0) dim += static_cast<int>(in.size());
  T y = g.node(in);
  g.step([x, y, dim, log](Graph& gg) { emit_softmax(gg, gg.buf(y), gg.buf(x), dim, log); });
  return y;
}
}  // namespace

T softmax(Graph& g, T x, int dim) { return softmax_impl(g, x, dim, false); }
T log_softmax(Graph& g, T x, int dim) { return softmax_impl(g, x, dim, true); }

}  // namespace steptp::frontend::wl
