#include <stdexcept>

#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

Shape broadcast_shape(const std::vector<Shape>& shapes) {
  Shape out;
  for (const auto& s : shapes) {
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    std::size_t off = out.size() - s.size();
    for (std::size_t d = 0; d < s.size(); ++d) {
      auto& o = out[off + d];
      if (o == 1) o = s[d];
      else if (s[d] != 1 && s[d] != o) throw std::invalid_argument("broadcast: incompatible shapes");
    }
  }
  return out;
}

void emit_map(Graph& g, const Buf& out, const std::vector<Buf>& ins, const ExprFn& f) {
  Grid gr = grid(out.shape);
  std::vector<std::string> refs;
  for (const auto& b : ins) refs.push_back(ref(b, bcast_idx(b.shape, out.shape, gr.idx)));
  g.nest(gr.loops, {ref(out, gr.idx) + "=" + f(refs)});
}

void emit_tanh(Graph& g, const Buf& out, const Buf& x) {
  Buf num = g.temp(out.shape), den = g.temp(out.shape);
  emit_map(g, num, {x}, [](const auto& r) { return "exp(" + r[0] + ")-exp(-" + r[0] + ")"; });
  emit_map(g, den, {x}, [](const auto& r) { return "exp(" + r[0] + ")+exp(-" + r[0] + ")"; });
  emit_map(g, out, {num, den}, [](const auto& r) { return r[0] + "/" + r[1]; });
}

std::string relu_e(const std::string& x) { return "max(" + x + ",0)"; }
std::string leaky_e(const std::string& x, double s) {
  return "if_then_else(" + x + "<0," + flit(s) + "*" + x + "," + x + ")";
}
std::string gelu_e(const std::string& x) { return x + "*0.5*(1+erf(" + x + "/sqrt(2)))"; }
std::string sigmoid_e(const std::string& x) { return "1/(1+exp(-" + x + "))"; }
std::string softplus_e(const std::string& x) { return "log(1+exp(" + x + "))"; }
std::string hardswish_e(const std::string& x) { return x + "*max(min(" + x + "+3,6),0)/6"; }
std::string hardsigmoid_e(const std::string& x) { return "max(min(" + x + "+3,6),0)/6"; }
std::string hardtanh_e(const std::string& x, double lo, double hi) {
  return "min(max(" + x + "," + flit(lo) + ")," + flit(hi) + ")";
}
std::string elu_e(const std::string& x, double alpha) {
  return "if_then_else(" + x + ">0," + x + "," + flit(alpha) + "*(exp(" + x + ")-1))";
}
std::string selu_e(const std::string& x) {
  return "1.0507009873554805*if_then_else(" + x + ">0," + x + ",1.6732632423543772*(exp(" + x + ")-1))";
}
std::string softsign_e(const std::string& x) { return x + "/(1+abs(" + x + "))"; }

T map_shape(Graph& g, const Shape& out, const std::vector<T>& ins, ExprFn f) {
  T y = g.node(out);
  g.step([y, ins, f](Graph& gg) {
    std::vector<Buf> bs;
    for (T t : ins) bs.push_back(gg.buf(t));
    emit_map(gg, gg.buf(y), bs, f);
  });
  return y;
}

T map(Graph& g, const std::vector<T>& ins, ExprFn f) {
  std::vector<Shape> shapes;
  for (T t : ins) shapes.push_back(g.shape(t));
  return map_shape(g, broadcast_shape(shapes), ins, std::move(f));
}

T unary(Graph& g, T x, const std::function<std::string(const std::string&)>& f) {
  return map(g, {x}, [f](const auto& r) { return f(r[0]); });
}

T tanh(Graph& g, T x) {
  T y = g.node(g.shape(x));
  g.step([x, y](Graph& gg) { emit_tanh(gg, gg.buf(y), gg.buf(x)); });
  return y;
}

T mish(Graph& g, T x) {
  T y = g.node(g.shape(x));
  g.step([x, y](Graph& gg) {
    Buf xb = gg.buf(x), sp = gg.temp(xb.shape), th = gg.temp(xb.shape);
    emit_map(gg, sp, {xb}, [](const auto& r) { return softplus_e(r[0]); });
    emit_tanh(gg, th, sp);
    emit_map(gg, gg.buf(y), {xb, th}, [](const auto& r) { return r[0] + "*" + r[1]; });
  });
  return y;
}

T binary(Graph& g, T a, T b, const std::string& op) {
  return map(g, {a, b}, [op](const auto& r) { return r[0] + op + r[1]; });
}
T binary_lit(Graph& g, T a, const std::string& op, const std::string& lit) {
  return map(g, {a}, [op, lit](const auto& r) { return r[0] + op + lit; });
}
T lit_binary(Graph& g, const std::string& lit, const std::string& op, T b) {
  return map(g, {b}, [op, lit](const auto& r) { return lit + op + r[0]; });
}

}  // namespace steptp::frontend::wl
