#include <stdexcept>

#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

T matmul(Graph& g, T a, T b) {
  Shape as = g.shape(a), bs = g.shape(b);
  if (as.size() < 2 || bs.size() < 2) throw std::invalid_argument("matmul: operands must have rank >= 2");
  if (as.back() != bs[bs.size() - 2]) throw std::invalid_argument("matmul: inner dimensions differ");
  Shape abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
  Shape out = broadcast_shape({abatch, bbatch});
  out.push_back(as[as.size() - 2]);
  out.push_back(bs.back());
  T y = g.node(out);
  g.step([a, b, y](Graph& gg) {
    Buf ab = gg.buf(a), bb = gg.buf(b), yb = gg.buf(y);
    Grid gr = grid(yb.shape);
    std::string k = gr.add(ab.shape.back());
    std::size_t r = yb.shape.size();
    Shape ybatch(yb.shape.begin(), yb.shape.end() - 2);
    std::vector<std::string> bidx(gr.idx.begin(), gr.idx.end() - 2);
    auto ai = bcast_idx(Shape(ab.shape.begin(), ab.shape.end() - 2), ybatch, bidx);
    auto bi = bcast_idx(Shape(bb.shape.begin(), bb.shape.end() - 2), ybatch, bidx);
    ai.push_back(gr.idx[r - 2]);
    ai.push_back(k);
    bi.push_back(k);
    bi.push_back(gr.idx[r - 1]);
    std::string yr = ref(yb, gr.idx);
    gg.nest(gr.loops, {yr + "=" + yr + "+" + ref(ab, ai) + "*" + ref(bb, bi)});
  });
  return y;
}

T linear(Graph& g, T x, T w, T bias) {
  Shape xs = g.shape(x), ws = g.shape(w);
  if (ws.size() != 2 || xs.back() != ws[1]) throw std::invalid_argument("linear: weight shape mismatch");
  Shape out = xs;
  out.back() = ws[0];
  T y = g.node(out);
  g.step([x, w, bias, y](Graph& gg) {
    Buf xb = gg.buf(x), wb = gg.buf(w), yb = gg.buf(y);
    Grid gr = grid(yb.shape);
    std::string k = gr.add(xb.shape.back());
    auto xi = gr.idx;
    xi.back() = k;
    std::string yr = ref(yb, gr.idx);
    gg.nest(gr.loops, {yr + "=" + yr + "+" + ref(xb, xi) + "*" + ref(wb, {gr.idx.back(), k})});
    if (bias.id >= 0) {
      Grid g2 = grid(yb.shape);
      std::string yr2 = ref(yb, g2.idx);
      gg.nest(g2.loops, {yr2 + "=" + yr2 + "+" + ref(gg.buf(bias), {g2.idx.back()})});
    }
  });
  return y;
}

}  // namespace steptp::frontend::wl
