#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

T cross_entropy(Graph& g, T logits, T target) {
  Shape ls = g.shape(logits);
  T y = g.node({});
  g.step([=](Graph& gg) {
    Buf tb = gg.buf(target), yb = gg.buf(y), lb = gg.temp(ls);
    emit_softmax(gg, lb, gg.buf(logits), 1, true);
    // weight per class (ignore_index -100 never matches a class), picked by the target gather
    Buf wv = gg.temp({ls[1]}, ir::DType::I64), loss = gg.temp({ls[0]}), cnt = gg.temp({}, ir::DType::I64);
    gg.nest({{'B', ls[1], "tx"}}, {ref(wv, {"tx"}) + "=if_then_else(tx!=-100,1,0)"});
    std::string t = ref(tb, {"tx"});
    gg.nest({{'B', ls[0], "tx"}}, {ref(loss, {"tx"}) + "=-" + ref(wv, {t}) + "*" + ref(lb, {"tx", t})});
    gg.nest({{'B', ls[0], "tx"}}, {ref(cnt, {}) + "=" + ref(cnt, {}) + "+" + ref(wv, {t})});
    gg.nest({{'B', ls[0], "tx"}}, {ref(yb, {}) + "=" + ref(yb, {}) + "+" + ref(loss, {"tx"}) + "/" + ref(cnt, {})});
  });
  return y;
}

T kl_div_batchmean(Graph& g, T log_in, T target) {
  Shape s = g.shape(log_in);
  T y = g.node({});
  g.step([=](Graph& gg) {
    Buf lb = gg.buf(log_in), tb = gg.buf(target), yb = gg.buf(y);
    Buf e = gg.temp(s), acc = gg.temp({});
    Grid gr = grid(s, static_cast<int>(s.size()) - 1);
    gg.nest(gr.loops, {ref(e, gr.idx) + "=" + ref(tb, gr.idx) + "*(log(" + ref(tb, gr.idx) + ")-" +
                           ref(lb, gr.idx) + ")"});
    gg.nest(gr.loops, {ref(acc, {}) + "=" + ref(acc, {}) + "+" + ref(e, gr.idx)});
    gg.nest({{'B', 1, "tx"}}, {ref(yb, {}) + "=" + ref(acc, {}) + "/" + ilit(s[0])});
  });
  return y;
}

}  // namespace steptp::frontend::wl
