#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

namespace {
// Y_i = Y_i (op) if_then_else(r <cmp> i, term(X_r…), identity) over an extra loop r along `dim`.
T scan(Graph& g, T x, T mask, int dim, const std::string& cmp, const std::string& op, const std::string& ident) {
  Shape in = g.shape(x);
  if (dim < 0) dim += static_cast<int>(in.size());
  T y = g.node(in);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Grid gr = grid(in);
    std::string r = gr.add(in[dim]);
    auto xi = gr.idx;
    xi[dim] = r;
    std::string term = ref(xb, xi);
    if (mask.id >= 0) {
      term += '*';
      term += ref(gg.buf(mask), xi);
    }
    std::string yr = ref(yb, gr.idx);
    gg.nest(gr.loops,
            {yr + "=" + yr + op + "if_then_else(" + r + cmp + gr.idx[dim] + "," + term + "," + ident + ")"});
  });
  return y;
}
}  // namespace

T cumsum(Graph& g, T x, int dim, bool reverse) { return scan(g, x, T{}, dim, reverse ? ">=" : "<=", "+", "0"); }
T cumprod(Graph& g, T x, int dim) { return scan(g, x, T{}, dim, "<=", "*", "1"); }
T masked_cumsum(Graph& g, T x, T mask, int dim) { return scan(g, x, mask, dim, "<=", "+", "0"); }

}  // namespace steptp::frontend::wl
